import type { HoursRow } from '../engine/index.ts';
import type { Executor } from '../platform/db.ts';
import type { DB } from '../schema.ts';

export type StoredHoursRow = Omit<DB['operating_hours'], 'business_id'>;

/** A day's hours as the engine reads them, from its stored row. */
export const toEngineHours = (row: StoredHoursRow): HoursRow => ({
  dayOfWeek: row.day_of_week,
  isOpen: row.is_open,
  openTime: row.open_time,
  closeTime: row.close_time,
  lastBookingTime: row.last_booking_time,
});

/** The stored rows of a business (a day without a row is closed), ordered by day. */
export async function loadHours(executor: Executor, businessId: string): Promise<StoredHoursRow[]> {
  return executor
    .selectFrom('operating_hours')
    .select(['day_of_week', 'is_open', 'open_time', 'close_time', 'last_booking_time'])
    .where('business_id', '=', businessId)
    .orderBy('day_of_week')
    .execute();
}

/** Writes all seven days, replacing what was stored. */
export async function upsertWeek(
  executor: Executor,
  businessId: string,
  week: StoredHoursRow[],
): Promise<void> {
  await executor
    .insertInto('operating_hours')
    .values(week.map((row) => ({ business_id: businessId, ...row })))
    .onConflict((oc) =>
      oc.columns(['business_id', 'day_of_week']).doUpdateSet((eb) => ({
        is_open: eb.ref('excluded.is_open'),
        open_time: eb.ref('excluded.open_time'),
        close_time: eb.ref('excluded.close_time'),
        last_booking_time: eb.ref('excluded.last_booking_time'),
      })),
    )
    .execute();
}
