import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { openBlankPGlite } from './helpers.ts';

const MIGRATIONS = new URL('../migrations/', import.meta.url).pathname;

/**
 * A PGlite migrated up to, not including, `file`: a database as it stood before that migration
 * landed, for a test of what the migration does to the rows it finds. `migrate(database)` then
 * applies the rest.
 */
async function migratedBefore(file: string): Promise<{ database: Database; close(): Promise<void> }> {
  const database = await openBlankPGlite();
  const dir = mkdtempSync(join(tmpdir(), 'slotwise-migrations-'));
  for (const name of readdirSync(MIGRATIONS).filter((name) => name < file)) {
    copyFileSync(join(MIGRATIONS, name), join(dir, name));
  }
  // The definitions of db/ are the schema after the last migration: none belongs halfway.
  mkdirSync(join(dir, 'db'));
  await migrate(database, { migrations: dir, definitions: join(dir, 'db') });
  return {
    database,
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The database a describe's tests share, as `migratedBefore` makes it: opened before them, closed after. */
export function databaseBefore(file: string): () => Database {
  let opened: Awaited<ReturnType<typeof migratedBefore>> | undefined;
  before(async () => {
    opened = await migratedBefore(file);
  });
  after(() => opened?.close());
  return () => opened!.database;
}

/** A developer, the first row every older business needs: `WITH ${A_DEVELOPER}, business AS (...)`. */
export const A_DEVELOPER = sql`developer AS (
  INSERT INTO developers (email, password_hash, first_name, last_name)
  VALUES ('dev@example.com', 'x', 'A', 'B') RETURNING id
)`;
