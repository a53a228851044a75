import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { sql } from 'kysely';
import type { Database, Db, Session } from './db.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;
const DEFINITIONS_DIR = new URL('../../db/', import.meta.url).pathname;
/**
 * The folders of definitions in the order they are applied: a view may call a function, and a
 * trigger names its function. A function reading a view is PL/pgSQL, which resolves it when it runs.
 */
const DEFINITION_KINDS = ['functions', 'views', 'triggers'];
/** Advisory lock key of the migration run ("slot" in ASCII). */
const MIGRATION_LOCK = 0x736c6f74;

const checksumOf = (body: string) => createHash('sha256').update(body).digest('hex');

export interface SchemaSources {
  /** Forward-only `NNNN_name.sql` files. */
  migrations?: string;
  /** `functions/<name>.sql`, `views/<name>.sql` and `triggers/<name>.sql`, each the current text of one object. */
  definitions?: string;
}

/** What one run applied: migration file names and definition names (`functions/x.sql`). */
export interface Applied {
  migrations: string[];
  definitions: string[];
}

/**
 * Brings the schema up to date: first the forward-only `migrations/NNNN_name.sql` files not yet
 * recorded, then the definitions of `db/` (functions, views, then triggers) that are new or changed.
 * Processes starting together against one database take turns through an advisory lock: the later
 * ones find the work done.
 *
 * Each migration runs as one script in one implicit transaction together with its record, so a
 * failing file leaves nothing behind. Each record keeps the SHA-256 of the file it applied. A file
 * edited since refuses the start: the databases that applied the old text would silently differ
 * from those that apply the new one. Records written before checksums were kept get theirs from
 * the file as it is now.
 *
 * A definition is the one text of its object, written to be applied again (`CREATE OR REPLACE`):
 * it is applied, in one transaction with its record and checksum, when it is new or its text
 * changed, and after any migration ran, since a migration may have dropped or rebuilt what it
 * defines (a table drops its triggers).
 */
export async function migrate(
  database: Database,
  { migrations = MIGRATIONS_DIR, definitions = DEFINITIONS_DIR }: SchemaSources = {},
): Promise<Applied> {
  // The lock lives on a session: behind a transaction pooler, statements outside one transaction
  // may each reach another server connection.
  return database.session(async ({ db: connection, runScript }) => {
    // Waiting for another process's migrations may rightly take longer than any request may wait.
    await sql`SET lock_timeout = 0`.execute(connection);
    await sql`SET statement_timeout = 0`.execute(connection);
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      await runScript(
        `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
        ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text;
        CREATE TABLE IF NOT EXISTS schema_definitions (
          name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());`,
      );
      const ran = await applyMigrations(runScript, connection, migrations);
      const { rows } = await sql<{ name: string; checksum: string }>`
        SELECT name, checksum FROM schema_definitions`.execute(connection);
      const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
      const defined: string[] = [];
      for (const { name, body, checksum } of definitionFiles(definitions)) {
        if (ran.length === 0 && recorded.get(name) === checksum) continue;
        try {
          await runScript(
            `${body}\n;INSERT INTO schema_definitions (name, checksum) VALUES ('${name}', '${checksum}')
            ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now();`,
          );
        } catch (error) {
          throw new Error(`definition ${name} failed: ${(error as Error).message}`, { cause: error });
        }
        defined.push(name);
      }
      return { migrations: ran, definitions: defined };
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
      await sql`RESET lock_timeout`.execute(connection);
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}

async function applyMigrations(
  runScript: Session['runScript'],
  connection: Db,
  dir: string,
): Promise<string[]> {
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
    await runScript(
      `${body}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${file}', '${checksum}');`,
    );
    ran.push(file);
  }
  return ran;
}

/** The definition files in the order they are applied: by kind, then by name. */
function definitionFiles(dir: string): { name: string; body: string; checksum: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.sql'))
    .map((path) => {
      const name = path.split(sep).join('/');
      const kind = DEFINITION_KINDS.indexOf(name.split('/')[0]!);
      if (kind < 0 || !/^\w+\/[\w-]+\.sql$/.test(name)) {
        throw new Error(
          `definition ${name} is not a file of ${DEFINITION_KINDS.map((k) => `${k}/`).join(' or ')}`,
        );
      }
      const body = readFileSync(join(dir, path), 'utf8');
      return { name, kind, body, checksum: checksumOf(body) };
    })
    .sort((a, b) => a.kind - b.kind || (a.name < b.name ? -1 : 1));
}
