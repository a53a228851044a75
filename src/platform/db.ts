import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { Kysely, PostgresDialect, type PostgresPool, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';
import {
  connectWithin,
  type DbTimeouts,
  fitTimeouts,
  NO_TIMEOUTS,
  type PooledClient,
  pastDeadline,
  remainingMs,
} from './deadline.ts';
import { type ChannelListener, listenOnServer } from './listen.ts';
import { ACQUIRE_TIMEOUT, DatabaseUnavailableError, OutageWatch } from './outages.ts';
import { lockDataDir, PGlitePool } from './pglite-pool.ts';

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
  /** Subscribes to notification channels, all on one connection; resolves to the unsubscribe function. */
  listen(channels: readonly string[], listener: ChannelListener): Promise<() => Promise<void>>;
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

const OID_INT8 = 20;
const OID_DATE = 1082;
const OID_NUMERIC = 1700;

/** Dates stay `YYYY-MM-DD` strings: a JS Date would drag in the server's time zone. */
const keepDate = (value: string) => value;
const toNumber = (value: string) => Number(value);

/** A pooled connection that knows when it began connecting, for the outage watch. */
class TimedClient extends pg.Client {
  readonly connectingSince = Date.now();
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
    Client: TimedClient,
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
    outages.reachable((client as unknown as TimedClient).connectingSince);
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
    listen: (channels, listener) => listenOnServer(connectionString, channels, listener),
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
      extensions: { btree_gist, pg_trgm, unaccent },
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
    async listen(channels, listener) {
      const unsubscribes = await Promise.all(
        channels.map((channel) => pglite.listen(channel, (payload) => listener.message(payload, channel))),
      );
      listener.up();
      return async () => {
        listener.down();
        for (const unsubscribe of unsubscribes) await unsubscribe();
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
