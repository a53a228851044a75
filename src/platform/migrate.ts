import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;
/** Advisory lock key of the migration run ("slot" in ASCII). */
const MIGRATION_LOCK = 0x736c6f74;

/**
 * Applies the forward-only `migrations/NNNN_name.sql` files not yet recorded. Each file runs as one
 * script in one implicit transaction together with its record, so a failing file leaves nothing behind.
 * Processes starting together against one database take turns through an advisory lock: the later
 * ones find the files applied.
 */
export async function migrate(database: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  // The lock lives on one held connection; scripts run beside it (on PGlite, outside the pool's queue).
  return database.db.connection().execute(async (connection) => {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      await database.runScript(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(connection);
      const applied = new Set(rows.map((row) => row.name));
      const files = readdirSync(dir)
        .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
        .sort();
      const ran: string[] = [];
      for (const file of files) {
        if (applied.has(file)) continue;
        const body = readFileSync(join(dir, file), 'utf8');
        await database.runScript(`${body}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');`);
        ran.push(file);
      }
      return ran;
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
    }
  });
}
