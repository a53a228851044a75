import type { Executor } from '../platform/db.ts';
import { selectBookingRows } from './bookings.view.ts';

const RECENT_BOOKINGS_LIMIT = 20;

export function recentBookingsOf(executor: Executor, businessId: string, customerId: string) {
  return selectBookingRows(executor)
    .where('b.business_id', '=', businessId)
    .where('b.customer_id', '=', customerId)
    .orderBy('b.booking_date', 'desc')
    .orderBy('b.start_time', 'desc')
    .orderBy('b.id', 'desc')
    .limit(RECENT_BOOKINGS_LIMIT)
    .execute();
}
