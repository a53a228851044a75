import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../platform/db.ts';
import type { DB } from '../schema.ts';

export type StoredPeriod = Omit<Selectable<DB['service_periods']>, 'business_id' | 'position'>;
export type NewPeriod = Omit<Insertable<DB['service_periods']>, 'business_id' | 'position'>;

/** A period as it is read: by the settings routes and with a business's rules for the engine. */
export const PERIOD_COLUMNS = [
  'id',
  'name',
  'days_of_week',
  'start_time',
  'end_time',
  'last_start_time',
  'slot_interval_minutes',
  'turn_times',
  'resource_ids',
  'max_covers_per_slot',
  'max_bookings_per_slot',
] as const;

/** The periods of a business in the order they were given. */
export async function loadPeriods(executor: Executor, businessId: string): Promise<StoredPeriod[]> {
  return executor
    .selectFrom('service_periods')
    .select(PERIOD_COLUMNS)
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
