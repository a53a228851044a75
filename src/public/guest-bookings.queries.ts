import { selectBookingViews } from '../bookings/bookings.queries.ts';
import { itsCustomer } from '../customers/customers.queries.ts';
import type { Executor } from '../platform/db.ts';

/**
 * Bookings as the API shows them, with what a guest's phone is checked against, the business a
 * guest sees and the cut-offs a guest acts under.
 */
const selectGuestBookings = (executor: Executor) =>
  selectBookingViews(executor)
    .innerJoin('businesses as biz', 'biz.id', 'v.business_id')
    .innerJoin('customers as c', (join) => join.on(itsCustomer('v')))
    .select([
      'c.phone_normalized as customer_phone_normalized',
      'biz.name as business_name',
      'biz.slug as business_slug',
      'biz.timezone as business_timezone',
      'biz.cancellation_cutoff_hours',
      'biz.guest_change_cutoff_hours',
    ]);

/** The bookings with a confirmation code (stored in upper case), of one business or of any. */
export const findBookingsByCode = (executor: Executor, code: string, businessId: string | undefined) => {
  let query = selectGuestBookings(executor).where('v.confirmation_code', '=', code.toUpperCase());
  if (businessId !== undefined) query = query.where('v.business_id', '=', businessId);
  return query.execute();
};

/** One booking of a business, as a guest acts on it. */
export const findGuestBookingById = (executor: Executor, businessId: string, bookingId: string) =>
  selectGuestBookings(executor)
    .where('v.business_id', '=', businessId)
    .where('v.id', '=', bookingId)
    .executeTakeFirst();

export type GuestBookingRow = Awaited<ReturnType<typeof findBookingsByCode>>[number];
