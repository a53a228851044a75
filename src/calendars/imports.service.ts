import { type AuditActor, recordAudit, removeAudited } from '../audit/audit.service.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import { UnsafeTarget, type WebhookTargets } from '../webhooks/target.adapter.ts';
import type { BusyPeriod } from './busy-events.rules.ts';
import type { CalendarFetcher } from './calendar-fetch.adapter.ts';
import type { CalendarParser } from './calendar-parser.adapter.ts';
import {
  deleteImportRow,
  type ImportToSync,
  insertImport,
  listImportsOf,
  lockImport,
  markImportDue,
  recordSync,
  replaceImportBlocks,
} from './imports.queries.ts';
import { importShownTo, toImportView } from './imports.view.ts';
import { SyncFailed, type SyncFailure } from './sync-failure.model.ts';

/** Each import is read this often. */
export const SYNC_EVERY_MS = 15 * 60_000;
/**
 * A feed's ETag is sent only while its last full read is this recent: a 304 says the text is the
 * same, not that the window of expanded recurrences is, and that window moves on with the days.
 */
const ETAG_TRUSTED_MS = 86_400_000;

export interface ImportInput {
  url: string;
  resource_id: string;
}

/**
 * A new import: its URL checked as a webhook's (resolved outside the transaction), then stored,
 * due for its first read at `now`.
 */
export async function addImport<R>(
  targets: WebhookTargets,
  actor: AuditActor & Pick<Principal, 'scopes'>,
  input: ImportInput,
  now: number,
  commit: Commit<R>,
): Promise<R> {
  let url: URL;
  try {
    url = await targets.checkRegistration(input.url);
  } catch (error) {
    if (error instanceof UnsafeTarget) throw invalidField('url', error.message);
    throw error;
  }
  return commit(async (tx) => {
    if ((await unknownResourceIds(tx, actor.businessId, [input.resource_id])).length > 0) {
      throw invalidField('resource_id', 'is not a resource of this business');
    }
    const row = await insertImport(tx, {
      business_id: actor.businessId,
      resource_id: input.resource_id,
      url: url.href,
      next_sync_at: new Date(now),
    });
    await recordAudit(tx, actor, {
      action: 'calendar_import.created',
      entityType: 'calendar_import',
      entityId: row.id,
      after: toImportView(row),
    });
    return importShownTo(actor, row);
  });
}

export const findImports = (executor: Executor, viewer: Pick<Principal, 'scopes'>, page: PageRequest) =>
  listImportsOf(executor, page, (row) => importShownTo(viewer, row));

export const removeImport = (tx: Tx, actor: AuditActor, importId: string) =>
  removeAudited(tx, actor, {
    entityType: 'calendar_import',
    take: () => deleteImportRow(tx, actor.businessId, importId),
    view: toImportView,
    action: 'calendar_import.deleted',
  });

export type SyncOutcome =
  | { kind: 'unchanged' }
  | { kind: 'read'; periods: BusyPeriod[]; etag: string | null }
  | { kind: 'failed'; failure: SyncFailure };

/** Reads and parses the import's calendar (off the event loop); no transaction is held meanwhile. */
export async function readCalendar(
  deps: { fetcher: CalendarFetcher; parser: CalendarParser },
  calendar: ImportToSync,
  now: number,
): Promise<SyncOutcome> {
  const trusted = calendar.parsed_at !== null && now - calendar.parsed_at.getTime() < ETAG_TRUSTED_MS;
  try {
    const fetched = await deps.fetcher.fetch(calendar.url, trusted ? calendar.etag : null);
    if (!fetched.changed) return { kind: 'unchanged' };
    const periods = await deps.parser.parse(fetched.body, now, calendar.timezone);
    return { kind: 'read', periods, etag: fetched.etag };
  } catch (error) {
    if (error instanceof SyncFailed) return { kind: 'failed', failure: error.failure };
    throw error;
  }
}

/**
 * Writes what a read found, in one transaction: the blocks replaced by the calendar's busy
 * periods, or on a failure only its class (the blocks of the last good read stay). Undefined
 * when the import was deleted meanwhile.
 */
export async function applySync(tx: Tx, calendar: ImportToSync, outcome: SyncOutcome, now: number) {
  if (!(await lockImport(tx, calendar.business_id, calendar.id))) return undefined;
  const next_sync_at = new Date(now + SYNC_EVERY_MS);
  if (outcome.kind === 'failed') {
    return recordSync(tx, calendar.business_id, calendar.id, { last_error: outcome.failure, next_sync_at });
  }
  if (outcome.kind === 'read') {
    await replaceImportBlocks(
      tx,
      { businessId: calendar.business_id, importId: calendar.id, resourceId: calendar.resource_id },
      outcome.periods,
    );
  }
  return recordSync(tx, calendar.business_id, calendar.id, {
    ...(outcome.kind === 'read' ? { etag: outcome.etag, parsed_at: new Date(now) } : {}),
    last_synced_at: new Date(now),
    last_error: null,
    next_sync_at,
  });
}

/**
 * `POST .../sync`: the import made due now, for the job `calendar-imports` to read (the caller
 * starts the job once this is committed); answers the import as it stands.
 */
export async function requestSync(
  tx: Tx,
  viewer: Pick<Principal, 'scopes'> & { businessId: string },
  importId: string,
  now: number,
) {
  const row = await markImportDue(tx, viewer.businessId, importId, new Date(now));
  if (!row) throw notFound('calendar import');
  return importShownTo(viewer, row);
}
