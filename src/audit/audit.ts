import type { Principal } from '../platform/auth.ts';
import type { Executor } from '../platform/db.ts';

export interface AuditEntry {
  action: string;
  entityType: string;
  entityId: string | null;
  before?: unknown;
  after?: unknown;
  meta?: Record<string, unknown>;
}

/** Plain JSON of a row: Dates become ISO strings so before/after states read the same as API responses. */
const toJson = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** Writes an audit entry; call it with the transaction of the change so both land or neither does. */
export async function recordAudit(
  executor: Executor,
  actor: Pick<Principal, 'businessId' | 'actor'> & { businessId: string },
  entry: AuditEntry,
): Promise<void> {
  await executor
    .insertInto('audit_logs')
    .values({
      business_id: actor.businessId,
      user_email: actor.actor,
      action: entry.action,
      entity_type: entry.entityType,
      entity_id: entry.entityId,
      before_state: toJson(entry.before),
      after_state: toJson(entry.after),
      meta: JSON.stringify(entry.meta ?? {}),
    })
    .execute();
}
