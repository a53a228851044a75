import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';

export interface AuditLogRow {
  id: string;
  user_email: string;
  action: string;
  entity_type: string;
  entity_id: string | null;
  before_state: unknown;
  after_state: unknown;
  meta: unknown;
  created_at: Date;
}

/** Which entries of the log: those of one kind of entity, or of one entity. */
export interface AuditFilter {
  entityType?: string;
  entityId?: string;
}

/** The business's log, newest first: `seq` is the order of writing, which timestamps may tie. */
export const listAuditLog = <T>(
  executor: Executor,
  page: PageRequest,
  filter: AuditFilter,
  view: (row: AuditLogRow) => T,
) => {
  let query = executor
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
    .where('business_id', '=', page.owner);
  if (filter.entityType) query = query.where('entity_type', '=', filter.entityType);
  if (filter.entityId) query = query.where('entity_id', '=', filter.entityId);
  return keysetPage(
    query,
    { name: 'audit_logs', keys: [{ ref: 'seq', type: 'bigint' }], direction: 'desc' },
    page,
    view,
  );
};

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
