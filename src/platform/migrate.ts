import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Database } from './db.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;
/** Advisory lock key of the migration run ("slot" in ASCII). */
const MIGRATION_LOCK = 0x736c6f74;

const checksumOf = (body: string) => createHash('sha256').update(body).digest('hex');

/**
 * Applies the forward-only `migrations/NNNN_name.sql` files not yet recorded. Each file runs as one
 * script in one implicit transaction together with its record, so a failing file leaves nothing behind.
 * Processes starting together against one database take turns through an advisory lock: the later
 * ones find the files applied.
 *
 * Each record keeps the SHA-256 of the file it applied. A file edited since refuses the start: the
 * databases that applied the old text would silently differ from those that apply the new one.
 * Records written before checksums were kept get theirs from the file as it is now.
 */
export async function migrate(database: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  // The lock lives on one held connection; scripts run beside it (on PGlite, outside the pool's queue).
  return database.db.connection().execute(async (connection) => {
    // Waiting for another process's migrations may rightly take longer than any request may wait.
    await sql`SET lock_timeout = 0`.execute(connection);
    await sql`SET statement_timeout = 0`.execute(connection);
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      await database.runScript(
        `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
        ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text;`,
      );
      const { rows } = await sql<{ name: string; checksum: string | null }>`
        SELECT name, checksum FROM schema_migrations`.execute(connection);
      const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
      const files = readdirSync(dir)
        .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
        .sort()
        .map((file) => {
          const body = readFileSync(join(dir, file), 'utf8');
          return { file, body, checksum: checksumOf(body) };
        });
      for (const { file, checksum } of files) {
        const known = recorded.get(file);
        if (known && known !== checksum) {
          throw new Error(
            `migration ${file} was edited after it was applied; restore its applied text and put the change in a new migration file`,
          );
        }
      }
      const ran: string[] = [];
      for (const { file, body, checksum } of files) {
        if (recorded.has(file)) {
          if (recorded.get(file) === null) {
            await sql`UPDATE schema_migrations SET checksum = ${checksum} WHERE name = ${file}`.execute(
              connection,
            );
          }
          continue;
        }
        await database.runScript(
          `${body}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${file}', '${checksum}');`,
        );
        ran.push(file);
      }
      return ran;
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
      await sql`RESET lock_timeout`.execute(connection);
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}
