/**
 * Wall-clock dates and times in an IANA time zone, as epoch milliseconds and back. Calendar
 * arithmetic is integer arithmetic on day numbers; only the zone's UTC offsets come from Intl,
 * measured once per zone and UTC day.
 */

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const SECOND_MS = 1000;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

export interface WallTime {
  /** `YYYY-MM-DD` */
  date: string;
  /** `HH:MM` */
  time: string;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function civilFromDays(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function pad4(n: number): string {
  return String(n).padStart(4, '0');
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01, or NaN when `date` is not a real `YYYY-MM-DD` calendar date. */
function dayNumber(date: string): number {
  const match = DATE_RE.exec(date);
  if (!match) return Number.NaN;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return Number.NaN;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!;
  if (day > monthDays) return Number.NaN;
  return daysFromCivil(year, month, day);
}

function requireDayNumber(date: string): number {
  const days = dayNumber(date);
  if (Number.isNaN(days)) throw new RangeError(`Not a YYYY-MM-DD date: ${date}`);
  return days;
}

/** `date` plus `n` calendar days. Throws a RangeError for a malformed date. */
export function addDays(date: string, n: number): string {
  return civilFromDays(requireDayNumber(date) + n);
}

/** 0 = Sunday ... 6 = Saturday. Throws a RangeError for a malformed date. */
export function dayOfWeek(date: string): number {
  // 1970-01-01 was a Thursday.
  return (((requireDayNumber(date) + 4) % 7) + 7) % 7;
}

/** Seconds since midnight of `HH:MM` or `HH:MM:SS`, or null when malformed. */
function secondsOf(time: string): number | null {
  const match = TIME_RE.exec(time);
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  const seconds = match[3] === undefined ? 0 : Number(match[3]);
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  return hours * 3600 + minutes * 60 + seconds;
}

/** Minutes since midnight of `HH:MM` or `HH:MM:SS` (seconds are dropped), or null when malformed. */
export function minutesOf(time: string): number | null {
  const seconds = secondsOf(time);
  return seconds === null ? null : Math.floor(seconds / 60);
}

const HHMM: readonly string[] = Array.from(
  { length: 1440 },
  (_, minute) => `${pad2(Math.floor(minute / 60))}:${pad2(minute % 60)}`,
);

/** `HH:MM` of a minute of the day; minutes past midnight of a following day wrap around. */
export function formatMinutes(minutes: number): string {
  return HHMM[((minutes % 1440) + 1440) % 1440]!;
}

// Creating a DateTimeFormat costs far more than using one; zones are few.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    // Stryker disable next-line all: an uncached formatter formats the same; the cache only saves time
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallParts(instant: number, timeZone: string): WallParts {
  // Stryker disable next-line ObjectLiteral: formatToParts sets every one of these fields
  const wall: WallParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    switch (part.type) {
      case 'year':
      case 'month':
      case 'day':
      case 'minute':
      case 'second':
        wall[part.type] = Number(part.value);
        break;
      case 'hour':
        wall.hour = Number(part.value) % 24;
        break;
    }
  }
  return wall;
}

/** The zone's offset at `instant` as Intl reads it: wall clock read as UTC minus the instant. */
function measuredOffsetAt(instant: number, timeZone: string): number {
  const wall = wallParts(instant, timeZone);
  const wallAsUtc =
    daysFromCivil(wall.year, wall.month, wall.day) * DAY_MS +
    (wall.hour * 3600 + wall.minute * 60 + wall.second) * SECOND_MS;
  return wallAsUtc - (instant - (((instant % SECOND_MS) + SECOND_MS) % SECOND_MS));
}

/** A zone's offsets over one UTC day: before and from `transition` (Infinity when none). */
interface DayOffsets {
  before: number;
  after: number;
  transition: number;
}

/** Past this many UTC days a zone's remembered offsets are forgotten and measured again. */
const OFFSET_DAYS_KEPT = 4096;
const offsetDays = new Map<string, Map<number, DayOffsets>>();

/**
 * A zone's offsets over the UTC day `day` (days since 1970-01-01), measured once: formatting an
 * instant is the slow part of every conversion, and a day's conversions share a couple of offsets.
 * No zone changes its offset twice within a day, so the offsets at the day's two ends tell whether
 * it changes, and a bisection of seconds when.
 */
function offsetsOfDay(day: number, timeZone: string): DayOffsets {
  let days = offsetDays.get(timeZone);
  if (!days) {
    days = new Map();
    offsetDays.set(timeZone, days);
  }
  let offsets = days.get(day);
  if (!offsets) {
    let before = day * (DAY_MS / SECOND_MS);
    let after = before + DAY_MS / SECOND_MS;
    const offsetBefore = measuredOffsetAt(before * SECOND_MS, timeZone);
    const offsetAfter = measuredOffsetAt(after * SECOND_MS, timeZone);
    if (offsetBefore !== offsetAfter) {
      while (after - before > 1) {
        const middle = Math.floor((before + after) / 2);
        if (measuredOffsetAt(middle * SECOND_MS, timeZone) === offsetBefore) before = middle;
        else after = middle;
      }
    }
    offsets = {
      before: offsetBefore,
      after: offsetAfter,
      transition: offsetBefore === offsetAfter ? Number.POSITIVE_INFINITY : after * SECOND_MS,
    };
    if (days.size >= OFFSET_DAYS_KEPT) days.clear();
    days.set(day, offsets);
  }
  return offsets;
}

/** The zone's offset at `instant` in milliseconds: wall clock read as UTC minus the instant. */
function offsetAt(instant: number, timeZone: string): number {
  const offsets = offsetsOfDay(Math.floor(instant / DAY_MS), timeZone);
  return instant < offsets.transition ? offsets.before : offsets.after;
}

/**
 * The zone's offsets around a stretch of wall-clock time: the offset before and after it and
 * the instant it changes (Infinity when it does not). Wall-clock values are epoch milliseconds
 * of the wall clock read as if it were UTC. Offsets never exceed a day, so one day of margin
 * on each side brackets every instant the stretch can map to; no zone changes its offset twice
 * within such a span.
 */
export interface ZoneSpan {
  offsetBefore: number;
  offsetAfter: number;
  transition: number;
}

export function zoneSpan(timeZone: string, wallFrom: number, wallTo: number): ZoneSpan {
  const low = wallFrom - DAY_MS;
  const high = wallTo + DAY_MS;
  const offsetBefore = offsetAt(low, timeZone);
  const offsetAfter = offsetAt(high, timeZone);
  if (offsetBefore === offsetAfter)
    return { offsetBefore, offsetAfter, transition: Number.POSITIVE_INFINITY };
  // Offsets change on whole seconds: bisect seconds for the first one with the new offset.
  let before = Math.floor(low / SECOND_MS);
  let after = Math.ceil(high / SECOND_MS);
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (offsetAt(middle * SECOND_MS, timeZone) === offsetBefore) before = middle;
    else after = middle;
  }
  return { offsetBefore, offsetAfter, transition: after * SECOND_MS };
}

/** The instant of a wall-clock value; the first when it occurs twice, null when it is skipped. */
export function resolveWall(span: ZoneSpan, wall: number): number | null {
  const early = wall - span.offsetBefore;
  if (early < span.transition) return early;
  const late = wall - span.offsetAfter;
  return late >= span.transition ? late : null;
}

/** Like resolveWall, but a skipped wall-clock value becomes the moment the clock jumps past it. */
export function resolveWallBoundary(span: ZoneSpan, wall: number): number {
  return resolveWall(span, wall) ?? span.transition;
}

/** Wall-clock milliseconds (read as UTC) of midnight starting `date`, or NaN when malformed. */
export function wallMidnight(date: string): number {
  return dayNumber(date) * DAY_MS;
}

/**
 * Epoch milliseconds of a wall-clock `date` and `time` (`HH:MM` or `HH:MM:SS`) in `timeZone`.
 * A time that occurs twice (autumn fall-back) means its first occurrence. Null when the time
 * does not exist there (spring-forward gap) or the date or time is malformed.
 */
export function wallTimeToInstant(date: string, time: string, timeZone: string): number | null {
  const seconds = secondsOf(time);
  const midnight = wallMidnight(date);
  if (seconds === null || Number.isNaN(midnight)) return null;
  const wall = midnight + seconds * SECOND_MS;
  return resolveWall(zoneSpan(timeZone, wall, wall), wall);
}

/** The wall-clock date and `HH:MM` time of `instant` in `timeZone`. */
export function instantToWall(instant: number, timeZone: string): WallTime {
  const wall = instant + offsetAt(instant, timeZone);
  const day = Math.floor(wall / DAY_MS);
  return { date: civilFromDays(day), time: HHMM[Math.floor((wall - day * DAY_MS) / MINUTE_MS)]! };
}

/** `instant` as ISO 8601 in `timeZone`'s wall clock with its offset, to the minute: `2026-03-29T03:00:00+02:00`. */
export function isoWithOffset(instant: number, timeZone: string): string {
  const { date, time } = instantToWall(instant, timeZone);
  const offsetMinutes = Math.round(offsetAt(instant, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${date}T${time}:00${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/** The date it is in `timeZone` at `now`. */
export function todayIn(timeZone: string, now: number): string {
  return instantToWall(now, timeZone).date;
}
