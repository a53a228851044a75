import { addDays, dayOfWeek, todayIn } from '../engine/index.ts';
import { BOOKING_STATUSES, type BookingStatus } from '../engine/status.ts';
import type { Executor } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import { findBusinessTimezone } from '../public/public.queries.ts';
import { dailyCounts, loadStats } from './stats.queries.ts';

/** The longest period one request may cover, so a request stays one quick statement. */
const MAX_DAYS = 366;
/** How many resources `top_resources` ranks. */
const TOP_RESOURCES = 10;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A percentage of `part` in `whole`, one decimal, 0 when there is no whole. */
const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

/** The period a request asks for, dates in the business's time zone: by default its month so far. */
async function statsPeriod(
  executor: Executor,
  businessId: string,
  query: { from_date?: string; to_date?: string },
  now: number,
) {
  const timezone = await findBusinessTimezone(executor, businessId);
  if (timezone === undefined) throw notFound('business');
  const today = todayIn(timezone, now);
  const from = query.from_date ?? `${today.slice(0, 8)}01`;
  const to = query.to_date ?? today;
  if (to < from) throw invalidField('to_date', `must not be before from_date (${from})`);
  if (addDays(from, MAX_DAYS - 1) < to) {
    throw invalidField(
      'to_date',
      `the period may cover at most ${MAX_DAYS} days; ${from} to ${to} is longer`,
    );
  }
  return { from, to };
}

/**
 * The business's statistics for bookings dated `from`..`to` (both included), dates in its time
 * zone: by default from the first of its current month to its today.
 */
export async function businessStats(
  executor: Executor,
  businessId: string,
  query: { from_date?: string; to_date?: string },
  now: number,
) {
  const { from, to } = await statsPeriod(executor, businessId, query, now);
  const stats = await loadStats(executor, businessId, { from, to });
  const count = (status: string) => stats.statuses.find((s) => s.status === status)?.count ?? 0;
  const total = stats.statuses.reduce((sum, s) => sum + s.count, 0);
  const kept = stats.statuses.filter((s) => s.status !== 'cancelled');
  const parties = kept.reduce((sum, s) => sum + s.count, 0);
  const covers = kept.reduce((sum, s) => sum + s.covers, 0);
  return {
    period: { from, to },
    bookings: {
      total,
      pending: count('pending'),
      confirmed: count('confirmed'),
      checked_in: count('checked_in'),
      completed: count('completed'),
      cancelled: count('cancelled'),
      no_show: count('no_show'),
    },
    revenue: {
      deposits_captured_cents: stats.deposits.captured_cents,
      deposits_held_cents: stats.deposits.held_cents,
      deposits_released_cents: stats.deposits.released_cents,
    },
    rates: {
      no_show_pct: percent(count('no_show'), total),
      cancellation_pct: percent(count('cancelled'), total),
      completion_pct: percent(count('completed'), total),
    },
    capacity: {
      avg_party_size: parties > 0 ? Math.round((covers / parties) * 10) / 10 : 0,
      total_covers: covers,
    },
    busy_hours: stats.busy_hours,
    busy_days: stats.busy_days.map((day) => ({ ...day, day_name: DAY_NAMES[dayOfWeek(day.date)]! })),
    top_resources: stats.resources.slice(0, TOP_RESOURCES).map((r) => ({
      resource_id: r.resource_id,
      resource_name: r.resource_name,
      booking_count: r.booking_count,
      utilization_pct: percent(r.booked_minutes, stats.open_minutes),
    })),
  };
}

/** One day of the daily download: its bookings by status, and the covers of those not cancelled. */
export type StatsDay = { date: string; day_name: string; bookings: number; covers: number } & Record<
  BookingStatus,
  number
>;

/** The period's days in order, every one of them (a day without bookings counts zeros). */
export async function dailyStats(
  executor: Executor,
  businessId: string,
  query: { from_date?: string; to_date?: string },
  now: number,
): Promise<StatsDay[]> {
  const { from, to } = await statsPeriod(executor, businessId, query, now);
  const counts = await dailyCounts(executor, businessId, { from, to });
  const days: StatsDay[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const ofDay = counts.filter((row) => row.date === date);
    const byStatus = Object.fromEntries(
      BOOKING_STATUSES.map((status) => [status, ofDay.find((row) => row.status === status)?.count ?? 0]),
    ) as Record<BookingStatus, number>;
    days.push({
      date,
      day_name: DAY_NAMES[dayOfWeek(date)]!,
      bookings: ofDay.reduce((sum, row) => sum + row.count, 0),
      covers: ofDay.filter((row) => row.status !== 'cancelled').reduce((sum, row) => sum + row.covers, 0),
      ...byStatus,
    });
  }
  return days;
}
