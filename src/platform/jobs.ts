import type { FastifyBaseLogger } from 'fastify';
import type { OutageWatch } from './outages.ts';

/**
 * Work the service does on its own, on a timer: cancelling unpaid bookings, placing holds,
 * sending email and webhooks. Each run claims its rows in the database (`FOR UPDATE SKIP LOCKED`), so any
 * number of processes may run the same jobs. Tests call `runAll()` instead of waiting.
 */
export interface Job {
  name: string;
  everyMs: number;
  /** Handles what is due; answers how many items it handled. */
  run(): Promise<number>;
}

export class JobRunner {
  private readonly jobs: Job[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<number>>();
  private readonly log: FastifyBaseLogger;
  private readonly outages: OutageWatch | undefined;

  /** `outages`: runs failed by a database outage count toward it instead of being logged one by one. */
  constructor(log: FastifyBaseLogger, outages?: OutageWatch) {
    this.log = log;
    this.outages = outages;
  }

  add(job: Job): void {
    this.jobs.push(job);
  }

  /** Runs each job once, in the order added; a job already running is awaited, not doubled. */
  async runAll(): Promise<Record<string, number>> {
    const handled: Record<string, number> = {};
    for (const job of this.jobs) handled[job.name] = await this.runOne(job);
    return handled;
  }

  /**
   * Starts the timers; a failing run is logged and tried again at the next tick. The timers keep
   * the process alive only when asked (a worker, which has no listening server to do so).
   */
  start({ keepAlive = false } = {}): void {
    for (const job of this.jobs) {
      const timer = setInterval(() => {
        this.runOne(job).catch((error: unknown) => {
          if (!this.outages?.failed(error)) this.log.error({ err: error, job: job.name }, 'job failed');
        });
      }, job.everyMs);
      if (!keepAlive) timer.unref();
      this.timers.push(timer);
    }
  }

  /** Stops the timers and waits for runs in flight. */
  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await Promise.allSettled(this.running.values());
  }

  private runOne(job: Job): Promise<number> {
    const inFlight = this.running.get(job.name);
    if (inFlight) return inFlight;
    const run = job.run().finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
    return run;
  }
}
