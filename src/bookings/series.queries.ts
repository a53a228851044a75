import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import type { BookingView } from './bookings.view.ts';

/**
 * Runs `work` so that its failure undoes its own writes alone and the transaction goes on: an
 * occurrence of a series that cannot be placed leaves the others placed.
 */
export async function inSavepoint<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
  await sql`SAVEPOINT occurrence`.execute(tx);
  try {
    const result = await work();
    await sql`RELEASE SAVEPOINT occurrence`.execute(tx);
    return result;
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT occurrence`.execute(tx);
    throw error;
  }
}

/** The series' occurrences, in date order. */
export const seriesBookings = (executor: Executor, businessId: string, seriesId: string) =>
  executor
    .selectFrom('bookings')
    .select(['id', 'status', 'booking_date'])
    .where('business_id', '=', businessId)
    .where('series_id', '=', seriesId)
    .orderBy('booking_date')
    .orderBy('start_time')
    .execute();

/** The series' bookings as the API shows them, in date order. */
export const seriesBookingViews = (executor: Executor, businessId: string, seriesId: string) =>
  executor
    .selectFrom('booking_views as v')
    .select('v.view')
    .$narrowType<{ view: BookingView }>()
    .where('v.business_id', '=', businessId)
    .where('v.id', 'in', (query) =>
      query
        .selectFrom('bookings')
        .select('id')
        .where('business_id', '=', businessId)
        .where('series_id', '=', seriesId),
    )
    .orderBy('v.booking_date')
    .orderBy('v.start_time')
    .execute();
