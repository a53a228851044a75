import {
  checkStart,
  daySlots,
  disjointSets,
  type ExplainedTime,
  explainDay,
  freeOptions,
  heldSpan,
  MINUTE_MS,
  periodsOn,
  todayIn,
  type UnofferedReason,
} from '../engine/index.ts';
import type {
  BusyPeriod,
  DayRules,
  DaySlots,
  EngineResource,
  SlotPeriod,
  StartCheckFailure,
} from '../engine/types.ts';
import type { BusySpan, DayContext } from './availability.queries.ts';
import { type DayQuery, type LoadedDay, type PartyChannel, toDayRules } from './day-rules.service.ts';

/** Why a day lists no slots: the answer's `reason`, null while it lists some. */
export type NoSlotsReason =
  | 'past'
  | 'closed'
  | 'blackout'
  | 'outside_booking_window'
  /** The day is open, but its service periods leave no start inside its hours. */
  | 'outside_period'
  /** Per-resource view only: there are starts, but no resource that fits the party is free at any. */
  | 'no_free_resource';

const DAY_MS = 86_400_000;

/**
 * Why the engine found no start on a day, from the rules it was given. A day before today is past
 * whatever its hours. An open day whose grid is empty is either all inside notice (or already
 * gone today) or has hours too short for one booking: asking the engine again as if it were two
 * days earlier, without notice, tells the two apart; periods too short for one booking leave the
 * day `outside_period`.
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
  if (earlier.slots.length > 0) return 'outside_booking_window';
  return periodsOn(rules).length > 0 ? 'outside_period' : 'closed';
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
  /** Every grid time of the day, with the reasons those not offered are not (slots view only). */
  explain?: boolean;
  /**
   * An explained day asked without a secret credential of the business: `blocked` (a private or
   * imported calendar) is shown as `all_resources_busy`, so the public learns nothing of it.
   */
  publicReasons?: boolean;
  /** Whose question: a guest's is answered within the online party limit. */
  channel: PartyChannel;
  /**
   * false: a day computed for this question is not kept in the cache (a partner's feed asks many
   * days once, and keeps its own), so it never pushes the days guests ask out of it.
   */
  keep?: boolean;
}

/** Both views name the service period a start belongs to (null on a day without periods), so a page can group them. */
export type SlotView =
  | {
      time: string;
      available: boolean;
      remaining_resources: number;
      /** The booking's length at this start (turn times vary by party and period); the plain view's. */
      duration_minutes?: number;
      /** Only for a class's slots. */
      seats_left?: number;
      /** Explained, with requirements: the groups without a free resource, by name. */
      missing_requirements?: string[];
      period: SlotPeriod | null;
      reasons?: UnofferedReason[];
    }
  | {
      time: string;
      available: true;
      resource_id: string;
      resource_name: string;
      /** A service's groups: every resource of the set. */
      resource_ids?: string[];
      period: SlotPeriod | null;
    }
  | {
      time: string;
      available: true;
      resource_id: string;
      resource_name: string;
      combination_id: string;
      resource_ids: string[];
      period: SlotPeriod | null;
    };

export interface DayAnswer {
  slots: SlotView[];
  reason: NoSlotsReason | null;
}

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
export type DayReason = 'closed' | 'blackout' | 'fully_booked' | 'outside_booking_window' | 'outside_period';

export interface DaySummary {
  date: string;
  available: boolean;
  /** The first start with a free resource. */
  first_time: string | null;
  /** Starts with a free resource. */
  slot_count: number;
  reason: DayReason | null;
  /** On a `blackout` day, what the venue tells guests of it (the closed day's reason). */
  note: string | null;
}

/** One start at any minute and of any length (dynamic mode): a point check, not a grid. */
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

export function inDisplayOrder(a: EngineResource, b: EngineResource): number {
  if (a.displayOrder !== b.displayOrder) return a.displayOrder - b.displayOrder;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function slotViews(found: DaySlots): SlotView[] {
  return found.slots.map((slot) => ({
    time: slot.time,
    available: freeOptions(slot) > 0,
    remaining_resources: freeOptions(slot),
    duration_minutes: (slot.end - slot.start) / MINUTE_MS,
    ...(slot.seatsLeft !== undefined && { seats_left: slot.seatsLeft }),
    period: slot.period,
  }));
}

/** A reason as the public is told it: a block is busy time like any other. */
const publicReason = (reason: UnofferedReason): UnofferedReason =>
  reason === 'blocked' ? 'all_resources_busy' : reason;

/**
 * Every grid time of the day: an offered one has no reasons, and only it counts its free resources.
 * `publicReasons`: as an untrusted caller is told them.
 */
export function explainedViews(times: ExplainedTime[], publicReasons = false): SlotView[] {
  return times.map((time) => {
    const available = time.reasons.length === 0;
    return {
      time: time.time,
      available,
      remaining_resources: available ? freeOptions(time) : 0,
      ...(time.missingRequirements?.length && { missing_requirements: time.missingRequirements }),
      period: time.period,
      reasons: publicReasons ? [...new Set(time.reasons.map(publicReason))] : time.reasons,
    };
  });
}

export function perResourceViews(ctx: LoadedDay, found: DaySlots, rules: DayRules): SlotView[] {
  const names = new Map(ctx.resources.map((r) => [r.id, r.name]));
  const combinations = new Map(ctx.combinations.map((c) => [c.id, c]));
  return found.slots.flatMap((slot) => [
    // A service's groups: each set the free resources make at once, named by its resources.
    ...(slot.freeByRequirement && rules.requirements
      ? disjointSets(rules.requirements, slot.freeByRequirement)
      : []
    ).map((set) => ({
      time: slot.time,
      available: true as const,
      resource_id: set[0]!,
      resource_name: set.map((id) => names.get(id)!).join(' + '),
      resource_ids: set,
      period: slot.period,
    })),
    ...slot.freeResourceIds.map((id) => ({
      time: slot.time,
      available: true as const,
      resource_id: id,
      resource_name: names.get(id)!,
      period: slot.period,
    })),
    ...slot.freeCombinationIds.map((id) => {
      const combination = combinations.get(id)!;
      return {
        time: slot.time,
        available: true as const,
        resource_id: combination.resourceIds[0]!,
        resource_name: combination.name,
        combination_id: id,
        resource_ids: [...combination.resourceIds],
        period: slot.period,
      };
    }),
  ]);
}

/**
 * Busy periods sorted by start, so each day of a range takes only the periods near it instead of
 * scanning all of them: those starting before the day's end, from the longest period's length
 * before its start. Unbounded periods (a block without an end) go to every day.
 */
/** The position of the first of `sorted` (ordered by start) that starts at or after `instant`. */
function firstStartingFrom(sorted: readonly { start: number }[], instant: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]!.start < instant) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class BusyByWindow {
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
    const near: BusyPeriod[] = [...this.unbounded];
    for (
      let i = firstStartingFrom(this.sorted, from - this.longest);
      i < this.sorted.length && this.sorted[i]!.start < to;
      i++
    ) {
      if (this.sorted[i]!.end > from) near.push(this.sorted[i]!);
    }
    return near;
  }
}

/**
 * One day's answer, and its first start (from which a cached answer lasts until notice reaches it).
 * Explained, it lists every grid time instead, and keeps the `reason` of the plain answer.
 */
export function answerDay(
  ctx: LoadedDay,
  query: DayQuery & Pick<AvailabilityQuery, 'perResource' | 'explain' | 'publicReasons'>,
  now: number,
): { answer: DayAnswer; firstStart: number | undefined } {
  const rules = toDayRules(ctx, query, now);
  const found = daySlots(rules);
  const slots = query.perResource ? perResourceViews(ctx, found, rules) : slotViews(found);
  const answer: DayAnswer = {
    slots: query.explain ? explainedViews(explainDay(rules), query.publicReasons) : slots,
    reason:
      found.slots.length === 0 ? whyNoStarts(rules, found) : slots.length === 0 ? 'no_free_resource' : null,
  };
  return { answer, firstStart: found.slots[0]?.start };
}

/** A point check's answer: a refusal of the engine is `available: false` with its reason. */
export function answerStart(ctx: LoadedDay, query: DayQuery, time: string, now: number): StartAnswer {
  const check = checkStart(toDayRules(ctx, query, now), time, {
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
  const free = new Set([...check.freeResourceIds, ...(check.freeByRequirement?.flat() ?? [])]);
  const combinations = new Map(ctx.combinations.map((c) => [c.id, c.name]));
  const names = [
    ...ctx.resources
      .filter((resource) => free.has(resource.id))
      .sort(inDisplayOrder)
      .map((resource) => resource.name),
    ...check.freeCombinationIds.map((id) => combinations.get(id)!),
  ];
  return {
    available: true,
    remaining_resources: check.requirementSets ?? names.length,
    free_resources: names,
    reason: null,
  };
}

/** The period each date's slots can hold (null on a closed day), from the rules alone. */
export const heldSpans = (ctx: DayContext, query: Omit<DayQuery, 'date'>, dates: string[], now: number) =>
  dates.map((date) => heldSpan(toDayRules({ ...ctx, busy: [], arrivals: [] }, { ...query, date }, now)));

/**
 * The month view's summaries, from the rules, each date's held span and the busy periods of the
 * whole range; and the earliest start of any day (from which cached summaries last until notice
 * reaches it), infinite when there is none.
 */
export function summarizeDays(
  ctx: DayContext,
  query: Omit<DayQuery, 'date'>,
  dates: string[],
  spans: ReturnType<typeof heldSpans>,
  { busy, arrivals }: BusySpan,
  now: number,
): { summaries: DaySummary[]; firstStart: number } {
  const byDay = new BusyByWindow(busy);
  // Each day takes the arrivals of its own span, found by two searches, not by a pass over the month's.
  const byStart = [...arrivals].sort((a, b) => a.start - b.start);
  let firstStart = Number.POSITIVE_INFINITY;
  const summaries = dates.map((date, i): DaySummary => {
    const span = spans[i];
    const rules = toDayRules(
      {
        ...ctx,
        busy: span ? byDay.overlapping(span.start, span.end) : [],
        arrivals: span
          ? byStart.slice(firstStartingFrom(byStart, span.start), firstStartingFrom(byStart, span.end))
          : [],
      },
      { ...query, date },
      now,
    );
    const found = daySlots(rules);
    if (found.slots[0]) firstStart = Math.min(firstStart, found.slots[0].start);
    const free = found.slots.filter((slot) => freeOptions(slot) > 0);
    if (free.length > 0) {
      return {
        date,
        available: true,
        first_time: free[0]!.time,
        slot_count: free.length,
        reason: null,
        note: null,
      };
    }
    const why = found.slots.length > 0 ? 'fully_booked' : whyNoStarts(rules, found);
    const closure =
      why === 'blackout'
        ? ctx.blackouts.find((range) => range.startDate <= date && date <= range.endDate)
        : undefined;
    return {
      date,
      available: false,
      first_time: null,
      slot_count: 0,
      reason: why === 'past' ? 'outside_booking_window' : why,
      note: closure?.reason ?? null,
    };
  });
  return { summaries, firstStart };
}
