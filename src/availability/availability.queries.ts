import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import type { BlackoutRange, BusyPeriod, EngineResource, HoursRow } from './engine/types.ts';

export interface BusinessRules {
  id: string;
  timezone: string;
  default_slot_interval_minutes: number;
  default_slot_duration_minutes: number;
  booking_window_days: number;
  min_notice_hours: number;
  min_capacity: number;
  max_capacity: number;
  auto_confirm_bookings: boolean;
  booking_mode: string;
  buffer_minutes: number;
}

export interface ServiceRules {
  id: string;
  duration_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  resource_ids: string[];
}

/** The rules of one business day, loaded in one round of queries (no per-resource queries). */
export interface DayContext {
  business: BusinessRules;
  hours: HoursRow[];
  blackouts: BlackoutRange[];
  resources: EngineResource[];
  service: ServiceRules | null;
}

export async function loadBusinessRules(
  executor: Executor,
  businessId: string,
): Promise<BusinessRules | undefined> {
  return executor
    .selectFrom('businesses')
    .select([
      'id',
      'timezone',
      'default_slot_interval_minutes',
      'default_slot_duration_minutes',
      'booking_window_days',
      'min_notice_hours',
      'min_capacity',
      'max_capacity',
      'auto_confirm_bookings',
      'booking_mode',
      'buffer_minutes',
    ])
    .where('id', '=', businessId)
    .executeTakeFirst();
}

export async function loadService(executor: Executor, businessId: string, serviceId: string) {
  return executor
    .selectFrom('services')
    .select(['id', 'duration_minutes', 'buffer_before_minutes', 'buffer_after_minutes', 'resource_ids'])
    .where('id', '=', serviceId)
    .where('business_id', '=', businessId)
    .where('is_active', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function loadDayContext(
  executor: Executor,
  businessId: string,
  date: string,
  serviceId?: string | null,
): Promise<DayContext | null> {
  const [business, hours, blackouts, resources, service] = await Promise.all([
    loadBusinessRules(executor, businessId),
    executor
      .selectFrom('operating_hours')
      .select(['day_of_week', 'is_open', 'open_time', 'close_time', 'last_booking_time'])
      .where('business_id', '=', businessId)
      .execute(),
    executor
      .selectFrom('blackout_dates')
      .select(['start_date', 'end_date'])
      .where('business_id', '=', businessId)
      .where('start_date', '<=', date)
      .where('end_date', '>=', date)
      .execute(),
    executor
      .selectFrom('resources')
      .select(['id', 'name', 'capacity_min', 'capacity_max', 'display_order', 'is_active'])
      .where('business_id', '=', businessId)
      .where('deleted_at', 'is', null)
      .where('is_active', '=', true)
      .execute(),
    serviceId ? loadService(executor, businessId, serviceId) : Promise.resolve(undefined),
  ]);
  if (!business) return null;
  return {
    business,
    hours: hours.map((row) => ({
      dayOfWeek: row.day_of_week,
      isOpen: row.is_open,
      openTime: row.open_time,
      closeTime: row.close_time,
      lastBookingTime: row.last_booking_time,
    })),
    blackouts: blackouts.map((row) => ({ startDate: row.start_date, endDate: row.end_date })),
    resources: resources.map((row) => ({
      id: row.id,
      name: row.name,
      capacityMin: row.capacity_min,
      capacityMax: row.capacity_max,
      displayOrder: row.display_order,
      isActive: row.is_active,
    })),
    service: service ?? null,
  };
}

/** Epoch milliseconds straight from the server: cheaper to read than timestamps, and unbounded ends become infinities. */
const epochMs = (bound: 'lower' | 'upper') =>
  sql<number>`extract(epoch from ${sql.raw(bound)}(during)) * 1000`.as(bound === 'lower' ? 'start' : 'end');

/** Active bookings and external blocks of the business that overlap `[start, end)`. */
export async function loadBusy(
  executor: Executor,
  businessId: string,
  span: { start: number; end: number },
  excludeBookingId?: string | null,
): Promise<BusyPeriod[]> {
  const range = sql<string>`tstzrange(${new Date(span.start)}, ${new Date(span.end)})`;
  const [bookings, blocks] = await Promise.all([
    executor
      .selectFrom('bookings')
      .select(['resource_id', epochMs('lower'), epochMs('upper')])
      .where('business_id', '=', businessId)
      .where('status', 'in', ['pending', 'confirmed', 'checked_in'])
      .where(sql<boolean>`during && ${range}`)
      .$if(Boolean(excludeBookingId), (qb) => qb.where('id', '<>', excludeBookingId!))
      .execute(),
    executor
      .selectFrom('resource_blocks')
      .select(['resource_id', epochMs('lower'), epochMs('upper')])
      .where('business_id', '=', businessId)
      .where(sql<boolean>`during && ${range}`)
      .execute(),
  ]);
  const busy: BusyPeriod[] = [];
  for (const row of bookings) busy.push(toBusy(row));
  for (const row of blocks) busy.push(toBusy(row));
  return busy;
}

function toBusy(row: { resource_id: string; start: number | null; end: number | null }): BusyPeriod {
  return {
    resourceId: row.resource_id,
    start: row.start ?? Number.NEGATIVE_INFINITY,
    end: row.end ?? Number.POSITIVE_INFINITY,
  };
}
