import { randomUUID } from 'node:crypto';
import type { AvailabilityService } from '../availability/availability.service.ts';
import { type BookingStatus, isTerminal, VISITED_STATUSES } from '../engine/status.ts';
import { addDays } from '../engine/time.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, type ErrorCode, invalidField, notFound } from '../platform/errors.ts';
import {
  type BookingChange,
  changeBooking,
  createBooking,
  type HeldBooking,
  type NewBooking,
} from './bookings.service.ts';
import type { BookingView } from './bookings.view.ts';
import { inSavepoint, seriesBookings, seriesBookingViews } from './series.queries.ts';

type Caller = Principal & { businessId: string };

/** The most occurrences one series places: a year of weekly visits. */
export const SERIES_MAX = 52;

export interface Recurrence {
  every_weeks: number;
  count?: number;
  until?: string;
}

/**
 * The dates of a series from its first: every `every_weeks` weeks, `count` of them or each up to
 * `until`. A date, not an instant: each occurrence is placed at the same wall-clock time, whatever
 * daylight saving does between them.
 */
export function occurrenceDates(first: string, recurrence: Recurrence): string[] {
  const { count, until } = recurrence;
  if ((count === undefined) === (until === undefined)) {
    throw invalidField('recurrence', 'needs count or until, one of them');
  }
  if (until !== undefined && until < first) throw invalidField('recurrence.until', 'must not be before date');
  const step = 7 * recurrence.every_weeks;
  const dates: string[] = [];
  for (
    let date = first;
    count !== undefined ? dates.length < count : date <= until!;
    date = addDays(date, step)
  ) {
    if (dates.length === SERIES_MAX) {
      throw invalidField('recurrence.until', `gives more than ${SERIES_MAX} occurrences`);
    }
    dates.push(date);
  }
  if (dates.length < 2)
    throw invalidField('recurrence.until', 'gives one occurrence; a series has at least 2');
  return dates;
}

/** An occurrence the series could not place, and why, as a single booking would have been refused. */
export interface NotPlaced {
  booking_date: string;
  reason: ErrorCode;
  message: string;
}

export interface PlacedSeries {
  series_id: string;
  bookings: BookingView[];
  not_placed: NotPlaced[];
  /** The UTC dates the placed bookings hold, for the caches. */
  heldDates: string[];
}

/** The UTC dates bookings placed or changed together hold, each once, for the caches. */
const heldDatesOf = (bookings: readonly HeldBooking[]) => [
  ...new Set(bookings.flatMap((held) => held.heldDates)),
];

/**
 * A staff series in one transaction: each occurrence is a booking of its own under every rule of a
 * staff booking, placed in a savepoint so that one refused leaves the others. Every refusal is
 * listed; with `allOrNothing`, any refusal refuses the series and nothing is placed. A series of
 * which nothing can be placed is refused as its first occurrence was.
 */
export async function placeSeries(
  tx: Tx,
  availability: AvailabilityService,
  caller: Caller,
  input: NewBooking,
  dates: readonly string[],
  allOrNothing: boolean,
  now: number,
): Promise<PlacedSeries> {
  const seriesId = randomUUID();
  const placed: HeldBooking[] = [];
  const notPlaced: NotPlaced[] = [];
  let firstRefusal: AppError | undefined;
  for (const date of dates) {
    try {
      placed.push(
        await inSavepoint(tx, () =>
          createBooking(tx, availability, caller, { ...input, date, seriesId }, now),
        ),
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      firstRefusal ??= error;
      notPlaced.push({ booking_date: date, reason: error.code, message: error.message });
    }
  }
  if (firstRefusal && (allOrNothing || placed.length === 0)) {
    const which = notPlaced.map((refused) => `${refused.booking_date} (${refused.message})`).join('; ');
    throw new AppError(firstRefusal.code, `not every occurrence can be placed: ${which}`);
  }
  return {
    series_id: seriesId,
    bookings: placed.map((held) => held.booking),
    not_placed: notPlaced,
    heldDates: heldDatesOf(placed),
  };
}

/** The series' bookings, in date order; 404 for a series the business has none of. */
export async function seriesOf(executor: Executor, businessId: string, seriesId: string) {
  const rows = await seriesBookingViews(executor, businessId, seriesId);
  if (!rows.length) throw notFound('series');
  return { series_id: seriesId, bookings: rows.map((row) => row.view) };
}

export interface SeriesChange {
  series_id: string;
  bookings: BookingView[];
  heldDates: string[];
}

/**
 * One change made to each open occurrence from `fromDate` on (every one when absent), in one
 * transaction: any occurrence refused refuses the change, its date named. Occurrences seated or
 * closed are left as they are.
 */
export async function changeSeries(
  tx: Tx,
  availability: AvailabilityService,
  actor: Caller,
  seriesId: string,
  fromDate: string | undefined,
  now: number,
  change: BookingChange,
): Promise<SeriesChange> {
  const occurrences = await seriesBookings(tx, actor.businessId, seriesId);
  if (!occurrences.length) throw notFound('series');
  // Not yet arrived nor closed: a seated or finished occurrence is the day's, not the series'.
  const open = occurrences.filter(
    (row) =>
      (fromDate === undefined || row.booking_date >= fromDate) &&
      !isTerminal(row.status) &&
      !VISITED_STATUSES.includes(row.status as BookingStatus),
  );
  const changed: HeldBooking[] = [];
  for (const row of open) {
    try {
      changed.push(await changeBooking(tx, availability, actor, row.id, change, now));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw new AppError(error.code, `${row.booking_date}: ${error.message}`);
    }
  }
  return {
    series_id: seriesId,
    bookings: changed.map((held) => held.booking),
    heldDates: heldDatesOf(changed),
  };
}
