import { classSeats, heldClasses } from './classes.ts';
import { usableCombinations, withinPeriod } from './combinations.ts';
import { loadsByStart, pacingRefusal } from './pacing.ts';
import { completeSets, missingRequirements, requirementsAsked } from './requirements.ts';
import {
  type BookableWindow,
  blackedOut,
  bookableRange,
  bookableWindows,
  bookingMinutes,
  candidateResources,
  firstGridMinute,
  holds,
  type OpenWindow,
  openWindow,
  performs,
  windowAt,
} from './slots.ts';
import { formatMinutes, MINUTE_MS, resolveWall } from './time.ts';
import type { BusyPeriod, DayRules, EngineCombination, EngineResource, SlotPeriod } from './types.ts';

/** Why a grid time is not offered, in the order a time lists them. */
export const UNOFFERED_REASONS = [
  'past',
  'notice',
  'window',
  'closed',
  'blackout',
  'outside_period',
  'pacing',
  'class_full',
  'requirement_busy',
  'no_resource_fits_party',
  'all_resources_busy',
  'blocked',
] as const;

export type UnofferedReason = (typeof UNOFFERED_REASONS)[number];

/** Why no fitting resource can take a booking at a time. */
type ResourceRefusal = Extract<UnofferedReason, 'no_resource_fits_party' | 'all_resources_busy' | 'blocked'>;

export interface ExplainedTime {
  /** Wall-clock start, `HH:MM`. */
  time: string;
  /** Null for a time the clocks skip that night. */
  start: number | null;
  /** The service period whose grid holds the time; null for the hours' grid. */
  period: SlotPeriod | null;
  /**
   * Free resources that fit the party, best fit first, as `daySlots` finds them; empty when the
   * time cannot be booked at all (outside its window, after the last start, a skipped time).
   */
  freeResourceIds: string[];
  /** Free combinations that take the party, tightest first, as `daySlots` finds them. */
  freeCombinationIds: string[];
  /** With requirements: each group's free resources, and how many bookings they take at once. */
  freeByRequirement?: string[][];
  requirementSets?: number;
  /** With requirements: the groups without a free resource for the party, by name. */
  missingRequirements?: string[];
  /** Empty exactly when the time is offered. */
  reasons: UnofferedReason[];
}

/** The resources of a bookable window that take the party: allowed by the service, the question and the period. */
export function fittingResources(
  candidates: readonly EngineResource[],
  window: Pick<BookableWindow, 'resourceIds'>,
): EngineResource[] {
  return candidates.filter((resource) => performs(window.resourceIds, resource.id));
}

/** A way to seat the party (a resource, or a combination of them) and the resources it takes. */
interface SeatingOption {
  id: string;
  resourceIds: readonly string[];
}

/**
 * Which of `options` are free for the held range, and why none is: an option is taken when
 * something holds one of its resources during the range. When every option is taken, `blocked`
 * says some of them only external blocks hold, `all_resources_busy` that bookings hold them all.
 */
function freeOptionsOf(
  options: readonly SeatingOption[],
  busyOf: ReadonlyMap<string, readonly BusyPeriod[]>,
  heldStart: number,
  heldEnd: number,
): { free: string[]; refusal: ResourceRefusal | null } {
  if (options.length === 0) return { free: [], refusal: 'no_resource_fits_party' };
  const free: string[] = [];
  let onlyBlocked = false;
  for (const option of options) {
    const holding = option.resourceIds.flatMap(
      (id) => busyOf.get(id)?.filter((period) => holds(period, heldStart, heldEnd)) ?? [],
    );
    if (holding.length === 0) free.push(option.id);
    else if (holding.every((period) => period.kind === 'block')) onlyBlocked = true;
  }
  if (free.length > 0) return { free, refusal: null };
  return { free, refusal: onlyBlocked ? 'blocked' : 'all_resources_busy' };
}

/** Which of the `fitting` resources are free for the held range, and why none is (`freeOptionsOf`). */
export function freeResources(
  fitting: readonly EngineResource[],
  busyOf: ReadonlyMap<string, readonly BusyPeriod[]>,
  heldStart: number,
  heldEnd: number,
): { freeResourceIds: string[]; refusal: ResourceRefusal | null } {
  const options = fitting.map((resource) => ({ id: resource.id, resourceIds: [resource.id] }));
  const { free, refusal } = freeOptionsOf(options, busyOf, heldStart, heldEnd);
  return { freeResourceIds: free, refusal };
}

/** Which of the `fitting` combinations (tightest first) have every resource free, and why none has. */
export function freeCombinations(
  fitting: readonly EngineCombination[],
  busyOf: ReadonlyMap<string, readonly BusyPeriod[]>,
  heldStart: number,
  heldEnd: number,
): { freeCombinationIds: string[]; refusal: ResourceRefusal | null } {
  const { free, refusal } = freeOptionsOf(fitting, busyOf, heldStart, heldEnd);
  return { freeCombinationIds: free, refusal };
}

/**
 * Why a time has no free option, from the refusals of its single resources and of its
 * combinations: nothing fits only when neither fits; a block-held option makes it `blocked`.
 */
function optionsRefusal(singles: ResourceRefusal, combinations: ResourceRefusal): ResourceRefusal {
  if (singles === combinations) return singles;
  if (singles === 'blocked' || combinations === 'blocked') return 'blocked';
  return 'all_resources_busy';
}

/** A grid time of the day and the window whose grid it is on (null: the hours' grid outside every period). */
interface GridTime {
  minute: number;
  window: BookableWindow | null;
}

/**
 * The day's grid times: each bookable window's own grid up to its closing, and the hours' grid on
 * the business's interval where no period is. Inside a period its grid replaces the hours'.
 */
function gridTimes(rules: DayRules, hours: OpenWindow, windows: readonly BookableWindow[]): GridTime[] {
  const times: GridTime[] = [];
  for (const window of windows) {
    for (
      let minute = firstGridMinute(window);
      minute < window.closeMinute;
      minute += window.intervalMinutes
    ) {
      times.push({ minute, window });
    }
  }
  for (let minute = hours.openMinute; minute < hours.closeMinute; minute += rules.intervalMinutes) {
    if (!windowAt(windows, minute)) times.push({ minute, window: null });
  }
  return times.sort((a, b) => a.minute - b.minute);
}

/**
 * Every grid time of `rules.date` with the reasons it is not offered, in time order: a time
 * `daySlots` offers (a free fitting resource) has none, every other time at least one. A weekday
 * without opening hours has no grid, so no times. The reasons of the calendar (`past`, `notice`,
 * `window`, `blackout`) apply to every time; `closed` and `outside_period` to a time its window
 * cannot take (a time the clocks skip, after the last start, ending after closing); the resources'
 * reason to a time its window can take.
 */
export function explainDay(rules: DayRules): ExplainedTime[] {
  if (!(rules.intervalMinutes >= 1)) throw new RangeError(`intervalMinutes must be at least 1`);
  // A blacked-out day keeps its grid: every time of it says `blackout`.
  // Stryker disable next-line ArrayDeclaration: a blackout without dates covers no date
  const hours = openWindow({ ...rules, blackouts: [] });
  if (typeof hours === 'string') return [];
  const range = bookableRange(rules);
  const beyondWindow = rules.date > range.lastDate;
  const blackout = blackedOut(rules);
  const found = bookableWindows(rules, hours);
  // Stryker disable next-line ArrayDeclaration: a window without minutes has no grid and holds no time
  const windows = found === 'outside_period' ? [] : found;
  const candidates = candidateResources(rules);
  const combinations = usableCombinations(rules);
  const busyOf = new Map<string, BusyPeriod[]>();
  for (const period of rules.busy) {
    const own = busyOf.get(period.resourceId);
    if (own) own.push(period);
    else busyOf.set(period.resourceId, [period]);
  }
  const beforeMs = rules.bufferBeforeMinutes * MINUTE_MS;
  const afterMs = rules.bufferAfterMinutes * MINUTE_MS;
  const loads = loadsByStart(rules.arrivals);
  const classes = heldClasses(rules);
  const requirements = requirementsAsked(rules.requirements, rules.resourceId);

  return gridTimes(rules, hours, windows).map(({ minute, window }): ExplainedTime => {
    const reasons = new Set<UnofferedReason>();
    let freeResourceIds: string[] = [];
    let freeCombinationIds: string[] = [];
    let grouped: Pick<ExplainedTime, 'freeByRequirement' | 'requirementSets' | 'missingRequirements'> = {};
    const start = resolveWall(hours.span, hours.midnight + minute * MINUTE_MS);
    if (start !== null && start < rules.now) reasons.add('past');
    else if (start !== null && start < range.earliestStart) reasons.add('notice');
    if (beyondWindow) reasons.add('window');
    if (blackout) reasons.add('blackout');
    if (start === null) reasons.add('closed');
    else if (window === null) reasons.add('outside_period');
    else {
      const end = start + bookingMinutes({ ...rules, turnTimes: window.turnTimes }) * MINUTE_MS;
      // Past the hours' own limits (which also bound the hours' window) the day is closed; past
      // only a period's, the time is outside it.
      if (minute > window.lastStartMinute) {
        reasons.add(minute > hours.lastStartMinute ? 'closed' : 'outside_period');
      } else if (end > window.closeInstant) {
        reasons.add(end > hours.closeInstant ? 'closed' : 'outside_period');
      } else {
        // The refusals of one bookable time, each decided once for the time.
        const heldStart = start - beforeMs;
        const heldEnd = end + afterMs;
        const resources = freeResources(fittingResources(candidates, window), busyOf, heldStart, heldEnd);
        const joined = freeCombinations(
          combinations.filter((combination) => withinPeriod(combination, window.resourceIds)),
          busyOf,
          heldStart,
          heldEnd,
        );
        freeResourceIds = resources.freeResourceIds;
        freeCombinationIds = joined.freeCombinationIds;
        const held = classes.get(start);
        if (requirements) {
          const fitting = fittingResources(candidates, window);
          const freeByRequirement = requirements.map((group) =>
            freeResourceIds.filter((id) => group.resourceIds.includes(id)),
          );
          const missing = missingRequirements(requirements, freeByRequirement);
          const fits = requirements.every(
            (group) =>
              fitting.filter((resource) => group.resourceIds.includes(resource.id)).length >= group.count,
          );
          if (missing.length > 0) reasons.add(fits ? 'requirement_busy' : 'no_resource_fits_party');
          grouped = {
            freeByRequirement,
            requirementSets: completeSets(requirements, freeByRequirement),
            missingRequirements: missing,
          };
          freeResourceIds = [];
        } else if (resources.refusal && joined.refusal && !held) {
          // A class held at the time holds its resource for its own seats: only they can refuse.
          reasons.add(optionsRefusal(resources.refusal, joined.refusal));
        }
        if (rules.class) {
          const seated = classSeats(rules.class, rules.partySize, held, freeResourceIds);
          if (seated.freeResourceIds.length === 0 && (held || freeResourceIds.length > 0)) {
            reasons.add('class_full');
          }
          freeResourceIds = seated.freeResourceIds;
        }
        // A paced-out time frees nothing for the party, as daySlots leaves it.
        if (pacingRefusal(window.pacing, loads.get(start), rules.partySize) !== null) {
          reasons.add('pacing');
          freeResourceIds = [];
          freeCombinationIds = [];
          if (requirements) {
            grouped = { ...grouped, freeByRequirement: requirements.map(() => []), requirementSets: 0 };
          }
        }
      }
    }
    return {
      time: formatMinutes(minute),
      start,
      period: window?.period ?? null,
      freeResourceIds,
      freeCombinationIds,
      ...grouped,
      reasons: UNOFFERED_REASONS.filter((reason) => reasons.has(reason)),
    };
  });
}
