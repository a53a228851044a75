import { Type } from 'typebox';
import type { Executor } from '../platform/db.ts';
import { hhmm, Nullable, TimeString } from '../platform/schemas.ts';
import type { DB } from '../schema.ts';

export type StoredHoursRow = Omit<DB['operating_hours'], 'business_id'>;

export const HoursRowView = Type.Object({
  day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday ... 6 = Saturday' }),
  is_open: Type.Boolean(),
  open_time: Nullable(TimeString),
  close_time: Nullable(TimeString),
  last_booking_time: Nullable(TimeString),
});

export interface HoursRowWire {
  day_of_week: number;
  is_open: boolean;
  open_time: string | null;
  close_time: string | null;
  last_booking_time: string | null;
}

/** The stored rows of a business (a day without a row is closed), ordered by day. */
export async function loadHours(executor: Executor, businessId: string): Promise<StoredHoursRow[]> {
  return executor
    .selectFrom('operating_hours')
    .select(['day_of_week', 'is_open', 'open_time', 'close_time', 'last_booking_time'])
    .where('business_id', '=', businessId)
    .orderBy('day_of_week')
    .execute();
}

export const loadWeek = async (executor: Executor, businessId: string) =>
  toWeek(await loadHours(executor, businessId));

/** Writes all seven days, replacing what was stored. */
export async function upsertWeek(
  executor: Executor,
  businessId: string,
  week: HoursRowWire[],
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

/** Always seven rows, Sunday first: a missing day is closed, so a new business is closed all week. */
export function toWeek(rows: StoredHoursRow[]): HoursRowWire[] {
  return Array.from({ length: 7 }, (_, day) => {
    const row = rows.find((r) => r.day_of_week === day);
    if (!row?.is_open) {
      return { day_of_week: day, is_open: false, open_time: null, close_time: null, last_booking_time: null };
    }
    return {
      day_of_week: day,
      is_open: true,
      open_time: row.open_time && hhmm(row.open_time),
      close_time: row.close_time && hhmm(row.close_time),
      last_booking_time: row.last_booking_time && hhmm(row.last_booking_time),
    };
  });
}
