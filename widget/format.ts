/**
 * Dates and times as the venue sees them. A `YYYY-MM-DD` day and an `HH:MM` slot are already the
 * venue's wall clock: they are formatted as UTC instants in UTC, so the visitor's own zone never
 * shifts them. An instant (a booking's `starts_at`) is formatted in the venue's zone.
 */

import { clockFields, type HourCycle } from '../src/engine/clock.ts';

const wall = (date: string, time = '12:00') => new Date(`${date}T${time}:00Z`);

const format = (lang: string, options: Intl.DateTimeFormatOptions, at: Date) =>
  new Intl.DateTimeFormat(lang, options).format(at);

/** Today's date in the zone, `YYYY-MM-DD` (the Canadian English format is ISO's). */
export const todayIn = (timeZone: string) =>
  format('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }, new Date());

export const monthTitle = (lang: string, month: string) =>
  format(lang, { timeZone: 'UTC', month: 'long', year: 'numeric' }, wall(`${month}-01`));

export const dayLong = (lang: string, date: string) =>
  format(
    lang,
    { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' },
    wall(date),
  );

export const dayShort = (lang: string, date: string) =>
  format(lang, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }, wall(date));

export const weekdayShort = (lang: string, date: string) =>
  format(lang, { timeZone: 'UTC', weekday: 'short' }, wall(date));

/** How a wall time reads on the venue's clock (`hourCycleOf`; the language's when not given); kept by a caller that formats many. */
export const clockOf = (lang: string, hourCycle?: HourCycle) =>
  new Intl.DateTimeFormat(lang, { timeZone: 'UTC', ...clockFields(hourCycle) });

/** A wall time `HH:MM` on a clock (the day matters not: wall times are read in UTC). */
export const timeOn = (clock: Intl.DateTimeFormat, time: string, date = '2000-01-01') =>
  clock.format(wall(date, time));

export const slotTime = (lang: string, date: string, time: string, hourCycle?: HourCycle) =>
  timeOn(clockOf(lang, hourCycle), time, date);

export const instantInZone = (lang: string, timeZone: string, iso: string, hourCycle?: HourCycle) =>
  format(
    lang,
    {
      timeZone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      ...clockFields(hourCycle),
      timeZoneName: 'short',
    },
    new Date(iso),
  );

/** The zone's name in the visitor's language, e.g. "heure normale d’Europe centrale". */
export const zoneName = (lang: string, timeZone: string) =>
  new Intl.DateTimeFormat(lang, { timeZone, timeZoneName: 'longGeneric' })
    .formatToParts(new Date())
    .find((part) => part.type === 'timeZoneName')?.value ?? timeZone;

export const money = (lang: string, cents: number) =>
  new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(cents / 100);

/** `YYYY-MM` plus `delta` months. */
export function addMonths(month: string, delta: number): string {
  const [year, index] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, index - 1 + delta, 1)).toISOString().slice(0, 7);
}

/** Every date of the month, `YYYY-MM-DD`. */
export function datesOf(month: string): string[] {
  const dates: string[] = [];
  for (
    let day = wall(`${month}-01`);
    day.toISOString().startsWith(month);
    day.setUTCDate(day.getUTCDate() + 1)
  ) {
    dates.push(day.toISOString().slice(0, 10));
  }
  return dates;
}

/** 0 = Sunday ... 6 = Saturday, of a wall date. */
export const weekdayOf = (date: string) => wall(date).getUTCDay();
