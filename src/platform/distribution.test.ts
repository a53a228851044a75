import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestContext } from '../../test/helpers.ts';
import type { Executor } from './db.ts';

/**
 * How each table would live on a distributed PostgreSQL (Citus), as docs/scaling.md explains:
 * - `business`: business data, distributed by `business_id`, all colocated. Every primary key,
 *   unique and exclusion constraint and unique index includes `business_id` (compared with `=`), and
 *   every foreign key does: to another business table on `business_id` = `business_id`, or to a
 *   reference table.
 * - `reference`: replicated to every node; small, written rarely, read before (or without) a
 *   business: accounts, the business directory with its global slugs, keys and memberships. Its
 *   foreign keys point at reference tables only.
 * - `global`: kept on the coordinator (a Citus local table): sessions, the processor's records,
 *   queues spanning businesses, per-developer counters. Foreign keys to reference or global
 *   tables only; nothing distributed or replicated points at one.
 * A new table fails the test until it is classified here (and in docs/scaling.md).
 */
const TABLES = {
  developers: 'reference',
  businesses: 'reference',
  users: 'reference',
  memberships: 'reference',
  api_keys: 'reference',
  partners: 'reference',
  partner_listings: 'reference',
  audit_logs: 'business',
  blackout_dates: 'business',
  booking_holds: 'business',
  calendar_feeds: 'business',
  calendar_imports: 'business',
  bookings: 'business',
  combinations: 'business',
  connected_accounts: 'business',
  customers: 'business',
  deposits: 'business',
  operating_hours: 'business',
  resource_blocks: 'business',
  resources: 'business',
  sandbox_usage: 'business',
  service_periods: 'business',
  services: 'business',
  waitlist_entries: 'business',
  waitlist_offers: 'business',
  waitlist_openings: 'business',
  walk_ins: 'business',
  partner_bookings: 'business',
  webhook_deliveries: 'business',
  webhook_endpoints: 'business',
  webhook_events: 'business',
  billing_cleanups: 'global',
  booking_usage: 'global',
  change_log: 'global',
  message_outbox: 'global',
  idempotency_keys: 'global',
  invitation_sends: 'global',
  login_failures: 'global',
  processor_events: 'global',
  refresh_tokens: 'global',
  schema_definitions: 'global',
  schema_migrations: 'global',
  simulated_processor_objects: 'global',
  sms_counts: 'global',
} as const satisfies Record<string, Kind>;

type Kind = 'business' | 'reference' | 'global';

interface ConstraintRow {
  table: string;
  name: string;
  type: 'p' | 'u' | 'x' | 'f';
  columns: string[];
  /** The operator of each column of an exclusion constraint. */
  operators: string[] | null;
  target: string | null;
  target_columns: string[] | null;
}

interface ColumnRow {
  table: string;
  type: string;
  not_null: boolean;
}

/** What breaks the classification in the migrated catalog: one sentence per problem, none when it holds. */
async function distributionProblems(executor: Executor, kinds: Record<string, Kind>): Promise<string[]> {
  const problems: string[] = [];
  const tables = (
    await sql<{ table: string }>`
      SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`.execute(executor)
  ).rows.map((row) => row.table);
  for (const table of tables) {
    if (!kinds[table]) problems.push(`table ${table} is not classified`);
  }
  for (const table of Object.keys(kinds)) {
    if (!tables.includes(table)) problems.push(`table ${table} is classified but does not exist`);
  }

  const businessIds = (
    await sql<ColumnRow>`
      SELECT c.relname AS table, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND a.attname = 'business_id' AND NOT a.attisdropped`.execute(executor)
  ).rows;
  for (const [table, kind] of Object.entries(kinds)) {
    if (kind !== 'business' || !tables.includes(table)) continue;
    const column = businessIds.find((row) => row.table === table);
    if (column?.type !== 'uuid' || !column.not_null)
      problems.push(`${table}: business data needs business_id uuid NOT NULL`);
  }

  const constraints = (
    await sql<ConstraintRow>`
      SELECT c.conrelid::regclass::text AS table, c.conname AS name, c.contype AS type,
        ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k (num, pos)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num ORDER BY k.pos) AS columns,
        CASE WHEN c.contype = 'x' THEN
          ARRAY(SELECT o.oprname::text FROM unnest(c.conexclop) WITH ORDINALITY AS k (op, pos)
            JOIN pg_operator o ON o.oid = k.op ORDER BY k.pos) END AS operators,
        CASE WHEN c.contype = 'f' THEN c.confrelid::regclass::text END AS target,
        CASE WHEN c.contype = 'f' THEN
          ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k (num, pos)
            JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num ORDER BY k.pos) END
          AS target_columns
      FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
      WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'x', 'f')
      ORDER BY 1, 2`.execute(executor)
  ).rows;
  for (const constraint of constraints) {
    const kind = kinds[constraint.table];
    if (!kind) continue;
    const label = `${constraint.table}: ${constraint.name}`;
    const position = constraint.columns.indexOf('business_id');
    if (constraint.type === 'f') {
      const targetKind = constraint.target ? kinds[constraint.target] : undefined;
      if (kind === 'business') {
        if (targetKind === 'business' && constraint.target_columns?.[position] !== 'business_id')
          problems.push(`${label} must join business_id to business_id`);
        else if (targetKind !== 'business' && targetKind !== 'reference')
          problems.push(`${label} points at ${targetKind ?? 'an unclassified'} table ${constraint.target}`);
        if (position < 0) problems.push(`${label} does not include business_id`);
      } else if (kind === 'reference' && targetKind !== 'reference') {
        problems.push(`${label}: a reference table may only point at reference tables`);
      } else if (kind === 'global' && targetKind !== 'reference' && targetKind !== 'global') {
        problems.push(`${label}: a global table may only point at reference or global tables`);
      }
    } else if (kind === 'business') {
      if (position < 0) problems.push(`${label} does not include business_id`);
      else if (constraint.type === 'x' && constraint.operators?.[position] !== '=')
        problems.push(`${label} must compare business_id with =`);
    }
  }

  const uniqueIndexes = (
    await sql<{ table: string; name: string; columns: string[] }>`
      SELECT t.relname AS table, ic.relname AS name,
        ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) AS k (num)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num) AS columns
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND i.indisunique
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`.execute(executor)
  ).rows;
  for (const index of uniqueIndexes) {
    if (kinds[index.table] === 'business' && !index.columns.includes('business_id'))
      problems.push(`${index.table}: ${index.name} does not include business_id`);
  }
  return problems;
}

describe('distribution by business', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp();
  });
  after(() => ctx.close());

  it('holds for every table of the migrated schema', async () => {
    assert.deepEqual(await distributionProblems(ctx.database.db, TABLES), []);
  });

  it('names each table, constraint and index that breaks it', async () => {
    const rolledBack = new Error('rolled back');
    let problems: string[] = [];
    await assert.rejects(
      ctx.database.db.transaction().execute(async (tx) => {
        await sql`CREATE TABLE global_probe (id uuid PRIMARY KEY)`.execute(tx);
        await sql`
          CREATE TABLE business_probe (
            id uuid PRIMARY KEY,
            business_id uuid REFERENCES businesses (id),
            resource_id uuid NOT NULL REFERENCES global_probe (id),
            code text UNIQUE,
            during tstzrange NOT NULL,
            CONSTRAINT business_probe_resource_fkey FOREIGN KEY (resource_id, business_id)
              REFERENCES resources (business_id, id),
            CONSTRAINT business_probe_overlap EXCLUDE USING gist (resource_id WITH =, during WITH &&),
            CONSTRAINT business_probe_apart EXCLUDE USING gist (business_id WITH <>, during WITH &&)
          )`.execute(tx);
        await sql`CREATE UNIQUE INDEX business_probe_code_idx ON business_probe (lower(code))`.execute(tx);
        await sql`
          CREATE TABLE reference_probe (id uuid PRIMARY KEY, probe_id uuid REFERENCES global_probe (id))`.execute(
          tx,
        );
        await sql`CREATE TABLE unclassified_probe (id uuid PRIMARY KEY)`.execute(tx);
        problems = await distributionProblems(tx, {
          ...TABLES,
          global_probe: 'global',
          business_probe: 'business',
          reference_probe: 'reference',
          missing_probe: 'business',
        });
        throw rolledBack;
      }),
      rolledBack,
    );
    assert.deepEqual(problems.sort(), [
      'business_probe: business data needs business_id uuid NOT NULL',
      'business_probe: business_probe_apart must compare business_id with =',
      'business_probe: business_probe_code_idx does not include business_id',
      'business_probe: business_probe_code_key does not include business_id',
      'business_probe: business_probe_overlap does not include business_id',
      'business_probe: business_probe_pkey does not include business_id',
      'business_probe: business_probe_resource_fkey must join business_id to business_id',
      'business_probe: business_probe_resource_id_fkey does not include business_id',
      'business_probe: business_probe_resource_id_fkey points at global table global_probe',
      'reference_probe: reference_probe_probe_id_fkey: a reference table may only point at reference tables',
      'table missing_probe is classified but does not exist',
      'table unclassified_probe is not classified',
    ]);
  });
});
