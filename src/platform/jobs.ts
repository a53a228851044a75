import type { FastifyBaseLogger } from 'fastify';
import { detached } from './detached.ts';
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
  /** Runs asked for while one was in flight: that one may have looked before the work was due. */
  private readonly again = new Map<string, Promise<number>>();
  private stopped = false;
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
   * Runs the named job now, off its timer, for work a request has just made due: at once, or
   * right after the run in flight. Answers how many items that run handled (0 when it failed,
   * which is logged as a timer's run would be).
   */
  kick(name: string): Promise<number> {
    return detached(() => this.kickNow(name));
  }

  private kickNow(name: string): Promise<number> {
    const job = this.jobs.find((candidate) => candidate.name === name);
    if (!job) throw new Error(`no job named ${name}`);
    if (this.stopped) return Promise.resolve(0);
    const inFlight = this.running.get(name);
    if (!inFlight) return this.runOne(job).catch((error: unknown) => this.failed(job, error));
    let next = this.again.get(name);
    if (!next) {
      next = inFlight
        .catch(() => 0)
        .then(() => {
          this.again.delete(name);
          return this.stopped ? 0 : this.runOne(job);
        })
        .catch((error: unknown) => this.failed(job, error));
      this.again.set(name, next);
    }
    return next;
  }

  /**
   * Starts the timers; a failing run is logged and tried again at the next tick. The timers keep
   * the process alive only when asked (a worker, which has no listening server to do so).
   */
  start({ keepAlive = false } = {}): void {
    for (const job of this.jobs) {
      const timer = setInterval(() => {
        this.runOne(job).catch((error: unknown) => this.failed(job, error));
      }, job.everyMs);
      if (!keepAlive) timer.unref();
      this.timers.push(timer);
    }
  }

  /** Stops the timers and waits for runs in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await Promise.allSettled([...this.running.values(), ...this.again.values()]);
  }

  private failed(job: Job, error: unknown): number {
    if (!this.outages?.failed(error)) this.log.error({ err: error, job: job.name }, 'job failed');
    return 0;
  }

  private runOne(job: Job): Promise<number> {
    const inFlight = this.running.get(job.name);
    if (inFlight) return inFlight;
    const run = job.run().finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
    return run;
  }
}
