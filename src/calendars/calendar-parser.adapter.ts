import { Worker } from 'node:worker_threads';
import type { BusyPeriod } from './busy-events.rules.ts';
import { SyncFailed, type SyncFailure } from './sync-failure.model.ts';

const WORKER = new URL('./busy-events.worker.ts', import.meta.url);

/**
 * Parses and expands calendars off the event loop: each in a worker thread of its own, under the
 * budget of CPU and memory (the thread is ended past either and the calendar is `too_complex`),
 * one at a time per process, so the parsing of a process never takes more than one core from the
 * requests it serves. A fresh thread per calendar leaves nothing of a hostile file behind.
 */
export class CalendarParser {
  /** CPU time of the thread, its start included. */
  cpuLimitMs = 5_000;
  memoryLimitMb = 256;
  /** How often the thread's CPU time is read. */
  checkEveryMs = 50;
  private queue: Promise<unknown> = Promise.resolve();

  /** The busy periods of `text` (see `busyPeriods`). Throws SyncFailed. */
  parse(text: string, now: number, timeZone: string): Promise<BusyPeriod[]> {
    const turn = this.queue.then(() => this.inWorker(text, now, timeZone));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private inWorker(text: string, now: number, timeZone: string): Promise<BusyPeriod[]> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER, {
        workerData: { text, now, timeZone },
        // Not the process's own flags: its `--import` preloads (tracing) have no work in this thread.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: this.memoryLimitMb, maxYoungGenerationSizeMb: 32 },
      });
      let outcome: { periods: BusyPeriod[] } | { failure: SyncFailure } | undefined;
      const watch = setInterval(async () => {
        try {
          const { user, system } = await worker.cpuUsage();
          if ((user + system) / 1000 > this.cpuLimitMs) {
            outcome ??= { failure: 'too_complex' };
            void worker.terminate();
          }
        } catch {
          // The thread ended between two reads: its exit settles the parse.
        }
      }, this.checkEveryMs);
      worker.on('message', (message: { periods: BusyPeriod[] } | { failure: SyncFailure }) => {
        outcome ??= message;
      });
      worker.on('error', (error: Error & { code?: string }) => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') outcome ??= { failure: 'too_complex' };
        else if (!outcome) reject(error);
      });
      worker.on('exit', () => {
        clearInterval(watch);
        if (!outcome) return reject(new Error('the calendar parser ended without an answer'));
        if ('failure' in outcome) reject(new SyncFailed(outcome.failure));
        else resolve(outcome.periods);
      });
    });
  }
}
