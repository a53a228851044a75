/**
 * Why the database could not serve a query, whatever the query: `unreachable` (no connection, or
 * one lost), or `stalled` (a lock, a statement or a free connection not had in time).
 */
export type Outage = 'unreachable' | 'stalled';

/** A failure of the database as a whole rather than of the query: thrown for pool connections not had. */
export class DatabaseUnavailableError extends Error {
  readonly outage: Outage;
  /** When the connection that could not be had was asked for (ms since the epoch), if it was one. */
  readonly askedAt: number | undefined;

  constructor(outage: Outage, message: string, cause?: unknown, askedAt?: number) {
    super(message, { cause });
    this.outage = outage;
    this.askedAt = askedAt;
  }
}

/** Node's errors of a connection not made or cut. */
const UNREACHABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server ending or refusing sessions: admin_shutdown (57P01, `pg_ctl stop`),
 * crash_shutdown (57P02), cannot_connect_now (57P03, starting up or recovering),
 * too_many_connections (53300); and the whole class 08, connection exceptions.
 */
const UNREACHABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;
/** lock_not_available (55P03, `lock_timeout`) and query_canceled (57014, `statement_timeout`). */
const STALLED_SQLSTATE = new Set(['55P03', '57014']);
/** pg's own errors of a connection lost mid-query carry no code, only these texts. */
const LOST_CONNECTION = /^Connection terminated|is not queryable/;
/** pg-pool's error when no connection of a full pool was free in time. */
export const ACQUIRE_TIMEOUT = 'timeout exceeded when trying to connect';

/** Which outage an error is a symptom of; null for an error of the query itself. */
export function outageOf(error: unknown): Outage | null {
  if (error instanceof DatabaseUnavailableError) return error.outage;
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (STALLED_SQLSTATE.has(code)) return 'stalled';
    if (UNREACHABLE_SQLSTATE.has(code) || CONNECTION_EXCEPTION.test(code) || UNREACHABLE_ERRNO.has(code)) {
      return 'unreachable';
    }
    return null;
  }
  return LOST_CONNECTION.test(error.message) ? 'unreachable' : null;
}

export interface OutageListener {
  began(outage: Outage, error: unknown): void;
  /** `failures`: the failed queries the outage caused. */
  ended(outage: Outage, failures: number, lastedMs: number): void;
}

/** A stall has no event of its own that ends it: it counts as over after this long without a timeout. */
const STALL_QUIET_MS = 10_000;

/**
 * One outage is one event, however many requests fail during it: listeners hear when it begins
 * and when it ends, not of each failure. An unreachable database is back when a new connection is
 * made; a stalled one when no timeout happened for a while. While unreachable, timeouts (of
 * connections the pool waited for) are part of the same outage.
 */
export class OutageWatch {
  private current: { outage: Outage; failures: number; since: number } | null = null;
  /** When a new connection last proved the server back after an outage. */
  private recoveredAt = 0;
  private quiet: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<OutageListener>();

  /** Listens until the returned function is called. */
  watch(listener: OutageListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Counts a failure toward its outage; answers which outage, null for an error of the query itself. */
  failed(error: unknown): Outage | null {
    const outage = outageOf(error);
    if (!outage) return null;
    // A connection asked for before the server was seen back may fail from before its return (a
    // refusal while it was starting, answered late on a busy machine): as with `reachable`, it
    // proves nothing about the server since, and begins no new outage.
    const asked = error instanceof DatabaseUnavailableError ? error.askedAt : undefined;
    if (!this.current && asked !== undefined && asked < this.recoveredAt) return outage;
    if (!this.current || (outage === 'unreachable' && this.current.outage === 'stalled')) {
      this.end();
      this.current = { outage, failures: 0, since: Date.now() };
      for (const listener of this.listeners) listener.began(outage, error);
    }
    this.current.failures++;
    if (this.current.outage === 'stalled') {
      clearTimeout(this.quiet);
      this.quiet = setTimeout(() => this.end(), STALL_QUIET_MS);
      this.quiet.unref();
    }
    return outage;
  }

  /**
   * A new connection was made: the server is reachable again, if the connection was begun after the
   * outage was noticed. One begun before may finish its handshake just as the server goes, and
   * proves nothing about the server since.
   */
  reachable(connectingSince: number): void {
    if (this.current?.outage === 'unreachable' && connectingSince > this.current.since) {
      this.end();
      this.recoveredAt = Date.now();
    }
  }

  private end(): void {
    clearTimeout(this.quiet);
    const ended = this.current;
    this.current = null;
    if (!ended) return;
    for (const listener of this.listeners) {
      listener.ended(ended.outage, ended.failures, Date.now() - ended.since);
    }
  }
}
