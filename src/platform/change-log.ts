import { sql } from 'kysely';
import type { Clock } from './clock.ts';
import type { Database, Db } from './db.ts';
import { detached } from './detached.ts';

/**
 * The channel of the wake-up hints: an empty `NOTIFY` a process sends after its own writes have
 * committed, so that every process polls the change log sooner. Nothing depends on a hint arriving.
 */
export const HINT_CHANNEL = 'slotwise_changes';

/** At most one hint per this long per process: each `NOTIFY` takes a lock every notifying commit queues for. */
const HINT_EVERY_MS = 10;

/**
 * The least time between the starts of two polls, however many wake-ups come: under a stream of
 * writes and hints, a process polls at most 40 times a second rather than back to back.
 */
const MIN_POLL_GAP_MS = 25;

/**
 * How long a reader may go without a successful poll and still resume where it stopped. Past it,
 * it starts again from now (`ChangeLogListener.lost`, then `started`) rather than read what piled
 * up meanwhile in one go; the log keeps an hour (`pruneChangeLog`), far more than this.
 */
const RESUME_WITHIN_MS = 60_000;

/** One row of `change_log`, as a poll reads it. */
export interface ChangeLogRow {
  id: string;
  xid: string;
  cache: string | null;
  live: string | null;
}

export interface ChangeLogListener {
  /** A row committed since the last poll, in id order within a poll (not commit order). */
  apply(row: ChangeLogRow): void;
  /** Reading from now on: changes committed earlier are not read (the first poll, and after `lost`). */
  started(): void;
  /** Changes may have been missed: what depends on them must be dropped. */
  lost(): void;
  /** A poll that began at `startedAt` (the clock's) has applied everything it read. */
  polled(startedAt: number): void;
}

interface PollResult {
  watermark: string;
  last_id: string | null;
  id: string | null;
  xid: string | null;
  cache: string | null;
  live: string | null;
}

/**
 * Reads the change log (`migrations/0044_change_log.sql`) by polling, without ever skipping a row.
 * Row ids are taken in insert order but committed in any order, so the cursor is a transaction id:
 * each poll reads, in one statement (one snapshot), the rows of transactions from the cursor on and
 * the snapshot's `xmin`, the watermark, below which every transaction has ended. A row below it
 * not read before is read now and will never appear later; rows at or above it are remembered by
 * id, since a transaction that started earlier may still commit rows between them. The cursor then
 * moves to the watermark.
 *
 * Transaction ids are not durable across a crash: ids handed out but never written to the WAL (a
 * transaction that only sent a hint) are handed out again after PostgreSQL restarts, so rows
 * committed then may carry a transaction id below the cursor. Their row ids are not reused (a
 * sequence logs ahead), so each poll also reads every row above the highest id it saw last time.
 *
 * A poll runs every `pollMs`, and sooner when woken (a hint, or this process's own write). One
 * poll at a time; a wake-up during one makes another follow it.
 */
export class ChangeLogReader {
  private cursor: string | undefined;
  /** The highest id the last poll could see: every row above it is new. */
  private lastId: string | null = null;
  /** Ids read at or above the cursor, with their transaction ids. */
  private readonly seen = new Map<string, bigint>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires, on the monotonic clock. */
  private timerAt = Number.POSITIVE_INFINITY;
  private polling: Promise<void> | undefined;
  private again = false;
  private lastStart = Number.NEGATIVE_INFINITY;
  private stopped = false;
  private lastSuccess: number | undefined;
  /** Resolved by the next poll that begins after they were asked for and succeeds. */
  private waiting: (() => void)[] = [];
  private readonly db: Db;
  private readonly pollMs: number;
  private readonly clock: Clock;
  private readonly listener: ChangeLogListener;

  constructor(db: Db, pollMs: number, clock: Clock, listener: ChangeLogListener) {
    this.db = db;
    this.pollMs = pollMs;
    this.clock = clock;
    this.listener = listener;
  }

  /** Polls once, then on its interval; a first poll that fails is tried again on the interval. */
  async start(): Promise<void> {
    await this.poll();
  }

  /** Polls now, or right after the poll in flight: at most one poll per `MIN_POLL_GAP_MS`. */
  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    detached(() => this.schedule(this.lastStart + MIN_POLL_GAP_MS - performance.now()));
  }

  /** Resolves once a poll begun after this call has applied every change committed before it. */
  caughtUp(): Promise<void> {
    const done = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.wake();
    return done;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
  }

  /** The next poll in `waitMs` (now when not positive), unless one is due sooner. */
  private schedule(waitMs: number): void {
    if (waitMs <= 0) {
      void this.poll();
      return;
    }
    const at = performance.now() + waitMs;
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.poll(), waitMs);
    this.timer.unref();
  }

  private poll(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.again = false;
    this.lastStart = performance.now();
    const waiting = this.waiting.splice(0);
    this.polling = this.readOnce(waiting).finally(() => {
      this.polling = undefined;
      if (this.stopped) return;
      const gap = this.lastStart + MIN_POLL_GAP_MS - performance.now();
      this.schedule(this.again ? gap : Math.max(gap, this.lastStart + this.pollMs - performance.now()));
    });
    return this.polling;
  }

  private async readOnce(waiting: (() => void)[]): Promise<void> {
    const startedAt = this.clock.now();
    // Monotonic, not the app's clock, which tests move by hours.
    const began = performance.now();
    if (
      this.cursor !== undefined &&
      this.lastSuccess !== undefined &&
      began - this.lastSuccess > RESUME_WITHIN_MS
    ) {
      this.cursor = undefined;
      this.seen.clear();
      this.listener.lost();
    }
    let rows: PollResult[];
    try {
      ({ rows } = await sql<PollResult>`
        SELECT w.watermark::text AS watermark, w.last_id::text AS last_id, c.id::text AS id,
          c.xid::text AS xid, c.cache, c.live
        FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS watermark,
          (SELECT max(id) FROM change_log) AS last_id) AS w
        LEFT JOIN change_log c ON c.xid >= coalesce(${this.cursor ?? null}::xid8, w.watermark)
          OR c.id > ${this.lastId}::bigint
        ORDER BY c.id`.execute(this.db));
    } catch {
      // Polled again on the interval: meanwhile the caches are not served (CHANGE_FEED_MAX_LAG_MS).
      this.waiting.unshift(...waiting);
      return;
    }
    const first = this.cursor === undefined;
    const watermark = BigInt(rows[0]!.watermark);
    for (const row of rows) {
      if (row.id === null || this.seen.has(row.id)) continue;
      const xid = BigInt(row.xid!);
      if (xid >= watermark) this.seen.set(row.id, xid);
      if (!first) this.listener.apply(row as ChangeLogRow);
    }
    for (const [id, xid] of this.seen) if (xid < watermark) this.seen.delete(id);
    this.cursor = String(watermark);
    this.lastId = rows[0]!.last_id ?? this.lastId;
    this.lastSuccess = began;
    if (first) this.listener.started();
    this.listener.polled(startedAt);
    for (const resolve of waiting) resolve();
  }
}

/**
 * Wake-up hints after this process's writes: its own reader polls at once, and on PostgreSQL the
 * other processes hear a `NOTIFY`, sent in a statement of its own after the write committed, at
 * most one per `HINT_EVERY_MS` (the last write of a burst is always followed by one).
 */
export class ChangeHints {
  private lastSent = Number.NEGATIVE_INFINITY;
  private pending: NodeJS.Timeout | undefined;
  private readonly reader: ChangeLogReader;
  private readonly db: Db | undefined;

  /** `db` undefined: no `NOTIFY` (hints off, or one process on PGlite). */
  constructor(reader: ChangeLogReader, db: Db | undefined) {
    this.reader = reader;
    this.db = db;
  }

  written(): void {
    this.reader.wake();
    if (!this.db || this.pending) return;
    detached(() => this.sendSoon());
  }

  private sendSoon(): void {
    const wait = this.lastSent + HINT_EVERY_MS - performance.now();
    if (wait <= 0) {
      this.send();
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.send();
    }, wait);
    this.pending.unref();
  }

  stop(): void {
    clearTimeout(this.pending);
  }

  private send(): void {
    this.lastSent = performance.now();
    sql`SELECT pg_notify(${HINT_CHANNEL}, '')`.execute(this.db!).catch(() => {});
  }
}

/** The hints of other processes, heard on the LISTEN connection: each brings a poll forward. */
export function listenForHints(database: Database, reader: ChangeLogReader): Promise<() => Promise<void>> {
  return database.listen([HINT_CHANNEL], {
    message: () => reader.wake(),
    // Hints missed while it was down: a poll now reads what they would have hurried.
    up: () => reader.wake(),
    down: () => {},
  });
}

/** Deletes the log's rows older than an hour; answers how many. */
export async function pruneChangeLog(db: Db): Promise<number> {
  // Ids roughly follow time: the first recent row bounds the old ones, found by the primary key.
  const result = await sql`
    DELETE FROM change_log WHERE id < coalesce(
      (SELECT min(id) FROM change_log WHERE at >= now() - interval '1 hour'),
      (SELECT max(id) + 1 FROM change_log))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
