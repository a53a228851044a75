import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { FastifyInstance } from 'fastify';
import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';
import { withTimeout } from './timeout.ts';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Whether the database is out of reach or stalled, told apart from the errors of single requests. */
  outages: OutageWatch;
  /** Runs a multi-statement SQL script (migrations) outside Kysely. */
  runScript(sql: string): Promise<void>;
  /** Subscribes to a notification channel; resolves to the unsubscribe function. */
  listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>>;
  /** The pool's connections now (metrics); absent on a database made by hand in a test. */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections lent out to a query or a transaction. */
  inUse: number;
  idle: number;
  /** Borrowers waiting for a connection. */
  waiting: number;
}

export interface ChannelListener {
  message(payload: string): void;
  /** Listening (again): notifications from now on are delivered. */
  up(): void;
  /** Notifications may be missed until the next `up`. */
  down(): void;
}

const LISTEN_RETRY_MS = 1000;

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
 * Why the database could not serve a query, whatever the query: `unreachable` (no connection, or
 * one lost), or `stalled` (a lock, a statement or a free connection not had in time).
 */
export type Outage = 'unreachable' | 'stalled';

/** A failure of the database as a whole rather than of the query: thrown for pool connections not had. */
export class DatabaseUnavailableError extends Error {
  readonly outage: Outage;

  constructor(outage: Outage, message: string, cause?: unknown) {
    super(message, { cause });
    this.outage = outage;
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
const ACQUIRE_TIMEOUT = 'timeout exceeded when trying to connect';

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

  /** A new connection was made: the server is reachable again. */
  reachable(): void {
    if (this.current?.outage === 'unreachable') this.end();
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

/**
 * The instant (epoch milliseconds) by which the request being served must be done waiting for the
 * database: for a connection, for locks and for statements together. None outside requests (jobs,
 * start-up) or with `DB_REQUEST_DEADLINE_MS=0`.
 */
const requestDeadline = new AsyncLocalStorage<number>();

/** Runs `fn`, and everything it starts, under a database deadline at `at` (epoch milliseconds). */
export const withDbDeadline = <T>(at: number, fn: () => T): T => requestDeadline.run(at, fn);

/** Milliseconds left before the current request's deadline; undefined without one. */
function remainingMs(): number | undefined {
  const at = requestDeadline.getStore();
  return at === undefined ? undefined : at - Date.now();
}

const pastDeadline = () =>
  new DatabaseUnavailableError('stalled', "the request's time for waiting on the database ran out");

/** A configured wait (0: no limit) cut to what the deadline leaves; undefined: no limit at all. */
function boundedBy(configuredMs: number, remaining: number | undefined): number | undefined {
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

export interface ListenHealthCheck {
  /** How often the listening connection is asked a trivial query. */
  checkEveryMs: number;
  /** No answer within this long counts as a lost connection. */
  checkTimeoutMs: number;
}

const LISTEN_HEALTH_CHECK: ListenHealthCheck = { checkEveryMs: 10_000, checkTimeoutMs: 5_000 };

/** Whether the connection answers `SELECT 1` in time; the timer never keeps the process alive. */
const answers = (client: pg.Client, timeoutMs: number): Promise<boolean> =>
  withTimeout(
    client.query('SELECT 1').then(
      () => true,
      () => false,
    ),
    timeoutMs,
    () => false,
  );

/**
 * A dedicated connection for LISTEN (a pooled one would be handed to queries), reconnecting when
 * lost. A connection whose network silently dropped (half-open) never ends by itself: TCP
 * keepalive and a periodic `SELECT 1` find it, so the feed goes down instead of going quiet.
 */
export async function listenOnServer(
  connectionString: string,
  channel: string,
  listener: ChannelListener,
  health: ListenHealthCheck = LISTEN_HEALTH_CHECK,
) {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let checks: NodeJS.Timeout | undefined;
  const reconnectLater = () => {
    listener.down();
    if (stopped) return;
    retry = setTimeout(() => void connect(), LISTEN_RETRY_MS);
    retry.unref();
  };
  const connect = async () => {
    const candidate = new pg.Client({
      connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: health.checkEveryMs,
      connectionTimeoutMillis: health.checkTimeoutMs,
    });
    candidate.on('notification', (notification) => {
      if (notification.payload) listener.message(notification.payload);
    });
    candidate.on('error', () => {});
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${channel}`);
    } catch {
      await candidate.end().catch(() => {});
      reconnectLater();
      return;
    }
    if (stopped) {
      await candidate.end().catch(() => {});
      return;
    }
    let lost = false;
    let checking = false;
    const drop = () => {
      if (lost) return;
      lost = true;
      clearInterval(timer);
      if (stopped) return;
      client = undefined;
      reconnectLater();
      // With the check's query still pending, `end` closes the socket at once.
      candidate.end().catch(() => {});
    };
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void answers(candidate, health.checkTimeoutMs).then((alive) => {
        checking = false;
        if (!alive) drop();
      });
    }, health.checkEveryMs);
    timer.unref();
    checks = timer;
    candidate.once('end', drop);
    client = candidate;
    listener.up();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(checks);
    listener.down();
    await client?.end().catch(() => {});
  };
}

const OID_INT8 = 20;
const OID_DATE = 1082;
const OID_NUMERIC = 1700;

/** Dates stay `YYYY-MM-DD` strings: a JS Date would drag in the server's time zone. */
const keepDate = (value: string) => value;
const toNumber = (value: string) => Number(value);

/**
 * A deadline nearer than a configured timeout by less than this leaves the timeout as it is: a
 * request that reaches the database soon after arriving costs no statement more.
 */
const DEADLINE_SLACK_MS = 250;
/** A pooled connection whose session timeouts a request cut to its deadline. */
const SHORTENED = Symbol('timeouts shortened');
type PooledClient = pg.PoolClient & { [SHORTENED]?: boolean };

/** A connection of the pool within `ms`, else a stall; one that comes later goes back at once. */
function connectWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
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

/**
 * Cuts the connection's lock and statement timeouts to what the request's deadline leaves, when
 * that is less than the configured ones; gives a connection cut by an earlier request its own
 * values back. One statement at most, and none in the common case.
 */
async function fitTimeouts(client: PooledClient, timeouts: DbTimeouts): Promise<void> {
  const remaining = remainingMs();
  if (remaining !== undefined && remaining <= 0) throw pastDeadline();
  const cut = (configuredMs: number) =>
    remaining !== undefined && (configuredMs === 0 || remaining + DEADLINE_SLACK_MS < configuredMs);
  if (cut(timeouts.lockMs) || cut(timeouts.statementMs)) {
    const lockMs = Math.ceil(boundedBy(timeouts.lockMs, remaining)!);
    const statementMs = Math.ceil(boundedBy(timeouts.statementMs, remaining)!);
    await client.query(
      "SELECT set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false)",
      [String(lockMs), String(statementMs)],
    );
    client[SHORTENED] = true;
  } else if (client[SHORTENED]) {
    // RESET gives back the values of the connection's startup packet.
    await client.query('RESET lock_timeout; RESET statement_timeout');
    client[SHORTENED] = false;
  }
}

/**
 * The pool Kysely draws from: a connection not had becomes a `DatabaseUnavailableError`, stalled
 * when the pool was full and none came free in time (or before the request's deadline),
 * unreachable otherwise. Inside a request the connection's timeouts fit its deadline.
 */
function poolOfOutages(pool: pg.Pool, timeouts: DbTimeouts): PostgresPool {
  return {
    async connect() {
      const remaining = remainingMs();
      if (remaining !== undefined && remaining <= 0) throw pastDeadline();
      let client: PooledClient;
      try {
        client =
          remaining !== undefined && (timeouts.acquireMs === 0 || remaining < timeouts.acquireMs)
            ? await connectWithin(pool, remaining)
            : await pool.connect();
      } catch (error) {
        if (error instanceof DatabaseUnavailableError) throw error;
        throw (error as Error).message === ACQUIRE_TIMEOUT
          ? new DatabaseUnavailableError('stalled', 'no database connection came free in time', error)
          : new DatabaseUnavailableError('unreachable', 'could not connect to the database', error);
      }
      try {
        await fitTimeouts(client, timeouts);
      } catch (error) {
        client.release(error instanceof DatabaseUnavailableError ? undefined : (error as Error));
        throw error;
      }
      return client;
    },
    end: () => pool.end(),
    options: pool.options,
  };
}

export async function openPostgres(
  connectionString: string,
  poolSize = 10,
  timeouts: DbTimeouts = NO_TIMEOUTS,
): Promise<Database> {
  const outages = new OutageWatch();
  // The timeouts travel in each connection's startup packet: no round trip to set them.
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    lock_timeout: timeouts.lockMs,
    statement_timeout: timeouts.statementMs,
    connectionTimeoutMillis: timeouts.acquireMs,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === OID_DATE) return keepDate;
        if (oid === OID_INT8 || oid === OID_NUMERIC) return toNumber;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its server connection must not crash the process, idle (the pool's 'error') or
  // lent between two queries (its own, unheard otherwise): its next query fails and is answered 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    outages.reachable();
  });
  const client = await pool.connect();
  client.release();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: poolOfOutages(pool, timeouts) }) });
  return {
    db,
    engine: 'postgres',
    outages,
    // A migration may rightly take longer than any request: the script runs without the timeouts,
    // which RESET gives back to the connection's own values.
    async runScript(sql) {
      const script = await pool.connect();
      try {
        await script.query('SET lock_timeout = 0; SET statement_timeout = 0');
        await script.query(sql);
        await script.query('RESET lock_timeout; RESET statement_timeout');
        script.release();
      } catch (error) {
        script.release(error as Error);
        throw error;
      }
    },
    listen: (channel, listener) => listenOnServer(connectionString, channel, listener),
    poolStats: () => ({
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async close() {
      await db.destroy();
    },
  };
}

function commandOf(sql: string): 'UPDATE' | 'DELETE' | 'INSERT' | 'SELECT' | 'MERGE' {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge)\b/i.exec(sql);
  return match ? (match[1]!.toUpperCase() as 'INSERT' | 'UPDATE' | 'DELETE' | 'MERGE') : 'SELECT';
}

/**
 * PGlite is a single connection: this pool hands it to one borrower at a time, so a
 * transaction owns it from BEGIN to COMMIT and other requests queue behind it.
 */
class PGlitePool implements PostgresPool {
  options = {};
  private queue: Promise<void> = Promise.resolve();
  private readonly pglite: PGlite;
  private readonly acquireMs: number;
  /** Borrowers holding or waiting for the connection. */
  private borrowers = 0;

  constructor(pglite: PGlite, acquireMs: number) {
    this.pglite = pglite;
    this.acquireMs = acquireMs;
  }

  connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const turn = this.queue.then(() => client);
    this.queue = this.queue.then(() => released);
    this.borrowers++;
    void released.then(() => this.borrowers--);
    const pglite = this.pglite;
    const client = {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>) {
        const result = await pglite.query<R>(sql, parameters as unknown[]);
        return {
          command: commandOf(sql),
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release() {
        release();
      },
    } as unknown as PostgresPoolClient;
    const limitMs = boundedBy(this.acquireMs, remainingMs());
    if (limitMs === undefined) return turn;
    // A borrower that gave up still gets its turn, and hands it on at once.
    return new Promise((resolve, reject) => {
      let gaveUp = false;
      const timer = setTimeout(
        () => {
          gaveUp = true;
          reject(
            new DatabaseUnavailableError('stalled', 'the database connection did not come free in time'),
          );
        },
        Math.max(0, limitMs),
      );
      void turn.then((lent) => {
        clearTimeout(timer);
        if (gaveUp) lent.release();
        else resolve(lent);
      });
    });
  }

  async end(): Promise<void> {}

  stats(): PoolStats {
    return {
      inUse: this.borrowers > 0 ? 1 : 0,
      idle: this.borrowers > 0 ? 0 : 1,
      waiting: Math.max(0, this.borrowers - 1),
    };
  }
}

/** One process per data folder: PGlite would corrupt files shared by two writers. */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'slotwise.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockFile, 'utf8'));
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(
          `the data folder ${dataDir} is in use by another Slotwise process (pid ${holder}); stop it or set another DATA_DIR`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock the data folder ${dataDir}`);
}

export class DataDirLockedError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface PGliteDatabase extends Database {
  /** The whole data folder as a tarball, which `openPGlite` can start from. */
  dumpDataDir(): Promise<Blob>;
}

/**
 * `dataDir` undefined keeps everything in memory (tests, benchmarks). `from`, a `dumpDataDir`
 * tarball, skips creating a blank cluster: tests start each file from one migrated copy.
 */
export async function openPGlite(
  dataDir?: string,
  from?: Blob,
  timeouts: DbTimeouts = NO_TIMEOUTS,
): Promise<PGliteDatabase> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      dataDir: dataDir ? join(dataDir, 'pglite') : undefined,
      extensions: { btree_gist, pg_trgm },
      loadDataDir: from,
      parsers: { [OID_DATE]: keepDate, [OID_INT8]: toNumber, [OID_NUMERIC]: toNumber },
    });
  } catch (error) {
    unlock();
    throw error;
  }
  // One connection, in this process: no lock is ever waited for and PGlite has no statement timer,
  // so only the wait for the connection is bounded.
  const pool = new PGlitePool(pglite, timeouts.acquireMs);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'pglite',
    outages: new OutageWatch(),
    poolStats: () => pool.stats(),
    async runScript(sql) {
      await pglite.exec(sql);
    },
    async listen(channel, listener) {
      const unsubscribe = await pglite.listen(channel, (payload) => listener.message(payload));
      listener.up();
      return async () => {
        listener.down();
        await unsubscribe();
      };
    },
    dumpDataDir: () => pglite.dumpDataDir('none'),
    async close() {
      await db.destroy();
      await pglite.close();
      unlock();
    },
  };
}

const RETRYABLE = new Set(['40001', '40P01']);

/** One transaction per request; serialization failures and deadlocks are retried a few times. */
export const withTx = <T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> =>
  retryingConflicts(() => db.transaction().execute(fn));

/** Runs a transaction again after a serialization failure or a deadlock, a few times. */
export async function retryingConflicts<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 10 + Math.random() * 20));
    }
  }
}
