import { selectBookingRows } from '../bookings/bookings.view.ts';
import type { Executor } from '../platform/db.ts';

/**
 * The bookings with a confirmation code (stored in upper case), of one business or of any, with
 * what a guest's email or phone is checked against and the business a guest sees.
 */
export const findBookingsByCode = (executor: Executor, code: string, businessId: string | undefined) => {
  let query = selectBookingRows(executor)
    .innerJoin('businesses as biz', 'biz.id', 'b.business_id')
    .select([
      'c.phone_normalized as customer_phone_normalized',
      'biz.name as business_name',
      'biz.slug as business_slug',
      'biz.timezone as business_timezone',
      'biz.cancellation_cutoff_hours',
    ])
    .where('b.confirmation_code', '=', code.toUpperCase());
  if (businessId !== undefined) query = query.where('b.business_id', '=', businessId);
  return query.execute();
};

export type GuestBookingRow = Awaited<ReturnType<typeof findBookingsByCode>>[number];
