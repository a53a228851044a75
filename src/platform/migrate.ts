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
 * `facts` are functions of their arguments alone (no table), applied before the migrations, so that
 * a migration may build on them (an index's predicate); the other kinds are applied after them.
 */
const DEFINITION_KINDS = ['facts', 'functions', 'views', 'triggers'];
const BEFORE_MIGRATIONS = 'facts';
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
 * Brings the schema up to date: first the facts of `db/facts/` that are new or changed, then the
 * forward-only `migrations/NNNN_name.sql` files not yet recorded, then the other definitions of
 * `db/` (functions, views, then triggers) that are new or changed.
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
      const { rows } = await sql<{ name: string; checksum: string }>`
        SELECT name, checksum FROM schema_definitions`.execute(connection);
      const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
      const files = definitionFiles(definitions);
      const first = files.filter((file) => file.name.startsWith(`${BEFORE_MIGRATIONS}/`));
      const pending = await pendingMigrations(connection, migrations);
      const defined = await applyDefinitions(
        runScript,
        first,
        (file) => recorded.get(file.name) !== file.checksum,
      );
      const ran = await runMigrations(runScript, pending);
      const rest = files.filter((file) => !first.includes(file));
      defined.push(
        ...(await applyDefinitions(
          runScript,
          rest,
          (file) => ran.length > 0 || recorded.get(file.name) !== file.checksum,
        )),
      );
      return { migrations: ran, definitions: defined };
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
      await sql`RESET lock_timeout`.execute(connection);
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}

/**
 * The migration files not yet applied, in order; refuses a file edited since it was applied, and
 * fills in the checksums of records written before checksums were kept.
 */
async function pendingMigrations(
  connection: Db,
  dir: string,
): Promise<{ file: string; body: string; checksum: string }[]> {
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
  for (const { file, checksum } of files) {
    if (recorded.has(file) && recorded.get(file) === null) {
      await sql`UPDATE schema_migrations SET checksum = ${checksum} WHERE name = ${file}`.execute(connection);
    }
  }
  return files.filter(({ file }) => !recorded.has(file));
}

/** Runs each migration as one script together with its record; answers the names run. */
async function runMigrations(
  runScript: Session['runScript'],
  pending: { file: string; body: string; checksum: string }[],
): Promise<string[]> {
  for (const { file, body, checksum } of pending) {
    await runScript(
      `${body}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${file}', '${checksum}');`,
    );
  }
  return pending.map(({ file }) => file);
}

interface DefinitionFile {
  name: string;
  body: string;
  checksum: string;
}

/** Applies each of `files` that `due` picks, in order, each in one transaction with its record. */
async function applyDefinitions(
  runScript: Session['runScript'],
  files: DefinitionFile[],
  due: (file: DefinitionFile) => boolean,
): Promise<string[]> {
  const defined: string[] = [];
  for (const file of files.filter(due)) {
    const { name, body, checksum } = file;
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
  return defined;
}

/** The definition files in the order they are applied: by kind, then by name. */
function definitionFiles(dir: string): DefinitionFile[] {
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
