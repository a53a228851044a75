import { heldSpan } from '../engine/index.ts';
import { onlinePartyLimit } from '../engine/party.ts';
import type {
  Arrival,
  BusyPeriod,
  DayRules,
  StartCheck,
  StartCheckFailure,
  TurnTime,
} from '../engine/types.ts';
import type { Executor } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import type { TurnTime as TurnTimeRow } from '../schema.ts';
import { type BusinessRules, type DayContext, loadBusy, loadDayContext } from './availability.queries.ts';

export interface DayQuery {
  date: string;
  partySize: number;
  serviceId?: string | null;
  resourceId?: string | null;
  /**
   * The booking's length when the caller sets it (dynamic mode); else the service's, or the turn
   * time of the party size, or the business's default.
   */
  durationMinutes?: number | null;
}

export interface LoadedDay extends DayContext {
  busy: BusyPeriod[];
  arrivals: Arrival[];
}

const toTurnTime = (stored: TurnTimeRow): TurnTime => ({
  minParty: stored.min_party,
  maxParty: stored.max_party,
  durationMinutes: stored.duration_minutes,
});

/** The engine's input for one day: the business's settings, the service's length and buffers, the busy periods. */
export function toDayRules(ctx: LoadedDay, query: DayQuery, now: number): DayRules {
  const { business, service } = ctx;
  const lengthByParty = query.durationMinutes == null && !service;
  return {
    date: query.date,
    timezone: business.timezone,
    now,
    hours: ctx.hours,
    blackouts: ctx.blackouts,
    intervalMinutes: business.default_slot_interval_minutes,
    durationMinutes:
      query.durationMinutes ?? service?.duration_minutes ?? business.default_slot_duration_minutes,
    turnTimes: lengthByParty ? business.turn_times.map(toTurnTime) : [],
    periods: ctx.periods.map((period) => ({
      ...period,
      // A service's or the caller's length is the booking's in every period, as it is outside them.
      turnTimes: lengthByParty ? (period.turnTimes?.map(toTurnTime) ?? null) : [],
    })),
    bufferBeforeMinutes: service?.buffer_before_minutes ?? 0,
    bufferAfterMinutes: business.buffer_minutes + (service?.buffer_after_minutes ?? 0),
    minNoticeHours: business.min_notice_hours,
    bookingWindowDays: business.booking_window_days,
    partySize: query.partySize,
    resources: ctx.resources,
    allowedResourceIds: service?.resource_ids ?? null,
    resourceId: query.resourceId ?? null,
    combinations: ctx.combinations,
    busy: ctx.busy,
    arrivals: ctx.arrivals,
    class: service?.seats ? { serviceId: service.id, seats: service.seats } : null,
    requirements: service?.requirements.map((group) => ({
      name: group.name,
      resourceIds: group.resource_ids,
      count: group.count,
    })),
  };
}

/** What the caller asked about exists: the business (404), the service and resource (422). */
export function assertAsked(
  ctx: DayContext | null,
  query: Pick<DayQuery, 'serviceId' | 'resourceId'>,
): DayContext {
  if (!ctx) throw notFound('business');
  if (query.serviceId && !ctx.service)
    throw invalidField('service_id', 'is not an active service of this business');
  if (query.resourceId && !ctx.resources.some((r) => r.id === query.resourceId)) {
    throw invalidField('resource_id', 'is not an active resource of this business');
  }
  return ctx;
}

/**
 * Loads a day and checks what the caller asked for exists: the business (404), the service and
 * resource (422). Busy periods are loaded second, for exactly the period the day's slots can
 * hold (none on a closed day), which keeps the rows read to one day's bookings. `rules` are the
 * business's rules when the caller already has them (availability caches them between changes).
 */
export async function loadDay(
  executor: Executor,
  businessId: string,
  query: DayQuery,
  now: number,
  rules?: DayContext | null,
): Promise<LoadedDay> {
  const ctx = assertAsked(
    rules === undefined ? await loadDayContext(executor, businessId, query.date, query.serviceId) : rules,
    query,
  );
  const span = heldSpan(toDayRules({ ...ctx, busy: [], arrivals: [] }, query, now));
  const held = span ? await loadBusy(executor, businessId, span) : { busy: [], arrivals: [] };
  return { ...ctx, ...held };
}

/**
 * Who books the party: a guest `online` (the hosted page, a widget, the public and dynamic API)
 * or the venue's `staff`, whom the online limit does not bind.
 */
export type PartyChannel = 'online' | 'staff';

type PartyLimits = Pick<BusinessRules, 'min_capacity' | 'max_capacity' | 'max_online_party_size' | 'phone'>;

/**
 * Party size must fit the business's own limits before any resource is looked at; online, it must
 * also fit the online limit, and a larger party is told how to reach the venue instead.
 */
export function assertPartySize(business: PartyLimits, partySize: number, channel: PartyChannel): void {
  const { min_capacity, max_capacity } = business;
  if (partySize < min_capacity || partySize > max_capacity) {
    throw invalidField('capacity', `must be between ${min_capacity} and ${max_capacity} for this business`);
  }
  const limit = onlinePartyLimit(business);
  if (channel === 'online' && partySize > limit) {
    const reach = business.phone ? `please call the venue at ${business.phone}` : 'please contact the venue';
    throw new AppError(
      'party_too_large_online',
      `parties of more than ${limit} cannot book online: ${reach} to book for ${partySize}`,
    );
  }
}

/** The dynamic surface serves only businesses that book in dynamic mode. */
export function assertDynamicMode(business: Pick<BusinessRules, 'booking_mode'>): void {
  if (business.booking_mode !== 'dynamic') {
    throw new AppError(
      'bad_request',
      'this business books on its slot grid (booking_mode scheduled): use /v1/availability and /v1/bookings',
    );
  }
}

const FAILURES: Record<StartCheckFailure, (message: string) => AppError> = {
  outside_operating_hours: (message) => new AppError('outside_operating_hours', message),
  off_grid: (message) => invalidField('start_time', message),
  outside_booking_window: (message) => new AppError('outside_booking_window', message),
  slot_unavailable: (message) => new AppError('slot_unavailable', message),
};

/** The contract's error for a start the engine refused. */
export function startFailure(check: Extract<StartCheck, { ok: false }>): AppError {
  return FAILURES[check.reason](check.message);
}
