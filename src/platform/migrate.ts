import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;

/**
 * Applies the forward-only `migrations/NNNN_name.sql` files not yet recorded. Each file runs as one
 * script in one implicit transaction together with its record, so a failing file leaves nothing behind.
 */
export async function migrate(database: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  await database.runScript(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(database.db);
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
}
