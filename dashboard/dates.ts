/** Dates as the screens take them from a route and show them: the venue's calendar. */
import { instantToWall } from '../src/engine/time.ts';

/** A real calendar date `YYYY-MM-DD` (a hand-typed route may hold `2026-02-30`). */
export const isDate = (value: string | undefined): value is string =>
  /^\d{4}-\d{2}-\d{2}$/.test(value ?? '') &&
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
  new Date(`${value}T00:00:00Z`).toISOString().startsWith(value!);

/** The date and the `HH:MM` it is now in the venue's zone. */
export const venueNow = (timeZone: string) => instantToWall(Date.now(), timeZone);
