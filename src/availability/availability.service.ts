import { LRUCache } from 'lru-cache';
import { assertFeature, type Subscriber } from '../billing/subscription.service.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db, Executor } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import { type BusinessRules, type DayContext, loadBusy, loadDayContext } from './availability.queries.ts';
import { addDays, checkStart, daySlots, heldSpan, todayIn } from './engine/index.ts';
import type {
  BusyPeriod,
  DayRules,
  DaySlots,
  EngineResource,
  StartCheck,
  StartCheckFailure,
} from './engine/types.ts';

export interface DayQuery {
  date: string;
  partySize: number;
  serviceId?: string | null;
  resourceId?: string | null;
  /** The booking's length when the caller sets it (dynamic mode); else the service's or the business's default. */
  durationMinutes?: number | null;
}

export interface LoadedDay extends DayContext {
  busy: BusyPeriod[];
}

/** The engine's input for one day: the business's settings, the service's length and buffers, the busy periods. */
export function toDayRules(ctx: LoadedDay, query: DayQuery, now: number): DayRules {
  const { business, service } = ctx;
  return {
    date: query.date,
    timezone: business.timezone,
    now,
    hours: ctx.hours,
    blackouts: ctx.blackouts,
    intervalMinutes: business.default_slot_interval_minutes,
    durationMinutes:
      query.durationMinutes ?? service?.duration_minutes ?? business.default_slot_duration_minutes,
    bufferBeforeMinutes: service?.buffer_before_minutes ?? 0,
    bufferAfterMinutes: business.buffer_minutes + (service?.buffer_after_minutes ?? 0),
    minNoticeHours: business.min_notice_hours,
    bookingWindowDays: business.booking_window_days,
    partySize: query.partySize,
    resources: ctx.resources,
    allowedResourceIds: service?.resource_ids ?? null,
    resourceId: query.resourceId ?? null,
    busy: ctx.busy,
  };
}

/** What the caller asked about exists: the business (404), the service and resource (422). */
function assertAsked(ctx: DayContext | null, query: Pick<DayQuery, 'serviceId' | 'resourceId'>): DayContext {
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
  const span = heldSpan(toDayRules({ ...ctx, busy: [] }, query, now));
  const busy = span ? await loadBusy(executor, businessId, span) : [];
  return { ...ctx, busy };
}

/** Party size must fit the business's own limits before any resource is looked at. */
export function assertPartySize(
  limits: Pick<BusinessRules, 'min_capacity' | 'max_capacity'>,
  partySize: number,
): void {
  const { min_capacity, max_capacity } = limits;
  if (partySize < min_capacity || partySize > max_capacity) {
    throw invalidField('capacity', `must be between ${min_capacity} and ${max_capacity} for this business`);
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

/** Why a day lists no slots: the answer's `reason`, null while it lists some. */
export type NoSlotsReason =
  | 'past'
  | 'closed'
  | 'blackout'
  | 'outside_booking_window'
  /** Per-resource view only: there are starts, but no resource that fits the party is free at any. */
  | 'no_free_resource';

const DAY_MS = 86_400_000;

/**
 * Why the engine found no start on a day, from the rules it was given. A day before today is past
 * whatever its hours. An open day whose grid is empty is either all inside notice (or already
 * gone today) or has hours too short for one booking: asking the engine again as if it were two
 * days earlier, without notice, tells the two apart.
 */
export function whyNoStarts(rules: DayRules, day: DaySlots): Exclude<NoSlotsReason, 'no_free_resource'> {
  if (rules.date < todayIn(rules.timezone, rules.now)) return 'past';
  if (day.closure !== null) return day.closure;
  const earlier = daySlots({
    ...rules,
    now: Date.parse(`${rules.date}T00:00:00Z`) - 2 * DAY_MS,
    minNoticeHours: 0,
    bookingWindowDays: 7,
    busy: [],
  });
  return earlier.slots.length > 0 ? 'outside_booking_window' : 'closed';
}

/** One availability question: a day of a business for a party, in one of the two views. */
export interface AvailabilityQuery {
  businessId: string;
  date: string;
  partySize: number;
  serviceId?: string;
  resourceId?: string;
  /** One entry per free (time, resource) pair instead of one per time. */
  perResource: boolean;
}

export type SlotView =
  | { time: string; available: boolean; remaining_resources: number }
  | { time: string; available: true; resource_id: string; resource_name: string };

export interface DayAnswer {
  slots: SlotView[];
  reason: NoSlotsReason | null;
}

/** One start at any minute and of any length (dynamic mode): a point check, not a grid. */
/** Many days of a business for a party: what a booking calendar greys out. */
export interface DaysQuery {
  businessId: string;
  /** Default: today in the business's zone. */
  from?: string;
  /** Default: 30 days after `from`. */
  to?: string;
  partySize: number;
  serviceId?: string;
  resourceId?: string;
}

/** Why a day offers nothing: the month view's `reason`. A day before today is outside the window. */
export type DayReason = 'closed' | 'blackout' | 'fully_booked' | 'outside_booking_window';

export interface DaySummary {
  date: string;
  available: boolean;
  /** The first start with a free resource. */
  first_time: string | null;
  /** Starts with a free resource. */
  slot_count: number;
  reason: DayReason | null;
}

export interface StartQuery {
  businessId: string;
  date: string;
  time: string;
  partySize: number;
  durationMinutes: number;
}

/** The engine's refusals of a start off the grid: a point check answers them instead of throwing. */
export type StartRefusal = Exclude<StartCheckFailure, 'off_grid'>;

export interface StartAnswer {
  available: boolean;
  remaining_resources: number;
  /** Names of the free active resources that fit the party, in display order (then id). */
  free_resources: string[];
  reason: StartRefusal | null;
}

/** The longest a computed day or a business's rules are served, even when nothing changes, so time moving on is noticed. */
const CACHE_MS = 30_000;
/** The month view answers up to two months at once; a month when no end is given. */
const MAX_DAYS = 62;
const DEFAULT_DAYS = 31;
const HOUR_MS = 3_600_000;

/**
 * What the caches may hold, in estimated bytes of the values (not entries: one day of a large
 * business in the per-resource view is a thousand times the size of a closed day).
 */
export interface CacheLimits {
  daysBytes: number;
  rulesBytes: number;
}

const DEFAULT_LIMITS: CacheLimits = { daysBytes: 16 * 1024 * 1024, rulesBytes: 4 * 1024 * 1024 };

/**
 * Generous estimates of the heap bytes of cached values (a slot's object and its strings, a
 * resource, an hours or blackout row, an entry's own overhead). Only the proportions matter for
 * eviction; the limits above were set by measuring the server's growth (`bench/memory.ts`).
 */
const ENTRY_BYTES = 300;
const SLOT_BYTES = 140;
const RESOURCE_BYTES = 260;
const ROW_BYTES = 120;
const BUSY_BYTES = 100;
const SUMMARY_BYTES = 160;

/**
 * A computed day of the slot grid, or a loaded day (its rules, shared with the rules cache, and
 * its busy periods) that point checks of any start on it read.
 */
type CachedDay = { version: string } & (
  | { answer: DayAnswer; loaded?: undefined; summaries?: undefined }
  | { loaded: LoadedDay; answer?: undefined; summaries?: undefined }
  | { summaries: DaySummary[]; answer?: undefined; loaded?: undefined }
);

interface CachedRules {
  version: string;
  rules: DayContext;
}

/**
 * The availability use case, with the two caches it owns. A computed day is served only while its
 * business's change version is unchanged and until its first slot falls inside minimum notice, so
 * a cached answer never shows a slot a fresh computation would not. A business's rules (settings,
 * hours, blackouts, resources, a service) are cached apart: bookings do not change them, so they
 * outlive the days a booking drops. A loaded day (a day's rules and busy periods, which point
 * checks of dynamic mode read for any start) lives beside the computed days under the same
 * version; it does not depend on the time, so only a change or its TTL ends it. Both caches are
 * bounded by estimated size and expire on the app's clock; what does not exist (an unknown
 * business or service) is never cached, so questions about made-up ids cannot crowd out real ones.
 */
export class AvailabilityService {
  private readonly db: Db;
  private readonly changes: ChangeFeed;
  private readonly clock: Clock;
  private readonly days: LRUCache<string, CachedDay>;
  private readonly rules: LRUCache<string, CachedRules>;
  /** Lookups of each cache that found a current value, and those that did not (metrics). */
  readonly lookups = { days: { hits: 0, misses: 0 }, rules: { hits: 0, misses: 0 } };

  constructor(db: Db, changes: ChangeFeed, clock: Clock, limits: CacheLimits = DEFAULT_LIMITS) {
    this.db = db;
    this.changes = changes;
    this.clock = clock;
    this.days = new LRUCache<string, CachedDay>({
      maxSize: limits.daysBytes,
      sizeCalculation: (entry, key) =>
        ENTRY_BYTES +
        key.length * 2 +
        (entry.answer
          ? entry.answer.slots.length * SLOT_BYTES
          : entry.loaded
            ? entry.loaded.busy.length * BUSY_BYTES
            : entry.summaries.length * SUMMARY_BYTES),
      ttl: CACHE_MS,
      perf: clock,
    });
    this.rules = new LRUCache<string, CachedRules>({
      maxSize: limits.rulesBytes,
      sizeCalculation: ({ rules }, key) =>
        ENTRY_BYTES +
        key.length * 2 +
        rules.resources.length * RESOURCE_BYTES +
        (rules.hours.length + rules.blackouts.length) * ROW_BYTES,
      ttl: CACHE_MS,
      perf: clock,
    });
  }

  /** The slots of one day, and why there are none when there are none. */
  async day(query: AvailabilityQuery): Promise<DayAnswer> {
    const now = this.clock.now();
    const version = this.changes.dayVersion(query.businessId, query.date);
    const key = [
      query.businessId,
      query.date,
      query.partySize,
      query.serviceId,
      query.resourceId,
      query.perResource,
    ].join('|');
    const hit = this.days.get(key);
    if (this.found('days', hit?.answer !== undefined && hit.version === version)) return hit!.answer!;
    const ctx = await loadDay(
      this.db,
      query.businessId,
      query,
      now,
      await this.rulesOf(query.businessId, query.serviceId, now),
    );
    assertPartySize(ctx.business, query.partySize);
    const rules = toDayRules(ctx, query, now);
    const found = daySlots(rules);
    const slots = query.perResource ? perResourceViews(ctx, found) : slotViews(found);
    const answer: DayAnswer = {
      slots,
      reason:
        found.slots.length === 0 ? whyNoStarts(rules, found) : slots.length === 0 ? 'no_free_resource' : null,
    };
    if (version) {
      const first = found.slots[0];
      const leavesNotice = first ? first.start - ctx.business.min_notice_hours * HOUR_MS - now : CACHE_MS;
      if (leavesNotice > 0)
        this.days.set(key, { version, answer }, { ttl: Math.min(CACHE_MS, leavesNotice) });
    }
    return answer;
  }

  /**
   * Whether a booking may start at `time` (any minute) for `durationMinutes` (dynamic mode), and
   * which resources are free for it. Every rule of a booking applies but the grid; a refusal of
   * the engine is an answer (`available: false` with its reason), not an error. The day's rules
   * and busy periods are cached under the business's change version, so a deactivated resource or
   * a new booking counts at once.
   */
  async start(query: StartQuery): Promise<StartAnswer> {
    const now = this.clock.now();
    const dayQuery: DayQuery = {
      date: query.date,
      partySize: query.partySize,
      durationMinutes: query.durationMinutes,
    };
    const ctx = await this.loadedDay(query.businessId, dayQuery, now);
    assertDynamicMode(ctx.business);
    assertPartySize(ctx.business, query.partySize);
    const check = checkStart(toDayRules(ctx, dayQuery, now), query.time, {
      onGrid: false,
      ignoreNoticeAndWindow: false,
    });
    if (!check.ok) {
      // Off the grid cannot come: the start may take any minute.
      return {
        available: false,
        remaining_resources: 0,
        free_resources: [],
        reason: check.reason as StartRefusal,
      };
    }
    const free = new Set(check.freeResourceIds);
    const names = ctx.resources
      .filter((resource) => free.has(resource.id))
      .sort(inDisplayOrder)
      .map((resource) => resource.name);
    return { available: true, remaining_resources: names.length, free_resources: names, reason: null };
  }

  /**
   * A summary of each day from `from` to `to`: whether it has a free start, the first one, how
   * many, and why not. The busy periods of the whole range come in one query; the answer is
   * cached like a computed day (until a change, its TTL, or its first start reaching notice).
   */
  async daysOf(query: DaysQuery): Promise<{ from: string; to: string; days: DaySummary[] }> {
    const now = this.clock.now();
    const ctx = assertAsked(await this.rulesOf(query.businessId, query.serviceId, now), query);
    const from = query.from ?? todayIn(ctx.business.timezone, now);
    const to = query.to ?? addDays(from, DEFAULT_DAYS - 1);
    if (to < from) throw invalidField('to', `must not be before from (${from})`);
    if (addDays(from, MAX_DAYS - 1) < to)
      throw invalidField('to', `at most ${MAX_DAYS} days may be asked at once`);
    assertPartySize(ctx.business, query.partySize);
    const version = this.changes.businessVersion(query.businessId);
    const key = [query.businessId, from, to, query.partySize, query.serviceId, query.resourceId, 'days'].join(
      '|',
    );
    const hit = this.days.get(key);
    if (this.found('days', hit?.summaries !== undefined && hit.version === version)) {
      return { from, to, days: hit!.summaries! };
    }
    const dates: string[] = [];
    for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date);
    const dayQuery = (date: string): DayQuery => ({ ...query, date });
    const spans = dates.map((date) => heldSpan(toDayRules({ ...ctx, busy: [] }, dayQuery(date), now)));
    let spanStart = Number.POSITIVE_INFINITY;
    let spanEnd = Number.NEGATIVE_INFINITY;
    for (const span of spans) {
      if (!span) continue;
      spanStart = Math.min(spanStart, span.start);
      spanEnd = Math.max(spanEnd, span.end);
    }
    const busy =
      spanStart < spanEnd
        ? await loadBusy(this.db, query.businessId, { start: spanStart, end: spanEnd })
        : [];
    const byDay = new BusyByWindow(busy);
    let firstStart = Number.POSITIVE_INFINITY;
    const summaries = dates.map((date, i): DaySummary => {
      const span = spans[i];
      const rules = toDayRules(
        { ...ctx, busy: span ? byDay.overlapping(span.start, span.end) : [] },
        dayQuery(date),
        now,
      );
      const found = daySlots(rules);
      if (found.slots[0]) firstStart = Math.min(firstStart, found.slots[0].start);
      const free = found.slots.filter((slot) => slot.freeResourceIds.length > 0);
      if (free.length > 0) {
        return { date, available: true, first_time: free[0]!.time, slot_count: free.length, reason: null };
      }
      const why = found.slots.length > 0 ? 'fully_booked' : whyNoStarts(rules, found);
      return {
        date,
        available: false,
        first_time: null,
        slot_count: 0,
        reason: why === 'past' ? 'outside_booking_window' : why,
      };
    });
    if (version) {
      const leavesNotice = Number.isFinite(firstStart)
        ? firstStart - ctx.business.min_notice_hours * HOUR_MS - now
        : CACHE_MS;
      if (leavesNotice > 0)
        this.days.set(key, { version, summaries }, { ttl: Math.min(CACHE_MS, leavesNotice) });
    }
    return { from, to, days: summaries };
  }

  /** The business's settings, from the rules cache while they are current; null for an unknown business. */
  async businessRules(businessId: string, now: number): Promise<BusinessRules | null> {
    return (await this.rulesOf(businessId, undefined, now))?.business ?? null;
  }

  /** How much the caches hold: entries and estimated bytes. */
  cacheStats() {
    return {
      days: this.days.size,
      daysBytes: this.days.calculatedSize,
      rules: this.rules.size,
      rulesBytes: this.rules.calculatedSize,
    };
  }

  private found(cache: 'days' | 'rules', hit: boolean): boolean {
    this.lookups[cache][hit ? 'hits' : 'misses']++;
    return hit;
  }

  /**
   * A day's rules (for the service asked, if any) and busy periods, whatever the start, length and
   * party; cached like a computed day. Point checks and new bookings read it: a booking decides on
   * it which resources to try first, and the database's exclusion constraint decides the rest.
   * Inside a transaction it is read through that transaction and not cached: what a transaction
   * sees may never commit, and on PGlite's one connection another reader would wait for it forever.
   */
  async loadedDay(
    businessId: string,
    query: DayQuery,
    now: number,
    executor: Executor = this.db,
  ): Promise<LoadedDay> {
    if (executor.isTransaction) {
      return loadDay(executor, businessId, query, now);
    }
    const version = this.changes.dayVersion(businessId, query.date);
    const key = `${businessId}|${query.date}|${query.serviceId ?? ''}|loaded`;
    const hit = this.days.get(key);
    if (this.found('days', hit?.loaded !== undefined && hit.version === version)) {
      assertAsked(hit!.loaded!, query);
      return hit!.loaded!;
    }
    const loaded = await loadDay(
      this.db,
      businessId,
      query,
      now,
      await this.rulesOf(businessId, query.serviceId ?? undefined, now),
    );
    if (version) this.days.set(key, { version, loaded });
    return loaded;
  }

  /** The business's rules, from the cache while they are current; null for an unknown business. */
  private async rulesOf(
    businessId: string,
    serviceId: string | undefined,
    now: number,
  ): Promise<DayContext | null> {
    const version = this.changes.rulesVersion(businessId);
    const key = `${businessId}|${serviceId ?? ''}`;
    const hit = this.rules.get(key);
    if (this.found('rules', hit !== undefined && hit.version === version)) return hit!.rules;
    // Blackouts from two days back cover every date that can still have slots, in any zone.
    const loaded = await loadDayContext(this.db, businessId, addDays(todayIn('UTC', now), -2), serviceId);
    const known = loaded !== null && (!serviceId || loaded.service !== null);
    if (version && known) this.rules.set(key, { version, rules: loaded });
    return loaded;
  }
}

function inDisplayOrder(a: EngineResource, b: EngineResource): number {
  if (a.displayOrder !== b.displayOrder) return a.displayOrder - b.displayOrder;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function slotViews(found: DaySlots): SlotView[] {
  return found.slots.map((slot) => ({
    time: slot.time,
    available: slot.freeResourceIds.length > 0,
    remaining_resources: slot.freeResourceIds.length,
  }));
}

function perResourceViews(ctx: LoadedDay, found: DaySlots): SlotView[] {
  const names = new Map(ctx.resources.map((r) => [r.id, r.name]));
  return found.slots.flatMap((slot) =>
    slot.freeResourceIds.map((id) => ({
      time: slot.time,
      available: true as const,
      resource_id: id,
      resource_name: names.get(id)!,
    })),
  );
}

/**
 * Busy periods sorted by start, so each day of a range takes only the periods near it instead of
 * scanning all of them: those starting before the day's end, from the longest period's length
 * before its start. Unbounded periods (a block without an end) go to every day.
 */
class BusyByWindow {
  private readonly sorted: BusyPeriod[];
  private readonly unbounded: BusyPeriod[];
  private readonly longest: number;

  constructor(busy: BusyPeriod[]) {
    const bounded = busy.filter((p) => Number.isFinite(p.start) && Number.isFinite(p.end));
    this.unbounded = busy.filter((p) => !Number.isFinite(p.start) || !Number.isFinite(p.end));
    this.sorted = bounded.sort((a, b) => a.start - b.start);
    this.longest = bounded.reduce((max, p) => Math.max(max, p.end - p.start), 0);
  }

  overlapping(from: number, to: number): BusyPeriod[] {
    let low = 0;
    let high = this.sorted.length;
    const earliest = from - this.longest;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.sorted[mid]!.start < earliest) low = mid + 1;
      else high = mid;
    }
    const near: BusyPeriod[] = [...this.unbounded];
    for (let i = low; i < this.sorted.length && this.sorted[i]!.start < to; i++) {
      if (this.sorted[i]!.end > from) near.push(this.sorted[i]!);
    }
    return near;
  }
}

/**
 * Dynamic mode's point check (top plan only, 402 otherwise): whether `start` may be booked at any
 * minute for its length, and which resources are free for it (a business in scheduled mode: 400).
 */
export function checkDynamicStart(
  availability: AvailabilityService,
  caller: Subscriber & { businessId: string },
  start: Omit<StartQuery, 'businessId'>,
  now: number,
): Promise<StartAnswer> {
  assertFeature(caller, 'dynamicMode', now);
  return availability.start({ businessId: caller.businessId, ...start });
}
