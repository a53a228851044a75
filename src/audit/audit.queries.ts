import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import { Timestamp, Uuid } from '../platform/schemas.ts';

const State = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const AuditEntryView = Type.Object({
  id: Uuid,
  user_email: Type.String(),
  action: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.Union([Type.String(), Type.Null()]),
  before_state: State,
  after_state: State,
  meta: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});

/** The business's log, newest first: `seq` is the order of writing, which timestamps may tie. */
export const listAuditLog = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor
      .selectFrom('audit_logs')
      .select([
        'id',
        'user_email',
        'action',
        'entity_type',
        'entity_id',
        'before_state',
        'after_state',
        'meta',
        'created_at',
      ])
      .where('business_id', '=', page.owner),
    { name: 'audit_logs', keys: [{ ref: 'seq', type: 'bigint' }], direction: 'desc' },
    page,
    (row) => ({
      ...row,
      before_state: row.before_state as Record<string, unknown> | null,
      after_state: row.after_state as Record<string, unknown> | null,
      meta: (row.meta ?? {}) as Record<string, unknown>,
      created_at: row.created_at.toISOString(),
    }),
  );

/** One audit row, written by `slotwise_record_audit`, the writer the database's statements call too. */
export interface AuditRow {
  businessId: string;
  actor: string;
  action: string;
  entityType: string;
  entityId: string | null;
  /** Each a JSON text, or null when there is none. */
  before: string | null;
  after: string | null;
  meta: string;
}

export const insertAuditRow = async (executor: Executor, row: AuditRow) => {
  await sql`SELECT slotwise_record_audit(${row.businessId}::uuid, ${row.actor}, ${row.action},
    ${row.entityType}, ${row.entityId}::uuid, ${row.before}::jsonb, ${row.after}::jsonb,
    ${row.meta}::jsonb)`.execute(executor);
};
