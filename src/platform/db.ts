import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import {
  type AbortableOperationOptions,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  type PostgresPool,
  type QueryResult,
  sql,
  type Transaction,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';
import {
  connectWithin,
  type DbTimeouts,
  NO_TIMEOUTS,
  pastDeadline,
  remainingMs,
  sameTimeouts,
  setTimeoutsLocally,
  timeoutsNow,
  type WorkTimeouts,
} from './deadline.ts';
import { FairDriver } from './fair-share.ts';
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
  /** Runs a multi-statement SQL script outside Kysely, free of the timeouts. */
  runScript(sql: string): Promise<void>;
  /**
   * Runs `fn` on one session of its own, outside any transaction pooler (on PostgreSQL over the
   * direct URL): session state, such as an advisory lock or a `SET`, holds across its statements.
   */
  session<T>(fn: (session: Session) => Promise<T>): Promise<T>;
  /** Subscribes to notification channels, all on one connection; resolves to the unsubscribe function. */
  listen(channels: readonly string[], listener: ChannelListener): Promise<() => Promise<void>>;
  /** The pool's connections now (metrics); absent on a database made by hand in a test. */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

export interface Session {
  db: Db;
  /** A multi-statement SQL script, on the session. */
  runScript(sql: string): Promise<void>;
}

export interface PoolStats {
  /** Connections lent out to a query or a transaction. */
  inUse: number;
  idle: number;
  /** Borrowers waiting for a connection. */
  waiting: number;
}

/** Kysely's connection over one pooled pg client: what its driver lends. */
type PostgresConnection = Parameters<PostgresDriver['releaseConnection']>[0];

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
 * unreachable otherwise.
 */
function poolOfOutages(pool: pg.Pool, timeouts: DbTimeouts): PostgresPool {
  return {
    async connect() {
      const askedAt = Date.now();
      const remaining = remainingMs();
      if (remaining !== undefined && remaining <= 0) throw pastDeadline();
      try {
        return remaining !== undefined && (timeouts.acquireMs === 0 || remaining < timeouts.acquireMs)
          ? await connectWithin(pool, remaining)
          : await pool.connect();
      } catch (error) {
        if (error instanceof DatabaseUnavailableError) throw error;
        throw (error as Error).message === ACQUIRE_TIMEOUT
          ? new DatabaseUnavailableError('stalled', 'no database connection came free in time', error)
          : new DatabaseUnavailableError('unreachable', 'could not connect to the database', error, askedAt);
      }
    },
    // `close` ends the pool: Kysely ends only a driver that ran a query.
    end: async () => {},
    options: pool.options,
  };
}

/**
 * One loan of a pooled connection, with the timeouts its work runs under when they differ from
 * what the server connection has by itself (`timeouts` undefined: they do not). Those are set for
 * each transaction alone, never for the session, since behind a transaction pooler (PgBouncer)
 * the next transaction may run on another server connection: a transaction's begin carries them
 * in the same round trip, and a statement outside any transaction is wrapped in one of its own.
 */
class TimedConnection implements DatabaseConnection {
  readonly inner: PostgresConnection;
  readonly timeouts: WorkTimeouts | undefined;
  inTransaction = false;
  beginning = false;

  constructor(inner: PostgresConnection, timeouts: WorkTimeouts | undefined) {
    this.inner = inner;
    this.timeouts = timeouts;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.timeouts || this.inTransaction) return this.inner.executeQuery<R>(query);
    const set = setTimeoutsLocally(this.timeouts);
    if (this.beginning) return this.inner.executeQuery<R>(CompiledQuery.raw(`${query.sql}; ${set}`));
    await this.inner.executeQuery(CompiledQuery.raw(`begin; ${set}`));
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(query);
    } catch (error) {
      await this.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      throw error;
    }
    await this.inner.executeQuery(CompiledQuery.raw('commit'));
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's Postgres driver, lending `TimedConnection`s whose timeouts fit the request's deadline. */
class TimedDriver implements Driver {
  readonly #driver: PostgresDriver;
  readonly #timeouts: DbTimeouts;
  /** What a server connection has by itself: its startup packet's values, or the server's. */
  readonly #baseline: WorkTimeouts;

  constructor(config: PostgresDialectConfig, timeouts: DbTimeouts, baseline: WorkTimeouts) {
    this.#driver = new PostgresDriver(config);
    this.#timeouts = timeouts;
    this.#baseline = baseline;
  }

  init = () => this.#driver.init();
  destroy = () => this.#driver.destroy();

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const connection = (await this.#driver.acquireConnection(options)) as PostgresConnection;
    let wanted: WorkTimeouts;
    try {
      wanted = timeoutsNow(this.#timeouts);
    } catch (error) {
      await this.#driver.releaseConnection(connection);
      throw error;
    }
    return new TimedConnection(connection, sameTimeouts(wanted, this.#baseline) ? undefined : wanted);
  }

  async beginTransaction(connection: TimedConnection, settings: TransactionSettings) {
    connection.beginning = true;
    try {
      await this.#driver.beginTransaction(connection, settings);
    } finally {
      connection.beginning = false;
    }
    connection.inTransaction = true;
  }

  async commitTransaction(connection: TimedConnection) {
    connection.inTransaction = false;
    await this.#driver.commitTransaction(connection.inner);
  }

  async rollbackTransaction(connection: TimedConnection) {
    connection.inTransaction = false;
    await this.#driver.rollbackTransaction(connection.inner);
  }

  savepoint: PostgresDriver['savepoint'] = (connection, name, compile) =>
    this.#driver.savepoint((connection as TimedConnection).inner, name, compile);
  rollbackToSavepoint: PostgresDriver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.#driver.rollbackToSavepoint((connection as TimedConnection).inner, name, compile);
  releaseSavepoint: PostgresDriver['releaseSavepoint'] = (connection, name, compile) =>
    this.#driver.releaseSavepoint((connection as TimedConnection).inner, name, compile);

  async releaseConnection(connection: TimedConnection) {
    await this.#driver.releaseConnection(connection.inner);
  }
}

class TimedDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  readonly #timeouts: DbTimeouts;
  readonly #baseline: WorkTimeouts;

  constructor(config: PostgresDialectConfig, timeouts: DbTimeouts, baseline: WorkTimeouts) {
    super(config);
    this.#config = config;
    this.#timeouts = timeouts;
    this.#baseline = baseline;
  }

  override createDriver(): Driver {
    return new FairDriver(new TimedDriver(this.#config, this.#timeouts, this.#baseline));
  }
}

/** PGlite's dialect: its one connection lent within each business's share, as PostgreSQL's are. */
class FairPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new FairDriver(super.createDriver());
  }
}

const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === OID_DATE) return keepDate;
    if (oid === OID_INT8 || oid === OID_NUMERIC) return toNumber;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/** PgBouncer refuses a startup packet that carries settings it does not know (SQLSTATE 08P01). */
const refusedStartupSetting = (error: unknown) =>
  (error as { code?: string }).code === '08P01' &&
  /unsupported startup parameter/.test((error as Error).message);

/**
 * `directUrl` (default `connectionString`) reaches PostgreSQL itself, never through a transaction
 * pooler: the change feed's LISTEN and `session` (migrations) need a session of their own.
 */
export async function openPostgres(
  connectionString: string,
  poolSize = 10,
  timeouts: DbTimeouts = NO_TIMEOUTS,
  directUrl = connectionString,
): Promise<Database> {
  const outages = new OutageWatch();
  const makePool = (startupTimeouts: boolean) => {
    const pool = new pg.Pool({
      Client: TimedClient,
      connectionString,
      max: poolSize,
      // Straight to PostgreSQL, the timeouts travel in each connection's startup packet: work
      // with the configured timeouts then needs no statement to set them.
      ...(startupTimeouts ? { lock_timeout: timeouts.lockMs, statement_timeout: timeouts.statementMs } : {}),
      connectionTimeoutMillis: timeouts.acquireMs,
      types: TYPES,
    });
    // A client losing its server connection must not crash the process, idle (the pool's 'error') or
    // lent between two queries (its own, unheard otherwise): its next query fails and is answered 503.
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', () => {});
      outages.reachable((client as unknown as TimedClient).connectingSince);
    });
    return pool;
  };
  let pool = makePool(true);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if (!refusedStartupSetting(error)) throw error;
    // A pooler (PgBouncer) in front: each transaction states its own timeouts instead.
    await pool.end();
    pool = makePool(false);
    client = await pool.connect();
  }
  let baseline: WorkTimeouts;
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout')",
    );
    const ms = (name: string) => Number(rows.find((row) => row.name === name)?.setting);
    baseline = { lockMs: ms('lock_timeout'), statementMs: ms('statement_timeout') };
  } finally {
    client.release();
  }
  const db = new Kysely<DB>({
    dialect: new TimedDialect({ pool: poolOfOutages(pool, timeouts) }, timeouts, baseline),
  });
  return {
    db,
    engine: 'postgres',
    outages,
    // A script may rightly take longer than any request: it runs without the timeouts, set for
    // its own implicit transaction alone.
    async runScript(script) {
      const lent = await pool.connect();
      try {
        await lent.query(`${setTimeoutsLocally({ lockMs: 0, statementMs: 0 })};\n${script}`);
        lent.release();
      } catch (error) {
        lent.release(error as Error);
        throw error;
      }
    },
    async session(fn) {
      const held = new pg.Pool({ connectionString: directUrl, max: 1, types: TYPES });
      // A connection lost while idle must not crash the process: the next statement fails instead.
      held.on('error', () => {});
      const direct = new Kysely<DB>({ dialect: new PostgresDialect({ pool: held }) });
      try {
        return await direct.connection().execute((connection) =>
          fn({
            db: connection,
            async runScript(script) {
              await sql.raw(script).execute(connection);
            },
          }),
        );
      } finally {
        await direct.destroy();
      }
    },
    listen: (channels, listener) => listenOnServer(directUrl, channels, listener),
    poolStats: () => ({
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async close() {
      await db.destroy();
      if (!pool.ending) await pool.end();
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
  const db = new Kysely<DB>({ dialect: new FairPostgresDialect({ pool }) });
  return {
    db,
    engine: 'pglite',
    outages: new OutageWatch(),
    poolStats: () => pool.stats(),
    async runScript(script) {
      await pglite.exec(script);
    },
    // The one connection, held: scripts run beside it, outside the pool's queue.
    session: (fn) =>
      db.connection().execute((connection) =>
        fn({
          db: connection,
          async runScript(script) {
            await pglite.exec(script);
          },
        }),
      ),
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
