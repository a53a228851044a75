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
