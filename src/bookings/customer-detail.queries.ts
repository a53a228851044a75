import type { Executor } from '../platform/db.ts';
import { selectBookingViews } from './bookings.queries.ts';

const RECENT_BOOKINGS_LIMIT = 20;

export function recentBookingsOf(executor: Executor, businessId: string, customerId: string) {
  return selectBookingViews(executor)
    .where('v.business_id', '=', businessId)
    .where('v.customer_id', '=', customerId)
    .orderBy('v.booking_date', 'desc')
    .orderBy('v.start_time', 'desc')
    .orderBy('v.id', 'desc')
    .limit(RECENT_BOOKINGS_LIMIT)
    .execute();
}

/** Every booking of the customer, newest first, as the API shows it: what an export holds. */
export function allBookingsOf(executor: Executor, businessId: string, customerId: string) {
  return selectBookingViews(executor)
    .where('v.business_id', '=', businessId)
    .where('v.customer_id', '=', customerId)
    .orderBy('v.booking_date', 'desc')
    .orderBy('v.start_time', 'desc')
    .orderBy('v.id', 'desc')
    .execute();
}

export function waitlistEntriesOf(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('waitlist_entries')
    .select([
      'id',
      'preferred_date',
      'capacity',
      'guest_first_name',
      'guest_last_name',
      'guest_email',
      'notes',
      'created_at',
    ])
    .where('business_id', '=', businessId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** The messages written about the customer's bookings and waitlist entries, as rendered. */
export function messagesOf(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('message_outbox as m')
    .select([
      'm.id',
      'm.type',
      'm.channel',
      'm.to_address',
      'm.subject',
      'm.body_text',
      'm.created_at',
      'm.sent_at',
    ])
    .where('m.business_id', '=', businessId)
    .where((eb) =>
      eb.or([
        eb(
          'm.booking_id',
          'in',
          eb
            .selectFrom('bookings')
            .select('id')
            .where('business_id', '=', businessId)
            .where('customer_id', '=', customerId),
        ),
        eb(
          'm.waitlist_entry_id',
          'in',
          eb
            .selectFrom('waitlist_entries')
            .select('id')
            .where('business_id', '=', businessId)
            .where('customer_id', '=', customerId),
        ),
      ]),
    )
    .orderBy('m.created_at')
    .execute();
}

/** The audit rows about the customer and their bookings, oldest first. */
export function auditRowsOf(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('audit_logs')
    .select(['action', 'entity_type', 'entity_id', 'user_email', 'before_state', 'after_state', 'created_at'])
    .where('business_id', '=', businessId)
    .where((eb) =>
      eb.or([
        eb('entity_id', '=', customerId),
        eb(
          'entity_id',
          'in',
          eb
            .selectFrom('bookings')
            .select('id')
            .where('business_id', '=', businessId)
            .where('customer_id', '=', customerId),
        ),
      ]),
    )
    .orderBy('seq')
    .execute();
}
