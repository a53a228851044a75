import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openBlankPGlite } from '../../test/helpers.ts';
import { type Database, openPostgres } from './db.ts';
import { migrate } from './migrate.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATIONS = new URL('../../migrations/', import.meta.url);
const DEFINITIONS = new URL('../../db/', import.meta.url);
const MIGRATION_FILES = readdirSync(MIGRATIONS)
  .filter((file) => file.endsWith('.sql'))
  .sort();
const definitionsOf = (kind: 'facts' | 'functions' | 'views' | 'triggers') =>
  readdirSync(new URL(`${kind}/`, DEFINITIONS))
    .sort()
    .map((file) => `${kind}/${file}`);
/** Every definition of db/, in the order they are applied. */
const DEFINITION_FILES = [
  ...definitionsOf('facts'),
  ...definitionsOf('functions'),
  ...definitionsOf('views'),
  ...definitionsOf('triggers'),
];
const KIND_OF_FOLDER = {
  facts: 'FUNCTION',
  functions: 'FUNCTION',
  views: 'VIEW',
  triggers: 'TRIGGER',
} as const;
/** The migrations that landed before functions and triggers moved to db/; never edited since. */
const LAST_MIGRATION_WITH_DEFINITIONS = '0023_one_plan_checkout.sql';
const objectName = (file: string) => file.replace(/^\w+\//, '').replace(/\.sql$/, '');

/**
 * Handles on one blank database: on PostgreSQL separate pools (as separate processes have), on
 * PGlite the one embedded instance.
 */
async function blankDatabase(handles: number): Promise<{ databases: Database[]; drop: () => Promise<void> }> {
  if (!serverUrl) {
    const database = await openBlankPGlite();
    return { databases: Array(handles).fill(database), drop: () => database.close() };
  }
  const name = `slotwise_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databases = await Promise.all(Array.from({ length: handles }, () => openPostgres(url.toString(), 2)));
  return {
    databases,
    drop: async () => {
      await Promise.all(databases.map((database) => database.close()));
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const appliedNames = async (database: Database) =>
  (
    await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(database.db)
  ).rows.map((row) => row.name);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const checksums = async (
  database: Database,
  table: 'schema_migrations' | 'schema_definitions' = 'schema_migrations',
) =>
  Object.fromEntries(
    (
      await sql<{ name: string; checksum: string | null }>`
        SELECT name, checksum FROM ${sql.table(table)} ORDER BY name`.execute(database.db)
    ).rows.map((row) => [row.name, row.checksum]),
  );

const answer = async (database: Database) =>
  (await sql<{ answer: number }>`SELECT migrate_test_answer() AS answer`.execute(database.db)).rows[0]!
    .answer;

/** Each kind's CREATE statements in a script, comments left out. */
const declarations = (script: string) =>
  [
    ...script
      .replace(/--.*$/gm, '')
      .matchAll(/\bCREATE\s+(OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?(FUNCTION|PROCEDURE|TRIGGER|VIEW)\s+(\w+)/gi),
  ].map((match) => ({ replaces: Boolean(match[1]), kind: match[2]!.toUpperCase(), name: match[3]! }));

describe('migrate', () => {
  let databases: Database[];
  let drop: () => Promise<void>;
  const dirs: string[] = [];
  /** A temporary folder of the files given, by path within it. */
  const migrationsDir = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'slotwise-migrations-'));
    dirs.push(dir);
    for (const [file, body] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), body);
    }
    return dir;
  };
  before(async () => {
    ({ databases, drop } = await blankDatabase(3));
  });
  after(async () => {
    await drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('applies every file once when several starts migrate together, and nothing the next time', async () => {
    const runs = await Promise.all(databases.map((database) => migrate(database)));
    const applying = runs.filter((ran) => ran.migrations.length > 0 || ran.definitions.length > 0);
    assert.equal(applying.length, 1, JSON.stringify(runs));
    assert.deepEqual(applying[0], { migrations: MIGRATION_FILES, definitions: DEFINITION_FILES });
    assert.deepEqual(await appliedNames(databases[0]!), MIGRATION_FILES);
    assert.deepEqual(await migrate(databases[0]!), { migrations: [], definitions: [] });
  });

  it('records the SHA-256 of each file it applies', async () => {
    const recorded = await checksums(databases[0]!);
    for (const file of MIGRATION_FILES) {
      assert.equal(recorded[file], sha256(readFileSync(new URL(file, MIGRATIONS), 'utf8')), file);
    }
    const defined = await checksums(databases[0]!, 'schema_definitions');
    assert.deepEqual(Object.keys(defined), [...DEFINITION_FILES].sort());
    for (const file of DEFINITION_FILES) {
      assert.equal(defined[file], sha256(readFileSync(new URL(file, DEFINITIONS), 'utf8')), file);
    }
  });

  it('leaves exactly the functions, views and triggers of db/, each defined once', async () => {
    const { rows: functions } = await sql<{ name: string }>`
      SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND NOT EXISTS (
        SELECT 1 FROM pg_depend d
        WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      ORDER BY 1`.execute(databases[0]!.db);
    // A second function of one name is an overload a changed signature left behind.
    assert.deepEqual(
      functions.map((row) => row.name),
      [...definitionsOf('facts'), ...definitionsOf('functions')].map(objectName).sort(),
    );
    const { rows: triggers } = await sql<{ name: string }>`
      SELECT tgname AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`.execute(databases[0]!.db);
    assert.deepEqual(
      triggers.map((row) => row.name),
      definitionsOf('triggers').map(objectName),
    );
    const { rows: views } = await sql<{ name: string }>`
      SELECT viewname AS name FROM pg_views WHERE schemaname = 'public' ORDER BY 1`.execute(databases[0]!.db);
    assert.deepEqual(
      views.map((row) => row.name),
      definitionsOf('views').map(objectName),
    );
  });

  it('leaves nothing of a file that fails, and stops there', async () => {
    const dir = migrationsDir({
      '9001_good.sql': 'CREATE TABLE migrate_test_good (id int);',
      '9002_bad.sql': 'CREATE TABLE migrate_test_half (id int);\nSELECT no_such_function();',
      '9003_after.sql': 'CREATE TABLE migrate_test_after (id int);',
    });
    const database = databases[0]!;
    await assert.rejects(migrate(database, { migrations: dir }));
    const names = await appliedNames(database);
    assert.ok(names.includes('9001_good.sql'));
    assert.ok(!names.includes('9002_bad.sql'));
    assert.ok(!names.includes('9003_after.sql'));
    const { rows } = await sql<{ tablename: string }>`
      SELECT tablename FROM pg_tables WHERE tablename LIKE 'migrate_test_%' ORDER BY tablename`.execute(
      database.db,
    );
    assert.deepEqual(
      rows.map((row) => row.tablename),
      ['migrate_test_good'],
    );
  });

  it('stops with one line naming a file edited after it was applied, and applies nothing', async () => {
    const database = databases[0]!;
    const dir = migrationsDir({ '9101_tables.sql': 'CREATE TABLE migrate_test_edited (id int);' });
    assert.deepEqual((await migrate(database, { migrations: dir })).migrations, ['9101_tables.sql']);
    writeFileSync(join(dir, '9101_tables.sql'), 'CREATE TABLE migrate_test_edited (id bigint);');
    writeFileSync(join(dir, '9102_next.sql'), 'CREATE TABLE migrate_test_next (id int);');
    await assert.rejects(migrate(database, { migrations: dir }), (error: Error) => {
      assert.match(error.message, /^migration 9101_tables\.sql was edited after it was applied; /);
      assert.ok(!error.message.includes('\n'), error.message);
      return true;
    });
    assert.ok(!(await appliedNames(database)).includes('9102_next.sql'));
  });

  it('fills in the checksums of a database that applied files before checksums were kept', async () => {
    const database = databases[0]!;
    await database.runScript('ALTER TABLE schema_migrations DROP COLUMN checksum');
    assert.deepEqual((await migrate(database)).migrations, []);
    const recorded = await checksums(database);
    for (const file of MIGRATION_FILES) assert.match(recorded[file] ?? '', /^[0-9a-f]{64}$/, file);
    const dir = migrationsDir({ '9201_kept.sql': 'CREATE TABLE migrate_test_kept (id int);' });
    await migrate(database, { migrations: dir });
    await sql`UPDATE schema_migrations SET checksum = NULL WHERE name = '9201_kept.sql'`.execute(database.db);
    writeFileSync(join(dir, '9201_kept.sql'), 'CREATE TABLE migrate_test_kept (id bigint);');
    assert.deepEqual((await migrate(database, { migrations: dir })).migrations, []);
    assert.equal(
      (await checksums(database))['9201_kept.sql'],
      sha256('CREATE TABLE migrate_test_kept (id bigint);'),
    );
  });

  const ANSWER = 'functions/migrate_test_answer.sql';
  const answering = (value: string) =>
    `CREATE OR REPLACE FUNCTION migrate_test_answer() RETURNS int LANGUAGE sql AS $$ SELECT ${value} $$;`;
  const appliedAt = async (database: Database, name: string) =>
    (
      await sql<{ applied_at: Date }>`SELECT applied_at FROM schema_definitions WHERE name = ${name}`.execute(
        database.db,
      )
    ).rows[0]?.applied_at.getTime();

  it('applies a new definition and records it; an unchanged one is not applied again', async () => {
    const database = databases[0]!;
    const definitions = migrationsDir({ [ANSWER]: answering('1') });
    assert.deepEqual(await migrate(database, { definitions }), { migrations: [], definitions: [ANSWER] });
    assert.equal(await answer(database), 1);
    assert.equal((await checksums(database, 'schema_definitions'))[ANSWER], sha256(answering('1')));
    const first = await appliedAt(database, ANSWER);
    assert.deepEqual(await migrate(database, { definitions }), { migrations: [], definitions: [] });
    assert.equal(await appliedAt(database, ANSWER), first);
  });

  it('applies a changed definition again', async () => {
    const database = databases[0]!;
    const definitions = migrationsDir({ [ANSWER]: answering('1') });
    await migrate(database, { definitions });
    writeFileSync(join(definitions, ANSWER), answering('2'));
    assert.deepEqual((await migrate(database, { definitions })).definitions, [ANSWER]);
    assert.equal(await answer(database), 2);
    assert.equal((await checksums(database, 'schema_definitions'))[ANSWER], sha256(answering('2')));
  });

  it('fails the start naming a definition that fails, and keeps the one applied before', async () => {
    const database = databases[0]!;
    const definitions = migrationsDir({ [ANSWER]: answering('3') });
    await migrate(database, { definitions });
    writeFileSync(join(definitions, ANSWER), `${answering('4')}\nSELECT no_such_function();`);
    await assert.rejects(migrate(database, { definitions }), (error: Error) => {
      assert.match(
        error.message,
        /^definition functions\/migrate_test_answer\.sql failed: .*no_such_function/,
      );
      return true;
    });
    assert.equal(await answer(database), 3);
    assert.equal((await checksums(database, 'schema_definitions'))[ANSWER], sha256(answering('3')));
  });

  it('applies functions, views, then triggers, each in name order, and all again after a migration ran', async () => {
    const database = databases[0]!;
    const definitions = migrationsDir({
      'views/migrate_test_counts.sql':
        'CREATE OR REPLACE VIEW migrate_test_counts AS SELECT count(*) FILTER (WHERE counted) AS counted, migrate_test_answer() AS answer FROM migrate_test_rows;',
      'triggers/migrate_test_counted.sql':
        'CREATE OR REPLACE TRIGGER migrate_test_counted BEFORE INSERT ON migrate_test_rows FOR EACH ROW EXECUTE FUNCTION migrate_test_count();',
      'functions/migrate_test_count.sql':
        'CREATE OR REPLACE FUNCTION migrate_test_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.counted := true; RETURN NEW; END $$;',
      [ANSWER]: answering('5'),
    });
    const table = 'CREATE TABLE migrate_test_rows (id int, counted boolean NOT NULL DEFAULT false);';
    const migrations = migrationsDir({ '9301_rows.sql': table });
    assert.deepEqual(await migrate(database, { migrations, definitions }), {
      migrations: ['9301_rows.sql'],
      definitions: [
        ANSWER,
        'functions/migrate_test_count.sql',
        'views/migrate_test_counts.sql',
        'triggers/migrate_test_counted.sql',
      ],
    });
    // A table rebuilt by a later migration loses its triggers, and the views that read it must be
    // dropped first; their unchanged definitions bring them back.
    writeFileSync(
      join(migrations, '9302_rebuilt.sql'),
      `DROP VIEW migrate_test_counts;\nDROP TABLE migrate_test_rows;\n${table}`,
    );
    assert.equal((await migrate(database, { migrations, definitions })).definitions.length, 4);
    const { rows } = await sql<{ counted: boolean }>`
      INSERT INTO migrate_test_rows (id) VALUES (1) RETURNING counted`.execute(database.db);
    assert.equal(rows[0]!.counted, true);
    const { rows: counts } = await sql<{ counted: number; answer: number }>`
      SELECT counted::int, answer FROM migrate_test_counts`.execute(database.db);
    assert.deepEqual(counts, [{ counted: 1, answer: 5 }]);
  });

  it('applies the facts before the migrations, so that a migration may build on one', async () => {
    const database = databases[0]!;
    const definitions = migrationsDir({
      'facts/migrate_test_even.sql':
        'CREATE OR REPLACE FUNCTION migrate_test_even(p int) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT p % 2 = 0 $$;',
    });
    const migrations = migrationsDir({
      '9401_evens.sql':
        'CREATE TABLE migrate_test_numbers (n int);\nCREATE INDEX migrate_test_evens ON migrate_test_numbers (n) WHERE migrate_test_even(n);',
    });
    assert.deepEqual(await migrate(database, { migrations, definitions }), {
      migrations: ['9401_evens.sql'],
      definitions: ['facts/migrate_test_even.sql'],
    });
    assert.deepEqual(await migrate(database, { migrations, definitions }), {
      migrations: [],
      definitions: [],
    });
  });

  it('refuses a definition outside facts/, functions/, views/ and triggers/', async () => {
    const definitions = migrationsDir({ 'procedures/migrate_test_procedure.sql': 'SELECT 1;' });
    await assert.rejects(
      migrate(databases[0]!, { definitions }),
      /^Error: definition procedures\/migrate_test_procedure\.sql /,
    );
  });
});

describe("the schema's sources", () => {
  it('declares no function, trigger or view in a migration after 0023: each has its one file in db/', () => {
    const later = MIGRATION_FILES.filter((file) => file > LAST_MIGRATION_WITH_DEFINITIONS);
    for (const file of later) {
      assert.deepEqual(declarations(readFileSync(new URL(file, MIGRATIONS), 'utf8')), [], file);
    }
  });

  it('defines each function, view and trigger of db/ once, replaceably, in the file named after it', () => {
    // One object per file, named as its file is: no two files can define one name.
    for (const file of DEFINITION_FILES) {
      const kind = KIND_OF_FOLDER[file.split('/')[0] as keyof typeof KIND_OF_FOLDER];
      assert.deepEqual(
        declarations(readFileSync(new URL(file, DEFINITIONS), 'utf8')),
        [{ replaces: true, kind, name: objectName(file) }],
        file,
      );
    }
  });
});
