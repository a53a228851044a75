import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

export interface StatsPeriod {
  from: string;
  to: string;
}

export interface StatusCount {
  status: string;
  count: number;
  covers: number;
}

export interface StatsRow {
  statuses: StatusCount[];
  busy_hours: { hour: number; count: number; covers: number }[];
  busy_days: { date: string; count: number; covers: number }[];
  resources: { resource_id: string; resource_name: string; booking_count: number; booked_minutes: number }[];
  deposits: { captured_cents: number; held_cents: number; released_cents: number };
  open_minutes: number;
}

const periodBookings = (businessId: string, period: StatsPeriod) =>
  sql`business_id = ${businessId} AND booking_date BETWEEN ${period.from}::date AND ${period.to}::date`;

/**
 * Counts (bookings and covers) by status, date and hour from one scan of the period's bookings: grouped first by
 * (date, start time, status), a few dozen rows a day, then rolled up three ways. The hour is taken from those
 * rows, not from each booking: extracting it from every booking cost more than the twice as many groups.
 */
async function bookingCounts(executor: Executor, businessId: string, period: StatsPeriod) {
  const { rows } = await sql<Pick<StatsRow, 'statuses' | 'busy_days' | 'busy_hours'>>`
    WITH g AS MATERIALIZED (
      SELECT booking_date, start_time, status, count(*)::int AS n,
        sum(capacity)::int AS covers
      FROM bookings WHERE ${periodBookings(businessId, period)}
      GROUP BY 1, 2, 3
    )
    SELECT
      (SELECT coalesce(json_agg(json_build_object('status', status, 'count', n, 'covers', covers)), '[]')
        FROM (SELECT status, sum(n)::int AS n, sum(covers)::int AS covers FROM g GROUP BY 1) AS s
      ) AS statuses,
      (SELECT coalesce(json_agg(json_build_object('date', booking_date, 'count', n, 'covers', covers) ORDER BY n DESC, booking_date), '[]')
        FROM (SELECT booking_date, sum(n)::int AS n, sum(covers)::int AS covers FROM g WHERE status <> 'cancelled' GROUP BY 1) AS d
      ) AS busy_days,
      (SELECT coalesce(json_agg(json_build_object('hour', hour, 'count', n, 'covers', covers) ORDER BY n DESC, hour), '[]')
        FROM (SELECT extract(hour FROM start_time)::int AS hour, sum(n)::int AS n, sum(covers)::int AS covers
          FROM g WHERE status <> 'cancelled' GROUP BY 1) AS h
      ) AS busy_hours
  `.execute(executor);
  return rows[0]!;
}

/** Bookings and covers by date and status, for the daily download: only the dates that have bookings. */
export async function dailyCounts(executor: Executor, businessId: string, period: StatsPeriod) {
  const { rows } = await sql<StatusCount & { date: string }>`
    SELECT to_char(booking_date, 'YYYY-MM-DD') AS date, status, count(*)::int AS count,
      sum(capacity)::int AS covers
    FROM bookings WHERE ${periodBookings(businessId, period)}
    GROUP BY booking_date, status
  `.execute(executor);
  return rows;
}

/** The active resources with their bookings (not cancelled) and booked minutes, most booked first. */
async function resourceCounts(executor: Executor, businessId: string, period: StatsPeriod) {
  const { rows } = await sql<StatsRow['resources'][number]>`
    SELECT r.id AS resource_id, r.name AS resource_name, coalesce(k.n, 0)::int AS booking_count,
      coalesce(k.minutes, 0)::int AS booked_minutes
    FROM resources r
    LEFT JOIN (
      SELECT resource_id, count(*) AS n, sum(duration_minutes) AS minutes
      FROM bookings WHERE ${periodBookings(businessId, period)} AND status <> 'cancelled'
      GROUP BY 1
    ) AS k ON k.resource_id = r.id
    WHERE r.business_id = ${businessId} AND r.deleted_at IS NULL AND r.is_active
    ORDER BY coalesce(k.n, 0) DESC, r.display_order, r.id
  `.execute(executor);
  return rows;
}

/**
 * Deposit sums of the period's bookings, and the period's open minutes: real minutes between
 * opening and closing in the business's time zone (a day that loses an hour to daylight saving
 * has one hour less open), none on blackout dates; an overnight window belongs to the day it opens.
 */
async function depositsAndOpenMinutes(executor: Executor, businessId: string, period: StatsPeriod) {
  const { rows } = await sql<Pick<StatsRow, 'deposits' | 'open_minutes'>>`
    SELECT
      (SELECT json_build_object(
          'captured_cents', coalesce(sum(d.amount_cents) FILTER (WHERE d.status IN ('paid', 'captured')), 0),
          'held_cents', coalesce(sum(d.amount_cents) FILTER (WHERE d.status = 'held'), 0),
          'released_cents', coalesce(sum(d.amount_cents) FILTER (WHERE d.status = 'released'), 0))
        FROM deposits d JOIN bookings b ON b.id = d.booking_id AND b.business_id = d.business_id
        WHERE d.business_id = ${businessId} AND b.booking_date BETWEEN ${period.from}::date AND ${period.to}::date
      ) AS deposits,
      (SELECT coalesce(sum(extract(epoch FROM (
          ((day::date + h.close_time + CASE WHEN h.close_time <= h.open_time THEN interval '1 day' ELSE interval '0' END)::timestamp AT TIME ZONE biz.timezone)
          - ((day::date + h.open_time)::timestamp AT TIME ZONE biz.timezone)
        )) / 60), 0)::int
        FROM generate_series(${period.from}::date, ${period.to}::date, interval '1 day') AS day
        JOIN businesses biz ON biz.id = ${businessId}
        JOIN operating_hours h
          ON h.business_id = biz.id AND h.day_of_week = extract(dow FROM day) AND h.is_open
          AND h.open_time IS NOT NULL AND h.close_time IS NOT NULL
        WHERE NOT EXISTS (
          SELECT 1 FROM blackout_dates bd
          WHERE bd.business_id = biz.id AND day::date BETWEEN bd.start_date AND bd.end_date
        )
      ) AS open_minutes
  `.execute(executor);
  return rows[0]!;
}

/**
 * The statistics of a business's bookings dated in the period. Three statements, sent at once:
 * on PostgreSQL they run side by side on the pool's connections.
 */
export async function loadStats(
  executor: Executor,
  businessId: string,
  period: StatsPeriod,
): Promise<StatsRow> {
  const [counts, resources, money] = await Promise.all([
    bookingCounts(executor, businessId, period),
    resourceCounts(executor, businessId, period),
    depositsAndOpenMinutes(executor, businessId, period),
  ]);
  return { ...counts, resources, ...money };
}
