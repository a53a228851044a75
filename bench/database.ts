import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Database, openPGlite, openPostgres } from '../src/platform/db.ts';

export interface ScratchDatabase {
  /** Opens it from this process; a PGlite folder belongs to one process at a time, so close before the server starts. */
  open: () => Promise<Database>;
  /** What the server needs in its environment to use it. */
  serverEnv: Record<string, string>;
  /** Removes it, data and all. */
  drop: () => Promise<void>;
}

/** Runs one statement on the PostgreSQL server `serverUrl` names. */
export async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A database for one benchmark run: a fresh PGlite folder when `serverUrl` is undefined, else a
 * database of its own, `slotwise_<label>_<pid>`, created on the PostgreSQL server it names (a
 * copy of the database `template` when given).
 */
export async function scratchDatabase(
  serverUrl: string | undefined,
  label: string,
  template?: string,
): Promise<ScratchDatabase> {
  if (serverUrl === undefined) {
    const dir = mkdtempSync(join(tmpdir(), `slotwise-${label}-`));
    return {
      open: () => openPGlite(dir),
      serverEnv: { DATA_DIR: dir },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `slotwise_${label}_${process.pid}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    // The server's own pool size, so work sent from here meets the same contention as the server's.
    open: () => openPostgres(url.toString(), 10),
    serverEnv: { DATABASE_URL: url.toString() },
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
