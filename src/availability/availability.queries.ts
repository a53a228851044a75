import { sql } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type {
  Arrival,
  BlackoutRange,
  BusyPeriod,
  EngineCombination,
  EngineResource,
  HoursRow,
} from '../engine/types.ts';
import type { Executor } from '../platform/db.ts';
import type { ServiceRequirement } from '../schema.ts';
import { toEngineHours } from '../settings/hours.queries.ts';
import { type PeriodRules, toPeriodRules } from '../settings/periods.queries.ts';
import {
  type BusinessProfile,
  type BusinessSettings,
  SETTINGS_COLUMNS,
} from '../settings/settings.queries.ts';

/**
 * The settings availability and bookings obey, and the venue's phone, which a party too large to
 * book online is told to call.
 */
export type BusinessRules = BusinessSettings & Pick<BusinessProfile, 'phone'> & { id: string };

export interface ServiceRules {
  id: string;
  duration_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  resource_ids: string[];
  /** A class: the seats one start of it has; null for a service each booking holds a resource of alone. */
  seats: number | null;
  /** The groups a booking of it holds resources of together; empty for one resource. */
  requirements: ServiceRequirement[];
}

/** The rules of one business day, loaded in one round of queries (no per-resource queries). */
export interface DayContext {
  business: BusinessRules;
  hours: HoursRow[];
  periods: PeriodRules[];
  blackouts: BlackoutRange[];
  resources: EngineResource[];
  /** Active combinations; the engine offers one only while all its resources are among `resources`. */
  combinations: EngineCombination[];
  service: ServiceRules | null;
}

/**
 * The day's rules in ONE statement: the business's settings, hours, service periods, blackouts on the date,
 * active resources and the service, each as a JSON column, so an uncached availability request
 * costs two round trips to the database (this, then the busy periods) whatever the data.
 */
export async function loadDayContext(
  executor: Executor,
  businessId: string,
  /** Blackouts ending before this date are left out (the engine picks the day's own). */
  blackoutsEndingFrom: string,
  serviceId?: string | null,
): Promise<DayContext | null> {
  const row = await executor
    .selectNoFrom((eb) => [
      jsonObjectFrom(
        eb
          .selectFrom('businesses')
          .select(['id', ...SETTINGS_COLUMNS, 'phone'])
          .where('id', '=', businessId),
      ).as('business'),
      jsonArrayFrom(
        eb
          .selectFrom('operating_hours')
          .select(['day_of_week', 'is_open', 'open_time', 'close_time', 'last_booking_time'])
          .where('business_id', '=', businessId),
      ).as('hours'),
      jsonArrayFrom(
        eb
          .selectFrom('service_periods')
          .selectAll()
          .where('business_id', '=', businessId)
          .orderBy('position'),
      ).as('periods'),
      jsonArrayFrom(
        eb
          .selectFrom('blackout_dates')
          .select(['start_date', 'end_date', 'reason'])
          .where('business_id', '=', businessId)
          .where('end_date', '>=', blackoutsEndingFrom),
      ).as('blackouts'),
      jsonArrayFrom(
        eb
          .selectFrom('resources')
          .select(['id', 'name', 'capacity_min', 'capacity_max', 'display_order', 'is_active'])
          .where('business_id', '=', businessId)
          .where('deleted_at', 'is', null)
          .where('is_active', '=', true),
      ).as('resources'),
      jsonArrayFrom(
        eb
          .selectFrom('combinations')
          .select(['id', 'name', 'resource_ids', 'capacity_min', 'capacity_max'])
          .where('business_id', '=', businessId)
          .where('is_active', '=', true),
      ).as('combinations'),
      jsonObjectFrom(
        eb
          .selectFrom('services')
          .select([
            'id',
            'duration_minutes',
            'buffer_before_minutes',
            'buffer_after_minutes',
            'resource_ids',
            'seats',
            'requirements',
          ])
          .where('id', '=', serviceId ?? null)
          .where('business_id', '=', businessId)
          .where('is_active', '=', true)
          .where('deleted_at', 'is', null),
      ).as('service'),
    ])
    .executeTakeFirstOrThrow();
  if (!row.business) return null;
  return {
    business: row.business as BusinessRules,
    hours: row.hours.map(toEngineHours),
    periods: row.periods.map(toPeriodRules),
    blackouts: row.blackouts.map((blackout) => ({
      startDate: blackout.start_date,
      endDate: blackout.end_date,
      reason: blackout.reason,
    })),
    resources: row.resources.map((resource) => ({
      id: resource.id,
      name: resource.name,
      capacityMin: resource.capacity_min,
      capacityMax: resource.capacity_max,
      displayOrder: resource.display_order,
      isActive: resource.is_active,
    })),
    combinations: row.combinations.map((combination) => ({
      id: combination.id,
      name: combination.name,
      resourceIds: combination.resource_ids,
      capacityMin: combination.capacity_min,
      capacityMax: combination.capacity_max,
    })),
    service: row.service,
  };
}

/** What a span of time holds: the periods resources are busy, and the starts pacing counts. */
export interface BusySpan {
  busy: BusyPeriod[];
  /** The active bookings among `busy`: their starts and parties. */
  arrivals: Arrival[];
}

/**
 * Active bookings and external blocks of the business that overlap `[start, end)`, in one query
 * (`slotwise_busy`, one scan of the bookings' index of held times, as a booking's holds copy its
 * row): a booking is a busy period of each resource it holds (a combined booking's joined tables
 * too) and an arrival at its start, a class's booking also its seats of the class, and a period
 * without a booking is a block. Bounds come as
 * epoch milliseconds straight from the server, cheaper to read than timestamps; unbounded ends
 * become infinities.
 */
export async function loadBusy(
  executor: Executor,
  businessId: string,
  span: { start: number; end: number },
): Promise<BusySpan> {
  const { rows } = await sql<{
    resource_id: string;
    joined: string[] | null;
    start_ms: number | null;
    end_ms: number | null;
    party_size: number | null;
    starts_ms: number | null;
    class_of: string | null;
  }>`SELECT * FROM slotwise_busy(${businessId}, ${new Date(span.start)}, ${new Date(span.end)})`.execute(
    executor,
  );
  const busy: BusyPeriod[] = [];
  const arrivals: Arrival[] = [];
  for (const row of rows) {
    const start = row.start_ms ?? Number.NEGATIVE_INFINITY;
    const end = row.end_ms ?? Number.POSITIVE_INFINITY;
    // Only a booking has a party.
    const kind = row.party_size === null ? 'block' : 'booking';
    if (row.class_of !== null) {
      const seatsOf = { serviceId: row.class_of, start: row.starts_ms!, seats: row.party_size! };
      busy.push({ resourceId: row.resource_id, start, end, kind, seatsOf });
    } else busy.push({ resourceId: row.resource_id, start, end, kind });
    for (const joined of row.joined ?? []) busy.push({ resourceId: joined, start, end, kind });
    if (row.party_size !== null) arrivals.push({ start: row.starts_ms!, partySize: row.party_size });
  }
  return { busy, arrivals };
}
