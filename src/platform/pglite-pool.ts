import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { boundedBy, remainingMs } from './deadline.ts';
import { DatabaseUnavailableError } from './outages.ts';

function commandOf(sql: string): 'UPDATE' | 'DELETE' | 'INSERT' | 'SELECT' | 'MERGE' {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge)\b/i.exec(sql);
  return match ? (match[1]!.toUpperCase() as 'INSERT' | 'UPDATE' | 'DELETE' | 'MERGE') : 'SELECT';
}

/**
 * PGlite is a single connection: this pool hands it to one borrower at a time, so a
 * transaction owns it from BEGIN to COMMIT and other requests queue behind it.
 */
export class PGlitePool implements PostgresPool {
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

  stats() {
    return {
      inUse: this.borrowers > 0 ? 1 : 0,
      idle: this.borrowers > 0 ? 0 : 1,
      waiting: Math.max(0, this.borrowers - 1),
    };
  }
}

/** One process per data folder: PGlite would corrupt files shared by two writers. */
export function lockDataDir(dataDir: string): () => void {
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
