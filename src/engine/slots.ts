import { classFullMessage, classSeats, heldClasses } from './classes.ts';
import { usableCombinations, withinPeriod } from './combinations.ts';
import { loadsByStart, pacingMessage, pacingOf, pacingRefusal } from './pacing.ts';
import { completeSets, missingRequirements, requirementsAsked } from './requirements.ts';
import {
  addDays,
  dayOfWeek,
  formatMinutes,
  MINUTE_MS,
  minutesOf,
  resolveWall,
  resolveWallBoundary,
  todayIn,
  wallMidnight,
  type ZoneSpan,
  zoneSpan,
} from './time.ts';
import type {
  BusyPeriod,
  DayRules,
  DaySlots,
  EngineResource,
  HoursRow,
  PacingCaps,
  ServicePeriod,
  Slot,
  SlotPeriod,
  StartCheck,
  StartCheckFailure,
  StartOptions,
  TurnTime,
} from './types.ts';

const HOUR_MS = 3_600_000;
const MINUTES_PER_DAY = 1440;

/**
 * The opening window of the asked-for date. Minutes count from midnight starting `date`, so a
 * window that runs past midnight has `closeMinute` above 1440.
 */
export interface OpenWindow {
  openMinute: number;
  closeMinute: number;
  /** Latest start minute allowed by `lastBookingTime`; Infinity when only closing time limits it. */
  lastStartMinute: number;
  /** Wall-clock milliseconds (read as UTC) of midnight starting `date`. */
  midnight: number;
  span: ZoneSpan;
  closeInstant: number;
}

/** Whether a blackout covers the date. */
export const blackedOut = (rules: Pick<DayRules, 'date' | 'blackouts'>) =>
  rules.blackouts.some((blackout) => blackout.startDate <= rules.date && rules.date <= blackout.endDate);

export function openWindow(rules: DayRules): OpenWindow | 'blackout' | 'closed' {
  const { date } = rules;
  if (blackedOut(rules)) return 'blackout';
  const weekday = dayOfWeek(date);
  const row = rules.hours.find((hours) => hours.dayOfWeek === weekday);
  const minutes = hoursMinutes(row);
  if (!minutes) return 'closed';
  const { openMinute, closeMinute } = minutes;
  let lastStartMinute = row!.lastBookingTime === null ? null : minutesOf(row!.lastBookingTime);
  if (lastStartMinute !== null && lastStartMinute < openMinute) lastStartMinute += MINUTES_PER_DAY;
  const midnight = wallMidnight(date);
  const closeWall = midnight + closeMinute * MINUTE_MS;
  const span = zoneSpan(rules.timezone, midnight + openMinute * MINUTE_MS, closeWall);
  return {
    openMinute,
    closeMinute,
    lastStartMinute: lastStartMinute ?? Number.POSITIVE_INFINITY,
    midnight,
    span,
    closeInstant: resolveWallBoundary(span, closeWall),
  };
}

/**
 * Where a period lies in the day whose hours run from `openMinute` to `closeMinute`, in minutes
 * from that day's midnight: a period starting before opening that the hours reach after midnight
 * is that part of an overnight day, and one ending at or before its start ends the next day.
 */
export function periodMinutes(
  period: Pick<ServicePeriod, 'startTime' | 'endTime'>,
  { closeMinute }: { openMinute: number; closeMinute: number },
): { startMinute: number; endMinute: number } {
  let startMinute = minutesOf(period.startTime)!;
  // Closing is at most a day after opening, so a start this far before closing is before opening.
  if (startMinute + MINUTES_PER_DAY < closeMinute) startMinute += MINUTES_PER_DAY;
  let endMinute = minutesOf(period.endTime)! + (startMinute >= MINUTES_PER_DAY ? MINUTES_PER_DAY : 0);
  if (endMinute <= startMinute) endMinute += MINUTES_PER_DAY;
  return { startMinute, endMinute };
}

/** The opening and closing minutes of an open hours row, closing above 1440 past midnight; null when closed. */
export function hoursMinutes(row: HoursRow | undefined): { openMinute: number; closeMinute: number } | null {
  if (!row?.isOpen || row.openTime === null || row.closeTime === null) return null;
  const openMinute = minutesOf(row.openTime);
  const closeMinute = minutesOf(row.closeTime);
  if (openMinute === null || closeMinute === null) return null;
  return { openMinute, closeMinute: closeMinute <= openMinute ? closeMinute + MINUTES_PER_DAY : closeMinute };
}

/**
 * One stretch of a day bookable on one grid: the hours' window on a day without periods, else
 * each period, cut to the hours. Minutes count from midnight starting the date.
 */
export interface BookableWindow {
  /** Null for the hours' window. */
  period: SlotPeriod | null;
  /** The minute the grid counts from. */
  gridStart: number;
  /** Earliest start minute (the grid's start, or opening when the period starts before it). */
  fromMinute: number;
  closeMinute: number;
  lastStartMinute: number;
  intervalMinutes: number;
  turnTimes: readonly TurnTime[] | undefined;
  /** Null for every resource. */
  resourceIds: readonly string[] | null;
  closeInstant: number;
  /** Null when nothing caps the starts (always for the hours' window). */
  pacing: PacingCaps | null;
}

/** The service periods of the date's weekday. */
export function periodsOn(rules: Pick<DayRules, 'date' | 'periods'>): ServicePeriod[] {
  const weekday = dayOfWeek(rules.date);
  return (rules.periods ?? []).filter((period) => period.daysOfWeek.includes(weekday));
}

/** The day's bookable windows in time order; `outside_period` when its periods leave none inside the hours. */
export function bookableWindows(rules: DayRules, hours: OpenWindow): BookableWindow[] | 'outside_period' {
  const periods = periodsOn(rules);
  const { openMinute, closeMinute, lastStartMinute, midnight, span } = hours;
  if (periods.length === 0) {
    return [
      {
        period: null,
        gridStart: openMinute,
        fromMinute: openMinute,
        closeMinute,
        lastStartMinute,
        intervalMinutes: rules.intervalMinutes,
        turnTimes: rules.turnTimes,
        resourceIds: null,
        closeInstant: hours.closeInstant,
        pacing: null,
      },
    ];
  }
  const windows: BookableWindow[] = [];
  for (const period of periods) {
    const { startMinute, endMinute } = periodMinutes(period, hours);
    const fromMinute = Math.max(startMinute, openMinute);
    const close = Math.min(endMinute, closeMinute);
    if (fromMinute >= close) continue;
    // Stryker disable next-line ConditionalExpression: minutesOf reads null as no time too; the check is for its type
    let lastStart = period.lastStartTime === null ? null : minutesOf(period.lastStartTime);
    if (lastStart !== null) {
      lastStart += startMinute - (startMinute % MINUTES_PER_DAY);
      if (lastStart < startMinute) lastStart += MINUTES_PER_DAY;
    }
    windows.push({
      period: { id: period.id, name: period.name },
      gridStart: startMinute,
      fromMinute,
      closeMinute: close,
      lastStartMinute: Math.min(lastStart ?? Number.POSITIVE_INFINITY, lastStartMinute),
      intervalMinutes: period.intervalMinutes ?? rules.intervalMinutes,
      turnTimes: period.turnTimes ?? rules.turnTimes,
      // Stryker disable next-line ConditionalExpression,EqualityOperator: performs reads an empty list as every resource, as null
      resourceIds: period.resourceIds.length > 0 ? period.resourceIds : null,
      closeInstant: resolveWallBoundary(span, midnight + close * MINUTE_MS),
      pacing: pacingOf(period),
    });
  }
  if (windows.length === 0) return 'outside_period';
  return windows.sort((a, b) => a.fromMinute - b.fromMinute);
}

/** The first grid minute of `window` at or after its earliest start. */
export function firstGridMinute(window: BookableWindow): number {
  const behind = window.fromMinute - window.gridStart;
  return window.gridStart + Math.ceil(behind / window.intervalMinutes) * window.intervalMinutes;
}

export interface BookableRange {
  today: string;
  lastDate: string;
  /** Earliest start instant minimum notice allows. */
  earliestStart: number;
}

export function bookableRange(rules: DayRules): BookableRange {
  const today = todayIn(rules.timezone, rules.now);
  return {
    today,
    lastDate: addDays(today, rules.bookingWindowDays),
    earliestStart: rules.now + Math.max(0, rules.minNoticeHours) * HOUR_MS,
  };
}

function bestFirst(a: EngineResource, b: EngineResource): number {
  if (a.capacityMax !== b.capacityMax) return a.capacityMax - b.capacityMax;
  if (a.displayOrder !== b.displayOrder) return a.displayOrder - b.displayOrder;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * How many bookings of the party a start takes at once: each free resource and each free
 * combination one; with requirements, each complete set of the groups' free resources.
 */
export const freeOptions = (slot: Pick<Slot, 'freeResourceIds' | 'freeCombinationIds' | 'requirementSets'>) =>
  slot.requirementSets ?? slot.freeResourceIds.length + slot.freeCombinationIds.length;

/** Whether `resource` takes a party of `partySize`. */
export const takesParty = (
  resource: Pick<EngineResource, 'capacityMin' | 'capacityMax'>,
  partySize: number,
) => partySize >= resource.capacityMin && partySize <= resource.capacityMax;

/** Whether a service performed on `allowed` resources (any when none are listed) is performed on `resourceId`. */
export const performs = (allowed: readonly string[] | null | undefined, resourceId: string) =>
  !allowed || allowed.length === 0 || allowed.includes(resourceId);

/** A booking's length in minutes: the turn time that covers the party, else `durationMinutes`. */
export function bookingMinutes(rules: Pick<DayRules, 'durationMinutes' | 'turnTimes' | 'partySize'>): number {
  const { partySize } = rules;
  const turn = rules.turnTimes?.find((range) => range.minParty <= partySize && partySize <= range.maxParty);
  return turn?.durationMinutes ?? rules.durationMinutes;
}

/**
 * The length of a booking starting at wall-clock `time` on `rules.date`: the turn times of the
 * period it starts in, else the day's.
 */
export function bookingMinutesAt(rules: DayRules, time: string): number {
  const bookable = bookableAt(rules, time);
  return bookingMinutes({ ...rules, turnTimes: bookable ? bookable.turnTimes : rules.turnTimes });
}

/** The pacing of the period a booking starting at wall-clock `time` on `rules.date` starts in; null when none caps it. */
export const pacingAt = (rules: DayRules, time: string): PacingCaps | null =>
  bookableAt(rules, time)?.pacing ?? null;

/** The window a booking starting at wall-clock `time` on `rules.date` starts in; none outside them. */
export function bookableAt(rules: DayRules, time: string): BookableWindow | undefined {
  const hours = openWindow(rules);
  const asked = minutesOf(time);
  // Stryker disable next-line ConditionalExpression: an unreadable time falls in no window either way
  if (typeof hours === 'string' || asked === null) return undefined;
  const windows = bookableWindows(rules, hours);
  if (windows === 'outside_period') return undefined;
  return windowAt(windows, dayMinute(hours, asked));
}

/** Minutes from midnight of the date of a wall-clock minute: after midnight on an overnight day, past 1440. */
const dayMinute = (hours: Pick<OpenWindow, 'openMinute' | 'closeMinute'>, asked: number) =>
  hours.closeMinute > MINUTES_PER_DAY && asked < hours.openMinute ? asked + MINUTES_PER_DAY : asked;

export const windowAt = (windows: readonly BookableWindow[], minute: number) =>
  windows.find((w) => w.fromMinute <= minute && minute < w.closeMinute);

/** Resources that may take this booking at all, best fit first. */
export function candidateResources(rules: DayRules): EngineResource[] {
  const only = rules.resourceId ?? null;
  const grouped = Boolean(rules.requirements?.length);
  // A set: a service's groups may list many resources, and every resource is asked about.
  const inGroups = grouped ? new Set(rules.requirements!.flatMap((group) => group.resourceIds)) : null;
  const candidates: EngineResource[] = [];
  for (const resource of rules.resources) {
    if (!resource.isActive) continue;
    // A class's party takes seats of the class, not of the resource.
    if (!rules.class && !takesParty(resource, rules.partySize)) continue;
    if (inGroups ? !inGroups.has(resource.id) : !performs(rules.allowedResourceIds, resource.id)) continue;
    // With requirements, the asked resource narrows its own group only (requirementsAsked).
    if (only !== null && resource.id !== only && !grouped) continue;
    candidates.push(resource);
  }
  return candidates.sort(bestFirst);
}

/**
 * Busy periods grouped by candidate resource, each group sorted by start, with the running
 * maximum of ends: a held range [from, to) is free on resource r exactly when no period of r
 * starting before `to` ends after `from`, that is when the running maximum end of the periods
 * starting before `to` is at most `from`. Overlapping and nested periods need no merging.
 */
interface BusyIndex {
  /** Periods of candidate r are positions offsets[r] up to offsets[r + 1]. */
  offsets: Int32Array;
  starts: Float64Array;
  maxEnds: Float64Array;
}

/** Whether `period` holds its resource during some of [from, to). */
export const holds = (period: Pick<BusyPeriod, 'start' | 'end'>, from: number, to: number) =>
  period.start < period.end && period.start < to && period.end > from;

function indexBusy(
  busy: readonly BusyPeriod[],
  candidates: readonly Pick<EngineResource, 'id'>[],
  from: number,
  to: number,
): BusyIndex {
  const positionOf = new Map<string, number>();
  for (let r = 0; r < candidates.length; r++) positionOf.set(candidates[r]!.id, r);
  const owner = new Int32Array(busy.length);
  const offsets = new Int32Array(candidates.length + 1);
  for (let i = 0; i < busy.length; i++) {
    const period = busy[i]!;
    const r = positionOf.get(period.resourceId);
    // Periods outside the day's held ranges, or empty ones, cannot block anything.
    if (r === undefined || period.start >= period.end || period.start >= to || period.end <= from) {
      owner[i] = -1;
      continue;
    }
    owner[i] = r;
    offsets[r + 1]!++;
  }
  for (let r = 0; r < candidates.length; r++) offsets[r + 1]! += offsets[r]!;
  const total = offsets[candidates.length]!;
  const starts = new Float64Array(total);
  const ends = new Float64Array(total);
  const fill = offsets.slice(0, candidates.length);
  for (let i = 0; i < busy.length; i++) {
    const r = owner[i]!;
    if (r < 0) continue;
    const at = fill[r]!++;
    // Clipping to [from, to) keeps every overlap answer and keeps infinite ends out of the sort.
    starts[at] = Math.max(busy[i]!.start, from);
    ends[at] = Math.min(busy[i]!.end, to);
  }
  for (let r = 0; r < candidates.length; r++) sortByStart(starts, ends, offsets[r]!, offsets[r + 1]!);
  const maxEnds = ends;
  for (let r = 0; r < candidates.length; r++) {
    for (let p = offsets[r]! + 1; p < offsets[r + 1]!; p++) {
      if (maxEnds[p]! < maxEnds[p - 1]!) maxEnds[p] = maxEnds[p - 1]!;
    }
  }
  return { offsets, starts, maxEnds };
}

const INSERTION_SORT_LIMIT = 24;

/** Sorts the pairs (starts[i], ends[i]) of positions from..to by start. */
function sortByStart(starts: Float64Array, ends: Float64Array, from: number, to: number): void {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator,BlockStatement: both paths sort; the limit only picks the faster one
  if (to - from <= INSERTION_SORT_LIMIT) {
    for (let i = from + 1; i < to; i++) {
      const start = starts[i]!;
      const end = ends[i]!;
      let j = i - 1;
      while (j >= from && starts[j]! > start) {
        starts[j + 1] = starts[j]!;
        ends[j + 1] = ends[j]!;
        j--;
      }
      starts[j + 1] = start;
      ends[j + 1] = end;
    }
    return;
  }
  const order = Array.from({ length: to - from }, (_, k) => from + k).sort((a, b) => starts[a]! - starts[b]!);
  const sortedStarts = order.map((p) => starts[p]!);
  const sortedEnds = order.map((p) => ends[p]!);
  starts.set(sortedStarts, from);
  ends.set(sortedEnds, from);
}

/**
 * Every start of the grid for `rules.date` that is inside opening hours, minimum notice and
 * the booking window, with the resources free for it.
 */
export function daySlots(rules: DayRules): DaySlots {
  if (!(rules.intervalMinutes >= 1)) throw new RangeError(`intervalMinutes must be at least 1`);
  const window = openWindow(rules);
  if (window === 'blackout' || window === 'closed') return { closure: window, slots: [] };
  const range = bookableRange(rules);
  // An overnight window is still bookable after midnight: its day is past only once the date
  // its window closes on is.
  const closesOn = window.closeMinute > MINUTES_PER_DAY ? addDays(rules.date, 1) : rules.date;
  if (closesOn < range.today || rules.date > range.lastDate) {
    return { closure: 'outside_booking_window', slots: [] };
  }
  const windows = bookableWindows(rules, window);
  if (windows === 'outside_period') return { closure: windows, slots: [] };
  const { openMinute, midnight, span, closeInstant } = window;
  const beforeMs = rules.bufferBeforeMinutes * MINUTE_MS;
  const afterMs = rules.bufferAfterMinutes * MINUTE_MS;
  const candidates = candidateResources(rules);
  const combinations = usableCombinations(rules);
  // The tables of the combinations are scanned with the candidates, each once, after them when
  // they do not seat the party alone.
  const indexed: Pick<EngineResource, 'id'>[] = [...candidates];
  const positionOf = new Map(candidates.map((resource, r) => [resource.id, r]));
  const joinedAt = combinations.map((combination) =>
    combination.resourceIds.map((id) => {
      let position = positionOf.get(id);
      if (position === undefined) {
        position = indexed.push({ id }) - 1;
        positionOf.set(id, position);
      }
      return position;
    }),
  );
  // Stryker disable next-line ArithmeticOperator: a lower bound before opening only indexes periods that end before every held range
  const openInstant = resolveWallBoundary(span, midnight + openMinute * MINUTE_MS);
  const { offsets, starts, maxEnds } = indexBusy(
    rules.busy,
    indexed,
    openInstant - beforeMs,
    closeInstant + afterMs,
  );
  const free = new Uint8Array(indexed.length);
  // Counting arrivals no window paces would only be wasted work.
  const paces = windows.some((bookable) => bookable.pacing !== null);
  // Stryker disable next-line ConditionalExpression: with no window pacing, the counted arrivals are never read
  const loads = loadsByStart(paces ? rules.arrivals : undefined);
  const classes = heldClasses(rules);
  const requirements = requirementsAsked(rules.requirements, rules.resourceId);
  // Each group's candidates, best fit first, by position.
  // Single resources are offered unless the service's groups are.
  const single = requirements === null;
  const candidateIds = candidates.map((resource) => resource.id);
  // Each group's candidates by position, so in the candidates' best-fit order.
  const groupPositions = requirements?.map((group) => {
    const members = new Set(group.resourceIds);
    return candidateIds.flatMap((id, r) => (members.has(id) ? [r] : []));
  });
  const slots: Slot[] = [];
  for (const bookable of windows) {
    const durationMs = bookingMinutes({ ...rules, turnTimes: bookable.turnTimes }) * MINUTE_MS;
    const inPeriod = candidates.map((resource) => performs(bookable.resourceIds, resource.id));
    const joinedInPeriod = combinations.map((combination) => withinPeriod(combination, bookable.resourceIds));
    // Grid starts only grow within a window, so each resource's scan position only moves forward.
    const scanned = offsets.slice(0, indexed.length);
    for (
      let minute = firstGridMinute(bookable);
      minute < bookable.closeMinute && minute <= bookable.lastStartMinute;
      minute += bookable.intervalMinutes
    ) {
      const start = resolveWall(span, midnight + minute * MINUTE_MS);
      if (start === null) continue;
      const end = start + durationMs;
      if (end > bookable.closeInstant) break;
      if (start < range.earliestStart) continue;
      const heldStart = start - beforeMs;
      const heldEnd = end + afterMs;
      const freeResourceIds: string[] = [];
      for (let r = 0; r < indexed.length; r++) {
        const first = offsets[r]!;
        const last = offsets[r + 1]!;
        let p = scanned[r]!;
        while (p < last && starts[p]! < heldEnd) p++;
        scanned[r] = p;
        free[r] = p === first || maxEnds[p - 1]! <= heldStart ? 1 : 0;
        if (single && r < candidates.length && inPeriod[r] && free[r])
          freeResourceIds.push(candidates[r]!.id);
      }
      const freeCombinationIds: string[] = [];
      for (let c = 0; c < combinations.length; c++) {
        if (joinedInPeriod[c] && joinedAt[c]!.every((position) => free[position])) {
          freeCombinationIds.push(combinations[c]!.id);
        }
      }
      // A start the party would pace past is not offered: as if nothing were free.
      const paced = pacingRefusal(bookable.pacing, loads.get(start), rules.partySize) !== null;
      const time = formatMinutes(minute);
      let slot: Slot;
      if (groupPositions) {
        // One loop per group, no intermediate arrays: this runs for every start of the day.
        const freeByRequirement: string[][] = [];
        let sets = Number.POSITIVE_INFINITY;
        for (let g = 0; g < groupPositions.length; g++) {
          const groupFree: string[] = [];
          if (!paced) {
            const positions = groupPositions[g]!;
            for (let k = 0; k < positions.length; k++) {
              const r = positions[k]!;
              if (inPeriod[r] && free[r]) groupFree.push(candidateIds[r]!);
            }
          }
          freeByRequirement.push(groupFree);
          sets = Math.min(sets, Math.floor(groupFree.length / requirements![g]!.count));
        }
        // Built whole, one shape for every slot of the day.
        slot = {
          time,
          start,
          end,
          freeResourceIds,
          freeCombinationIds,
          period: bookable.period,
          freeByRequirement,
          requirementSets: sets,
        };
      } else {
        slot = {
          time,
          start,
          end,
          freeResourceIds: paced ? [] : freeResourceIds,
          freeCombinationIds: paced ? [] : freeCombinationIds,
          period: bookable.period,
        };
      }
      if (rules.class) {
        const seated = classSeats(rules.class, rules.partySize, classes.get(start), slot.freeResourceIds);
        slot.freeResourceIds = seated.freeResourceIds;
        slot.seatsLeft = seated.seatsLeft;
      }
      slots.push(slot);
    }
  }
  return { closure: null, slots };
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

function failure(reason: StartCheckFailure, message: string): StartCheck {
  return { ok: false, reason, message };
}

/**
 * Whether a booking may start at wall-clock `time` on `rules.date`, and which resources are
 * free for it. Checks run in the order of the failures' precedence: hours, grid, notice and
 * window, then resources.
 */
export function checkStart(rules: DayRules, time: string, options: StartOptions): StartCheck {
  const asked = minutesOf(time);
  if (asked === null) return failure('outside_operating_hours', `${time} is not a valid HH:MM time.`);
  const { date } = rules;
  const window = openWindow(rules);
  if (window === 'blackout') return failure('outside_operating_hours', `The business is closed on ${date}.`);
  if (window === 'closed') return failure('outside_operating_hours', `The business is not open on ${date}.`);
  const { openMinute, closeMinute, midnight, span } = window;
  const hoursText = `${formatMinutes(openMinute)}-${formatMinutes(closeMinute)}`;
  const minute = dayMinute(window, asked);
  const shown = formatMinutes(minute);
  if (minute < openMinute || minute >= closeMinute) {
    return failure('outside_operating_hours', `${shown} is outside opening hours (${hoursText}) on ${date}.`);
  }
  const windows = bookableWindows(rules, window);
  if (windows === 'outside_period') {
    return failure('outside_operating_hours', `No service period of ${date} is inside its opening hours.`);
  }
  const bookable = windowAt(windows, minute);
  if (!bookable) {
    const periodsText = windows
      .map((w) => `${w.period!.name} ${formatMinutes(w.fromMinute)}-${formatMinutes(w.closeMinute)}`)
      .join(', ');
    return failure(
      'outside_operating_hours',
      `${shown} is outside the service periods of ${date} (${periodsText}).`,
    );
  }
  if (minute > bookable.lastStartMinute) {
    return failure(
      'outside_operating_hours',
      `The last booking ${bookable.period === null ? 'on' : `of ${bookable.period.name} on`} ${date} starts at ${formatMinutes(bookable.lastStartMinute)}; ${shown} is later.`,
    );
  }
  const start = resolveWall(span, midnight + minute * MINUTE_MS);
  if (start === null) {
    return failure(
      'outside_operating_hours',
      `${shown} does not exist on that night in ${rules.timezone}: the clocks skip it.`,
    );
  }
  const minutes = bookingMinutes({ ...rules, turnTimes: bookable.turnTimes });
  const end = start + minutes * MINUTE_MS;
  if (end > bookable.closeInstant) {
    const ending = formatMinutes(bookable.closeMinute);
    return failure(
      'outside_operating_hours',
      bookable.period === null
        ? `A ${minutes}-minute booking at ${shown} would end after closing time (${ending}).`
        : `A ${minutes}-minute booking at ${shown} would end after ${bookable.period.name} ends (${ending}).`,
    );
  }
  if (options.onGrid && (minute - bookable.gridStart) % bookable.intervalMinutes !== 0) {
    return failure(
      'off_grid',
      `${shown} is not a slot start: slots start every ${bookable.intervalMinutes} minutes from ${formatMinutes(bookable.gridStart)}.`,
    );
  }
  if (!options.ignoreNoticeAndWindow) {
    const range = bookableRange(rules);
    if (start < rules.now) {
      return failure('outside_booking_window', `${date} ${shown} is in the past.`);
    }
    if (date > range.lastDate) {
      return failure(
        'outside_booking_window',
        `Bookings open ${plural(rules.bookingWindowDays, 'day')} ahead; ${date} is after ${range.lastDate}.`,
      );
    }
    if (start < range.earliestStart) {
      return failure(
        'outside_booking_window',
        `Bookings need ${plural(rules.minNoticeHours, 'hour')} notice; ${date} ${shown} is too soon.`,
      );
    }
  }
  const paced =
    // Stryker disable next-line ConditionalExpression,LogicalOperator: without caps pacing refuses nothing, counted or not
    options.passPacing || bookable.pacing === null
      ? null
      : pacingRefusal(bookable.pacing, loadsByStart(rules.arrivals).get(start), rules.partySize);
  if (paced) return failure('slot_unavailable', pacingMessage(paced, `${shown} on ${date}`, rules.partySize));
  const heldStart = start - rules.bufferBeforeMinutes * MINUTE_MS;
  const heldEnd = end + rules.bufferAfterMinutes * MINUTE_MS;
  const blocked = new Set<string>();
  for (const period of rules.busy) {
    if (holds(period, heldStart, heldEnd)) blocked.add(period.resourceId);
  }
  const freeResourceIds: string[] = [];
  for (const resource of candidateResources(rules)) {
    if (!blocked.has(resource.id) && performs(bookable.resourceIds, resource.id)) {
      freeResourceIds.push(resource.id);
    }
  }
  const freeCombinationIds = usableCombinations(rules)
    .filter(
      (combination) =>
        withinPeriod(combination, bookable.resourceIds) &&
        combination.resourceIds.every((id) => !blocked.has(id)),
    )
    .map((combination) => combination.id);
  const found = { ok: true as const, start, end, heldStart, heldEnd, pacing: bookable.pacing };
  const requirements = requirementsAsked(rules.requirements, rules.resourceId);
  if (requirements) {
    // The free candidates are the groups' resources: each group takes its own, in their order.
    const freeByRequirement = requirements.map((group) =>
      freeResourceIds.filter((id) => group.resourceIds.includes(id)),
    );
    const requirementSets = completeSets(requirements, freeByRequirement);
    if (requirementSets === 0) {
      return failure(
        'slot_unavailable',
        `No ${missingRequirements(requirements, freeByRequirement).join(' and no ')} for a party of ${rules.partySize} is free on ${date} at ${shown}.`,
      );
    }
    return { ...found, freeResourceIds: [], freeCombinationIds: [], freeByRequirement, requirementSets };
  }
  const held = rules.class ? heldClasses(rules).get(start) : undefined;
  const seated = rules.class && classSeats(rules.class, rules.partySize, held, freeResourceIds);
  // Seats, not resources, refuse the party: the class is held here, or a free resource would start it.
  if (seated && seated.freeResourceIds.length === 0 && (held !== undefined || freeResourceIds.length > 0)) {
    return failure(
      'slot_unavailable',
      classFullMessage(`${shown} on ${date}`, seated.seatsLeft, rules.partySize),
    );
  }
  const offered = seated ? seated.freeResourceIds : freeResourceIds;
  if (offered.length === 0 && freeCombinationIds.length === 0) {
    return failure(
      'slot_unavailable',
      `No resource for a party of ${rules.partySize} is free on ${date} at ${shown}.`,
    );
  }
  return {
    ...found,
    freeResourceIds: offered,
    freeCombinationIds,
    ...(seated && { seatsLeft: seated.seatsLeft }),
  };
}

/**
 * The absolute period any slot of the day can hold, buffers included: from opening minus the
 * buffer before to closing plus the buffer after. Null when the day is closed or blacked out,
 * so callers load busy periods for exactly this period, or not at all.
 */
export function heldSpan(rules: Omit<DayRules, 'busy'>): { start: number; end: number } | null {
  const window = openWindow({ ...rules, busy: [] });
  if (window === 'blackout' || window === 'closed') return null;
  const open = resolveWallBoundary(window.span, window.midnight + window.openMinute * MINUTE_MS);
  return {
    start: open - rules.bufferBeforeMinutes * MINUTE_MS,
    end: window.closeInstant + rules.bufferAfterMinutes * MINUTE_MS,
  };
}
