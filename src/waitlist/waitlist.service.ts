import { type AuditActor, removeAudited } from '../audit/audit.service.ts';
import { type CustomerInput, isTrustedCaller, upsertCustomer } from '../customers/customers.service.ts';
import { guestNamesOf } from '../customers/entry-customer.view.ts';
import { todayIn } from '../engine/index.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { findService } from '../services/services.queries.ts';
import { emitEvent } from '../webhooks/events.service.ts';
import {
  businessZone,
  deleteEntry,
  findEntry,
  insertEntry,
  listEntries,
  lockWaitlist,
} from './waitlist.queries.ts';
import { toEntryView } from './waitlist.view.ts';

export interface NewWaitlistEntry {
  customer: CustomerInput;
  preferred_date: string | null;
  service_id?: string | null;
  capacity: number;
  notes?: string | null;
  preferred_time_from: string | null;
  preferred_time_to: string | null;
}

/** A window of start times is given whole (both ends) or not at all, and runs forward. */
function checkTimeWindow({ preferred_time_from: from, preferred_time_to: to }: NewWaitlistEntry): void {
  if ((from === null) !== (to === null)) {
    throw invalidField(
      from === null ? 'preferred_time_from' : 'preferred_time_to',
      'give both ends of the window or neither',
    );
  }
  if (from !== null && to !== null && from >= to) {
    throw invalidField('preferred_time_to', 'must be after preferred_time_from');
  }
}

/**
 * Adds a customer to the business's waitlist and answers their 1-based position among the entries
 * for the same date. Only a caller trusted with the business's customers (`isTrustedCaller`) may
 * change a returning customer's name and email; the names given always stay on the entry.
 */
export async function joinWaitlist(
  tx: Tx,
  businessId: string,
  entry: NewWaitlistEntry,
  caller: Principal | null,
  now: number,
) {
  checkTimeWindow(entry);
  const business = await businessZone(tx, businessId);
  if (!business) throw notFound('business');
  // Today as the availability engine sees it, and without asking the database about the zone.
  if (entry.preferred_date !== null && entry.preferred_date < todayIn(business.timezone, now)) {
    throw invalidField('preferred_date', 'is in the past');
  }
  if (entry.service_id) {
    const service = await findService(tx, businessId, entry.service_id);
    if (!service?.is_active) throw invalidField('service_id', 'is not an active service of this business');
  }
  await lockWaitlist(tx, businessId);
  const trusted = isTrustedCaller(caller, businessId);
  const customer = await upsertCustomer(tx, businessId, entry.customer, trusted);
  const id = await insertEntry(tx, {
    business_id: businessId,
    customer_id: customer.id,
    preferred_date: entry.preferred_date,
    service_id: entry.service_id ?? null,
    capacity: entry.capacity,
    notes: entry.notes ?? null,
    preferred_time_from: entry.preferred_time_from,
    preferred_time_to: entry.preferred_time_to,
    ...guestNamesOf(entry.customer),
  });
  const created = toEntryView(await findEntry(tx, businessId, id));
  await emitEvent(tx, businessId, 'waitlist.created', created, id);
  return { waitlist_id: id, position: created.position };
}

export const removeFromWaitlist = (tx: Tx, actor: AuditActor, entryId: string) =>
  removeAudited(tx, actor, {
    entityType: 'waitlist_entry',
    take: () => deleteEntry(tx, actor.businessId, entryId),
    view: (removed) => ({ ...removed, created_at: removed.created_at.toISOString() }),
    action: 'waitlist.removed',
  });

/** The business's entries by creation; with `preferredDate`, that date's and the undated ones. */
export const findEntries = (executor: Executor, page: PageRequest, preferredDate?: string) =>
  listEntries(executor, page, toEntryView, preferredDate);
