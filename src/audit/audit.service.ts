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

/** How a 404 names a missing entity: its audit type in words ("blackout_date": "blackout date"). */
const missing = (entityType: string) => notFound(entityType.replaceAll('_', ' '));

export interface AuditedChange<Row extends { id: string }, View> {
  /** Names the entity in its audit rows and, in words, in the 404. */
  entityType: string;
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
  if (!before) throw missing(change.entityType);
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

export interface AuditedRemoval<Row extends { id: string }> {
  /** Names the entity in its audit row and, in words, in the 404. */
  entityType: string;
  /** Takes the entity out, or reads and locks it for `remove`; undefined when it is not there. */
  take(): Promise<Row | undefined>;
  /** Refuses a removal that a rule forbids (bookings to come on it, say). */
  check?(row: Row): Promise<void>;
  /** Removes what `take` locked, where `take` did not remove it itself. */
  remove?(row: Row): Promise<unknown>;
  view(row: Row): unknown;
  action: string;
}

/**
 * The one way a stored entity is removed: take it (404 when it is not there), check, remove, and
 * audit what it was, all in the caller's transaction.
 */
export async function removeAudited<Row extends { id: string }>(
  executor: Executor,
  actor: AuditActor,
  removal: AuditedRemoval<Row>,
): Promise<void> {
  const row = await removal.take();
  if (!row) throw missing(removal.entityType);
  await removal.check?.(row);
  await removal.remove?.(row);
  await recordAudit(executor, actor, {
    action: removal.action,
    entityType: removal.entityType,
    entityId: row.id,
    before: removal.view(row),
  });
}

/** The business's audit log, newest first, narrowed by `filter`, as `viewer` may see it. */
export const auditLog = (
  executor: Executor,
  viewer: Pick<Principal, 'scopes'>,
  page: PageRequest,
  filter: AuditFilter = {},
) => listAuditLog(executor, page, filter, (row) => toAuditEntryView(viewer, row));
