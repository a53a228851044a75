import { LRUCache } from 'lru-cache';
import { assertFeature, type Subscriber } from '../billing/subscription.service.ts';
import { addDays, instantToWall, todayIn } from '../engine/index.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db, Executor } from '../platform/db.ts';
import { AppError, invalidField, notFound } from '../platform/errors.ts';
import { type BusinessRules, type DayContext, loadBusy, loadDayContext } from './availability.queries.ts';
import {
  type AvailabilityQuery,
  answerDay,
  answerStart,
  type DayAnswer,
  type DaySummary,
  type DaysQuery,
  heldSpans,
  type StartAnswer,
  type StartQuery,
  summarizeDays,
} from './day-questions.service.ts';
import {
  assertAsked,
  assertDynamicMode,
  assertPartySize,
  type DayQuery,
  type LoadedDay,
  loadDay,
} from './day-rules.service.ts';

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
/** A slot's share of the answer's serialized body, which the cached day keeps once it is sent. */
const SLOT_JSON_BYTES = 80;

/**
 * A computed day of the slot grid, or a loaded day (its rules, shared with the rules cache, and
 * its busy periods) that point checks of any start on it read.
 */
type CachedDay = { version: string } & (
  | {
      answer: DayAnswer;
      /** The answer as the availability routes send it, serialized when first sent. */
      body?: string;
      loaded?: undefined;
      summaries?: undefined;
    }
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
          ? entry.answer.slots.length * (SLOT_BYTES + SLOT_JSON_BYTES)
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
        (rules.hours.length +
          rules.blackouts.length +
          rules.business.turn_times.length +
          rules.periods.length) *
          ROW_BYTES,
      ttl: CACHE_MS,
      perf: clock,
    });
  }

  /**
   * The slots of one day, and why there are none when there are none. An explained day is computed
   * afresh every time: its reasons (past, notice) change with the clock between two grid times,
   * which the cached answers' lifetime does not follow, and it never enters the cache.
   */
  async day(query: AvailabilityQuery): Promise<DayAnswer> {
    return (await this.cachedDay(query)).answer;
  }

  /**
   * The day's answer as a route sends it: `serialize` (the route's own serializer of its answer)
   * runs once per cached day, and a day asked again is answered with the same string.
   */
  async dayBody(query: AvailabilityQuery, serialize: (answer: DayAnswer) => string): Promise<string> {
    const entry = await this.cachedDay(query);
    if (entry.version === null) return serialize(entry.answer);
    entry.body ??= serialize(entry.answer);
    return entry.body;
  }

  /** The computed day, as the cache holds it (version null: computed afresh, not kept). */
  private async cachedDay(
    query: AvailabilityQuery,
  ): Promise<{ version: string | null; answer: DayAnswer; body?: string }> {
    const now = this.clock.now();
    if (query.explain) return { version: null, answer: (await this.computeDay(query, now)).answer };
    const version = this.changes.dayVersion(query.businessId, query.date);
    const key = [
      query.businessId,
      query.date,
      query.partySize,
      query.serviceId,
      query.resourceId,
      query.perResource,
      query.channel,
    ].join('|');
    const hit = this.days.get(key);
    if (this.found('days', hit?.answer !== undefined && hit.version === version)) {
      return hit as CachedDay & { answer: DayAnswer };
    }
    const { answer, firstStart, minNoticeHours } = await this.computeDay(query, now);
    if (version && query.keep !== false) {
      const leavesNotice = firstStart !== undefined ? firstStart - minNoticeHours * HOUR_MS - now : CACHE_MS;
      if (leavesNotice > 0) {
        const entry = { version, answer };
        this.days.set(key, entry, { ttl: Math.min(CACHE_MS, leavesNotice) });
        return entry;
      }
    }
    return { version: null, answer };
  }

  private async computeDay(query: AvailabilityQuery, now: number) {
    const ctx = await loadDay(
      this.db,
      query.businessId,
      query,
      now,
      await this.rulesOf(query.businessId, query.serviceId, now),
    );
    assertPartySize(ctx.business, query.partySize, query.channel);
    return { ...answerDay(ctx, query, now), minNoticeHours: ctx.business.min_notice_hours };
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
    assertPartySize(ctx.business, query.partySize, 'online');
    return answerStart(ctx, dayQuery, query.time, now);
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
    assertPartySize(ctx.business, query.partySize, 'online');
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
    const spans = heldSpans(ctx, query, dates, now);
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
        : { busy: [], arrivals: [] };
    const { summaries, firstStart } = summarizeDays(ctx, query, dates, spans, busy, now);
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

/**
 * A day's availability as the availability routes answer it. The day comes as `booking_date` or
 * its older name `date`; one of them is required.
 */
/** The business's date and minute now, on its wall clock; 404 for an unknown business. */
export async function venueWallClock(availability: AvailabilityService, businessId: string, now: number) {
  const business = await availability.businessRules(businessId, now);
  if (!business) throw notFound('business');
  return instantToWall(now, business.timezone);
}

export async function availabilityOfDay(
  availability: AvailabilityService,
  query: Omit<AvailabilityQuery, 'date'> & { date: string | undefined },
  serialize: (answer: DayAnswerBody) => string,
): Promise<string> {
  const { date } = query;
  if (!date) throw invalidField('booking_date', 'is required');
  if (query.explain && query.perResource) {
    throw new AppError('bad_request', 'explain lists the times of the day: it applies to view=slots only');
  }
  return availability.dayBody({ ...query, date }, (day) =>
    serialize({ business_id: query.businessId, booking_date: date, capacity: query.partySize, ...day }),
  );
}

/** A day's availability as the routes answer it, before serialization. */
export type DayAnswerBody = DayAnswer & { business_id: string; booking_date: string; capacity: number };

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
