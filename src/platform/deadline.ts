import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { DatabaseUnavailableError } from './outages.ts';

/** How long the database may keep a request waiting, in milliseconds; 0: no limit. */
export interface DbTimeouts {
  /** Waiting for a lock (PostgreSQL's `lock_timeout`), advisory locks included. */
  lockMs: number;
  /** One statement (PostgreSQL's `statement_timeout`). */
  statementMs: number;
  /** Waiting for a connection of the pool: pg's `connectionTimeoutMillis`, or PGlite's one connection. */
  acquireMs: number;
}

export const NO_TIMEOUTS: DbTimeouts = { lockMs: 0, statementMs: 0, acquireMs: 0 };

/**
 * The instant (epoch milliseconds) by which the request being served must be done waiting for the
 * database: for a connection, for locks and for statements together. None outside requests (jobs,
 * start-up) or with `DB_REQUEST_DEADLINE_MS=0`.
 */
const requestDeadline = new AsyncLocalStorage<number>();

/** Runs `fn`, and everything it starts, under a database deadline at `at` (epoch milliseconds). */
export const withDbDeadline = <T>(at: number, fn: () => T): T => requestDeadline.run(at, fn);

/** Milliseconds left before the current request's deadline; undefined without one. */
export function remainingMs(): number | undefined {
  const at = requestDeadline.getStore();
  return at === undefined ? undefined : at - Date.now();
}

export const pastDeadline = () =>
  new DatabaseUnavailableError('stalled', "the request's time for waiting on the database ran out");

/** A configured wait (0: no limit) cut to what the deadline leaves; undefined: no limit at all. */
export function boundedBy(configuredMs: number, remaining: number | undefined): number | undefined {
  if (remaining === undefined) return configuredMs === 0 ? undefined : configuredMs;
  return configuredMs === 0 ? remaining : Math.min(configuredMs, remaining);
}

/**
 * Gives each request of `app` `deadlineMs` from its arrival for all its database waits: the
 * context entered here holds for the rest of the request's hooks and its handler.
 */
export function registerDbDeadline(app: FastifyInstance, deadlineMs: number): void {
  if (deadlineMs <= 0) return;
  app.addHook('onRequest', (_request, _reply, done) => withDbDeadline(Date.now() + deadlineMs, done));
}

/**
 * A deadline nearer than a configured timeout by less than this leaves the timeout as it is: a
 * request that reaches the database soon after arriving costs no statement more.
 */
const DEADLINE_SLACK_MS = 250;

/** The lock and statement timeouts one piece of work runs under, in milliseconds (0: none). */
export type WorkTimeouts = Pick<DbTimeouts, 'lockMs' | 'statementMs'>;

/** A statement timeout tighter than the configured one, for the work run by `withStatementTimeout`. */
const statementCap = new AsyncLocalStorage<number>();

/** PostgreSQL's query_canceled: what a statement stopped by its `statement_timeout` fails with. */
const QUERY_CANCELED = '57014';

/**
 * Runs `fn` with each statement it starts stopped after `ms` at most (sooner when the configured
 * timeout or the request's deadline is nearer), for work whose cost its caller chooses (a search
 * anywhere in a text): a statement so stopped rejects with `stopped()` instead of counting as a
 * stalled database. PGlite has no statement timer: there the work runs to its end.
 */
export async function withStatementTimeout<T>(
  ms: number,
  fn: () => Promise<T>,
  stopped: () => Error,
): Promise<T> {
  try {
    return await statementCap.run(ms, fn);
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) throw stopped();
    throw error;
  }
}

/**
 * The timeouts for work starting now: the configured ones (the statement timeout tightened by
 * `withStatementTimeout`), each cut to what the request's deadline leaves when that is less; past
 * the deadline, a stall.
 */
export function timeoutsNow(timeouts: DbTimeouts): WorkTimeouts {
  const remaining = remainingMs();
  if (remaining !== undefined && remaining <= 0) throw pastDeadline();
  const fit = (configuredMs: number) =>
    remaining !== undefined && (configuredMs === 0 || remaining + DEADLINE_SLACK_MS < configuredMs)
      ? Math.ceil(remaining)
      : configuredMs;
  const cap = statementCap.getStore();
  const statementMs =
    cap === undefined || (timeouts.statementMs !== 0 && timeouts.statementMs <= cap)
      ? timeouts.statementMs
      : cap;
  return { lockMs: fit(timeouts.lockMs), statementMs: fit(statementMs) };
}

export const sameTimeouts = (a: WorkTimeouts, b: WorkTimeouts) =>
  a.lockMs === b.lockMs && a.statementMs === b.statementMs;

/**
 * SQL that sets the timeouts for the current transaction only: behind a transaction pooler the
 * next transaction may run on another server connection, so a session's setting would reach
 * another client's work.
 */
export const setTimeoutsLocally = ({ lockMs, statementMs }: WorkTimeouts): string =>
  `SELECT set_config('lock_timeout', '${Math.trunc(lockMs)}', true), set_config('statement_timeout', '${Math.trunc(statementMs)}', true)`;

/** A connection of the pool within `ms`, else a stall; one that comes later goes back at once. */
export function connectWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      reject(pastDeadline());
    }, ms);
    pool.connect().then(
      (client) => {
        clearTimeout(timer);
        if (gaveUp) client.release();
        else resolve(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!gaveUp) reject(error);
      },
    );
  });
}
