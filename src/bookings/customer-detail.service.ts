import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import { customerStats, findCustomer } from '../customers/customers.queries.ts';
import { toCustomerView } from '../customers/customers.view.ts';
import { mergedProfilesOf } from '../customers/profiles.queries.ts';
import type { Executor } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import {
  allBookingsOf,
  auditRowsOf,
  messagesOf,
  recentBookingsOf,
  waitlistEntriesOf,
} from './customer-detail.queries.ts';

/** A customer with their last bookings and booking statistics. */
export async function customerDetail(executor: Executor, businessId: string, customerId: string) {
  const [customer, bookings, stats] = await Promise.all([
    findCustomer(executor, businessId, customerId),
    recentBookingsOf(executor, businessId, customerId),
    customerStats(executor, businessId, customerId),
  ]);
  if (!customer) throw notFound('customer');
  return { ...toCustomerView(customer), bookings: bookings.map((row) => row.view), stats };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Everything held about a guest, for their right of access: the profile, the profiles merged into
 * it, every booking and waitlist entry, every message written about them as it was rendered, and
 * the audit rows about them and their bookings.
 */
export async function customerExport(executor: Executor, actor: AuditActor, customerId: string, now: Date) {
  const { businessId } = actor;
  const customer = await findCustomer(executor, businessId, customerId);
  if (!customer) throw notFound('customer');
  const [merged, bookings, entries, messages, audit] = await Promise.all([
    mergedProfilesOf(executor, businessId, customerId),
    allBookingsOf(executor, businessId, customerId),
    waitlistEntriesOf(executor, businessId, customerId),
    messagesOf(executor, businessId, customerId),
    auditRowsOf(executor, businessId, customerId),
  ]);
  await recordAudit(executor, actor, {
    action: 'customer.exported',
    entityType: 'customer',
    entityId: customerId,
  });
  return {
    exported_at: now.toISOString(),
    customer: toCustomerView(customer),
    merged_profiles: merged.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    bookings: bookings.map((row) => row.view),
    waitlist_entries: entries.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    messages: messages.map((row) => ({
      ...row,
      created_at: row.created_at.toISOString(),
      sent_at: iso(row.sent_at),
    })),
    audit: audit.map(({ before_state, after_state, user_email, created_at, ...row }) => ({
      ...row,
      actor: user_email,
      before: before_state,
      after: after_state,
      created_at: created_at.toISOString(),
    })),
  };
}
