import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../platform/db.ts';
import type { DB, TurnTime } from '../schema.ts';

export type StoredPeriod = Selectable<DB['service_periods']>;
export type NewPeriod = Omit<Insertable<DB['service_periods']>, 'business_id' | 'position'>;

/** A service period as the day's rules carry it: turn times as stored, the day's choice of length decides whether they apply. */
export interface PeriodRules {
  id: string;
  name: string;
  daysOfWeek: number[];
  startTime: string;
  endTime: string;
  lastStartTime: string | null;
  intervalMinutes: number | null;
  turnTimes: TurnTime[] | null;
  resourceIds: string[];
  maxCoversPerSlot: number | null;
  maxBookingsPerSlot: number | null;
}

/** A period as the day's rules carry it, from its stored row. */
export const toPeriodRules = (period: StoredPeriod): PeriodRules => ({
  id: period.id,
  name: period.name,
  daysOfWeek: period.days_of_week,
  startTime: period.start_time,
  endTime: period.end_time,
  lastStartTime: period.last_start_time,
  intervalMinutes: period.slot_interval_minutes,
  turnTimes: period.turn_times,
  resourceIds: period.resource_ids,
  maxCoversPerSlot: period.max_covers_per_slot,
  maxBookingsPerSlot: period.max_bookings_per_slot,
});

/** The periods of a business in the order they were given. */
export async function loadPeriods(executor: Executor, businessId: string): Promise<StoredPeriod[]> {
  return executor
    .selectFrom('service_periods')
    .selectAll()
    .where('business_id', '=', businessId)
    .orderBy('position')
    .execute();
}

/** Replaces every period of the business with `periods`, in their order. */
export async function replacePeriods(
  executor: Executor,
  businessId: string,
  periods: readonly NewPeriod[],
): Promise<void> {
  await executor.deleteFrom('service_periods').where('business_id', '=', businessId).execute();
  if (periods.length === 0) return;
  await executor
    .insertInto('service_periods')
    .values(periods.map((period, position) => ({ business_id: businessId, position, ...period })))
    .execute();
}
