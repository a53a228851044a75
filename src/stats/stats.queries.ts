import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

export interface StatsPeriod {
  from: string;
  to: string;
}

interface CountRow {
  total: number;
  pending: number;
  confirmed: number;
  checked_in: number;
  completed: number;
  cancelled: number;
  no_show: number;
  covers: number;
  parties: number;
  captured_cents: number;
  held_cents: number;
  released_cents: number;
}

export interface StatsRow {
  counts: CountRow;
  busy_hours: { hour: number; count: number }[];
  busy_days: { date: string; count: number }[];
  resources: {
    resource_id: string;
    resource_name: string;
    booking_count: number;
    booked_minutes: number;
    open_minutes: number;
  }[];
}

/**
 * The statistics of a business's bookings dated in the period, in ONE statement. Open minutes
 * are real minutes between opening and closing in the business's time zone (a day that loses an
 * hour to daylight saving has one hour less open), zero on blackout dates; an overnight window
 * belongs to the day it opens.
 */
export async function loadStats(
  executor: Executor,
  businessId: string,
  period: StatsPeriod,
): Promise<StatsRow> {
  const { rows } = await sql<StatsRow>`
    WITH biz AS (
      SELECT timezone FROM businesses WHERE id = ${businessId}
    ),
    period_bookings AS (
      SELECT b.status, b.capacity, b.start_time, b.booking_date, b.resource_id, b.duration_minutes, d.status AS deposit_status, d.amount_cents
      FROM bookings b
      LEFT JOIN deposits d ON d.booking_id = b.id AND d.business_id = b.business_id
      WHERE b.business_id = ${businessId} AND b.booking_date BETWEEN ${period.from}::date AND ${period.to}::date
    ),
    kept AS (
      SELECT * FROM period_bookings WHERE status <> 'cancelled'
    ),
    days AS (
      SELECT day::date AS day FROM generate_series(${period.from}::date, ${period.to}::date, interval '1 day') AS day
    ),
    open_days AS (
      SELECT days.day,
        extract(epoch FROM (
          ((days.day + h.close_time + CASE WHEN h.close_time <= h.open_time THEN interval '1 day' ELSE interval '0' END)::timestamp AT TIME ZONE biz.timezone)
          - ((days.day + h.open_time)::timestamp AT TIME ZONE biz.timezone)
        )) / 60 AS minutes
      FROM days
      CROSS JOIN biz
      JOIN operating_hours h
        ON h.business_id = ${businessId} AND h.day_of_week = extract(dow FROM days.day) AND h.is_open
        AND h.open_time IS NOT NULL AND h.close_time IS NOT NULL
      WHERE NOT EXISTS (
        SELECT 1 FROM blackout_dates bd
        WHERE bd.business_id = ${businessId} AND days.day BETWEEN bd.start_date AND bd.end_date
      )
    ),
    open_total AS (
      SELECT coalesce(sum(minutes), 0) AS minutes FROM open_days
    )
    SELECT
      (SELECT json_build_object(
        'total', count(*),
        'pending', count(*) FILTER (WHERE status = 'pending'),
        'confirmed', count(*) FILTER (WHERE status = 'confirmed'),
        'checked_in', count(*) FILTER (WHERE status = 'checked_in'),
        'completed', count(*) FILTER (WHERE status = 'completed'),
        'cancelled', count(*) FILTER (WHERE status = 'cancelled'),
        'no_show', count(*) FILTER (WHERE status = 'no_show'),
        'covers', coalesce(sum(capacity) FILTER (WHERE status <> 'cancelled'), 0),
        'parties', count(*) FILTER (WHERE status <> 'cancelled'),
        'captured_cents', coalesce(sum(amount_cents) FILTER (WHERE deposit_status IN ('paid', 'captured')), 0),
        'held_cents', coalesce(sum(amount_cents) FILTER (WHERE deposit_status = 'held'), 0),
        'released_cents', coalesce(sum(amount_cents) FILTER (WHERE deposit_status = 'released'), 0)
      ) FROM period_bookings) AS counts,
      (SELECT coalesce(json_agg(json_build_object('hour', hour, 'count', n) ORDER BY n DESC, hour), '[]')
        FROM (SELECT extract(hour FROM start_time)::int AS hour, count(*)::int AS n FROM kept GROUP BY 1) AS hours
      ) AS busy_hours,
      (SELECT coalesce(json_agg(json_build_object('date', booking_date, 'count', n) ORDER BY n DESC, booking_date), '[]')
        FROM (SELECT booking_date, count(*)::int AS n FROM kept GROUP BY 1) AS dates
      ) AS busy_days,
      (SELECT coalesce(json_agg(json_build_object(
          'resource_id', r.id, 'resource_name', r.name, 'booking_count', coalesce(k.n, 0),
          'booked_minutes', coalesce(k.minutes, 0), 'open_minutes', (SELECT minutes FROM open_total)
        ) ORDER BY coalesce(k.n, 0) DESC, r.display_order, r.id), '[]')
        FROM resources r
        LEFT JOIN (SELECT resource_id, count(*)::int AS n, sum(duration_minutes)::int AS minutes FROM kept GROUP BY 1) AS k
          ON k.resource_id = r.id
        WHERE r.business_id = ${businessId} AND r.deleted_at IS NULL AND r.is_active
      ) AS resources
  `.execute(executor);
  return rows[0]!;
}
