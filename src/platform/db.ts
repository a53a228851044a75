import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
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

export interface ListenHealthCheck {
  /** How often the listening connection is asked a trivial query. */
  checkEveryMs: number;
  /** No answer within this long counts as a lost connection. */
  checkTimeoutMs: number;
}

const LISTEN_HEALTH_CHECK: ListenHealthCheck = { checkEveryMs: 10_000, checkTimeoutMs: 5_000 };

/** Whether the connection answers `SELECT 1` in time; the timer never keeps the process alive. */
async function answers(client: pg.Client, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const answered = client.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

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

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === OID_DATE) return keepDate;
        if (oid === OID_INT8 || oid === OID_NUMERIC) return toNumber;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const client = await pool.connect();
  client.release();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    async runScript(sql) {
      await pool.query(sql);
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
  /** Borrowers holding or waiting for the connection. */
  private borrowers = 0;

  constructor(pglite: PGlite) {
    this.pglite = pglite;
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
    return turn;
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
export async function openPGlite(dataDir?: string, from?: Blob): Promise<PGliteDatabase> {
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
  const pool = new PGlitePool(pglite);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'pglite',
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
export async function withTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 10 + Math.random() * 20));
    }
  }
}
