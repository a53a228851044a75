import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type Database, openPGlite, openPostgres } from './db.ts';
import { migrate } from './migrate.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATION_FILES = readdirSync(new URL('../../migrations/', import.meta.url))
  .filter((file) => file.endsWith('.sql'))
  .sort();

/**
 * Handles on one blank database: on PostgreSQL separate pools (as separate processes have), on
 * PGlite the one embedded instance.
 */
async function blankDatabase(handles: number): Promise<{ databases: Database[]; drop: () => Promise<void> }> {
  if (!serverUrl) {
    const database = await openPGlite();
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

const checksums = async (database: Database) =>
  Object.fromEntries(
    (
      await sql<{ name: string; checksum: string | null }>`
        SELECT name, checksum FROM schema_migrations ORDER BY name`.execute(database.db)
    ).rows.map((row) => [row.name, row.checksum]),
  );

describe('migrate', () => {
  let databases: Database[];
  let drop: () => Promise<void>;
  const dirs: string[] = [];
  const migrationsDir = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'slotwise-migrations-'));
    dirs.push(dir);
    for (const [file, body] of Object.entries(files)) writeFileSync(join(dir, file), body);
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
    const applying = runs.filter((ran) => ran.length > 0);
    assert.equal(applying.length, 1, JSON.stringify(runs));
    assert.deepEqual(applying[0], MIGRATION_FILES);
    assert.deepEqual(await appliedNames(databases[0]!), MIGRATION_FILES);
    assert.deepEqual(await migrate(databases[0]!), []);
  });

  it('records the SHA-256 of each file it applies', async () => {
    const recorded = await checksums(databases[0]!);
    for (const file of MIGRATION_FILES) {
      const body = readFileSync(new URL(`../../migrations/${file}`, import.meta.url), 'utf8');
      assert.equal(recorded[file], sha256(body), file);
    }
  });

  it('leaves nothing of a file that fails, and stops there', async () => {
    const dir = migrationsDir({
      '9001_good.sql': 'CREATE TABLE migrate_test_good (id int);',
      '9002_bad.sql': 'CREATE TABLE migrate_test_half (id int);\nSELECT no_such_function();',
      '9003_after.sql': 'CREATE TABLE migrate_test_after (id int);',
    });
    const database = databases[0]!;
    await assert.rejects(migrate(database, dir));
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
    assert.deepEqual(await migrate(database, dir), ['9101_tables.sql']);
    writeFileSync(join(dir, '9101_tables.sql'), 'CREATE TABLE migrate_test_edited (id bigint);');
    writeFileSync(join(dir, '9102_next.sql'), 'CREATE TABLE migrate_test_next (id int);');
    await assert.rejects(migrate(database, dir), (error: Error) => {
      assert.match(error.message, /^migration 9101_tables\.sql was edited after it was applied; /);
      assert.ok(!error.message.includes('\n'), error.message);
      return true;
    });
    assert.ok(!(await appliedNames(database)).includes('9102_next.sql'));
  });

  it('fills in the checksums of a database that applied files before checksums were kept', async () => {
    const database = databases[0]!;
    await database.runScript('ALTER TABLE schema_migrations DROP COLUMN checksum');
    assert.deepEqual(await migrate(database), []);
    const recorded = await checksums(database);
    for (const file of MIGRATION_FILES) assert.match(recorded[file] ?? '', /^[0-9a-f]{64}$/, file);
    const dir = migrationsDir({ '9201_kept.sql': 'CREATE TABLE migrate_test_kept (id int);' });
    await migrate(database, dir);
    await sql`UPDATE schema_migrations SET checksum = NULL WHERE name = '9201_kept.sql'`.execute(database.db);
    writeFileSync(join(dir, '9201_kept.sql'), 'CREATE TABLE migrate_test_kept (id bigint);');
    assert.deepEqual(await migrate(database, dir), []);
    assert.equal(
      (await checksums(database))['9201_kept.sql'],
      sha256('CREATE TABLE migrate_test_kept (id bigint);'),
    );
  });
});
