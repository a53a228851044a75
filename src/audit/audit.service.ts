import type { Principal } from '../platform/auth.ts';
import type { Executor } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { type AuditFilter, insertAuditRow, listAuditLog } from './audit.queries.ts';
import { toAuditEntryView } from './audit.view.ts';

/** Who a change is recorded for: the business it belongs to and the credential's actor name. */
export type AuditActor = Pick<Principal, 'actor'> & { businessId: string };

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
export async function recordAudit(executor: Executor, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await insertAuditRow(executor, {
    businessId: actor.businessId,
    actor: actor.actor,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    before: toJson(entry.before),
    after: toJson(entry.after),
    meta: JSON.stringify(entry.meta ?? {}),
  });
}

const sameValue = (a: unknown, b: unknown) =>
  a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

export interface AuditedChange<Row extends { id: string }, View> {
  /** Names the entity in its audit rows (and in the 404 when `thing` is not given). */
  entityType: string;
  /** How the 404 names it when it is missing, e.g. "blackout date". */
  thing?: string;
  /** Reads the entity and locks it until the transaction ends; undefined when it is not there. */
  lock(): Promise<Row | undefined>;
  /** The fields the caller sent; the ones equal to what is stored change nothing. */
  patch: Partial<Row>;
  /** Refuses a merged state that breaks a rule across fields (e.g. min above max). */
  check?(merged: Row, before: Row): void | Promise<void>;
  /** Writes the changed fields and returns the stored row. */
  update(changes: Partial<Row>): Promise<Row>;
  view(row: Row): View;
  action: string | ((before: Row, after: Row) => string);
}

/**
 * The one way a stored entity is changed: lock it, merge the patch, check the result, write only
 * what differs and audit before/after with the changed fields, all in the caller's transaction.
 * A patch that changes nothing writes nothing and leaves no audit row.
 */
export async function changeAudited<Row extends { id: string }, View>(
  executor: Executor,
  actor: AuditActor,
  change: AuditedChange<Row, View>,
): Promise<View> {
  const before = await change.lock();
  if (!before) throw notFound(change.thing ?? change.entityType);
  const merged = { ...before, ...change.patch };
  await change.check?.(merged, before);
  const changed = (Object.keys(change.patch) as (keyof Row & string)[]).filter(
    (field) => !sameValue(merged[field], before[field]),
  );
  if (changed.length === 0) return change.view(before);
  const after = await change.update(
    Object.fromEntries(changed.map((field) => [field, merged[field]])) as Partial<Row>,
  );
  await recordAudit(executor, actor, {
    action: typeof change.action === 'string' ? change.action : change.action(before, after),
    entityType: change.entityType,
    entityId: before.id,
    before: change.view(before),
    after: change.view(after),
    meta: { changed },
  });
  return change.view(after);
}

/** The business's audit log, newest first, narrowed by `filter`, as `viewer` may see it. */
export const auditLog = (
  executor: Executor,
  viewer: Pick<Principal, 'scopes'>,
  page: PageRequest,
  filter: AuditFilter = {},
) => listAuditLog(executor, page, filter, (row) => toAuditEntryView(viewer, row));
