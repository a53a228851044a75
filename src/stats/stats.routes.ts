import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BOOKING_STATUSES } from '../engine/status.ts';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { CSV_RESPONSE, type CsvColumn, sendCsv } from '../platform/csv.ts';
import { DateString, Uuid } from '../platform/schemas.ts';
import { businessStats, dailyStats, type StatsDay } from './stats.service.ts';

const Count = Type.Integer({ format: 'int32', minimum: 0 });
const Percent = Type.Number({ minimum: 0, maximum: 100 });

const Stats = Type.Object({
  period: Type.Object({ from: DateString, to: DateString }),
  bookings: Type.Object({
    total: Count,
    pending: Count,
    confirmed: Count,
    checked_in: Count,
    completed: Count,
    cancelled: Count,
    no_show: Count,
  }),
  revenue: Type.Object({
    deposits_captured_cents: Count,
    deposits_held_cents: Count,
    deposits_released_cents: Count,
  }),
  rates: Type.Object({ no_show_pct: Percent, cancellation_pct: Percent, completion_pct: Percent }),
  capacity: Type.Object({ avg_party_size: Type.Number({ minimum: 0 }), total_covers: Count }),
  busy_hours: Type.Array(
    Type.Object({
      hour: Type.Integer({ format: 'int32', minimum: 0, maximum: 23 }),
      count: Count,
      covers: Count,
    }),
  ),
  busy_days: Type.Array(
    Type.Object({ date: DateString, day_name: Type.String(), count: Count, covers: Count }),
  ),
  top_resources: Type.Array(
    Type.Object({
      resource_id: Uuid,
      resource_name: Type.String(),
      booking_count: Count,
      utilization_pct: Type.Number({ minimum: 0 }),
    }),
  ),
});

const PeriodQuery = Type.Object(
  { from_date: Type.Optional(DateString), to_date: Type.Optional(DateString) },
  { additionalProperties: false },
);

/** The columns of stats.csv: a day, its bookings and covers, then its bookings by status. */
const DAY_CSV: CsvColumn<StatsDay>[] = [
  { header: 'date', cell: (day) => day.date },
  { header: 'day_name', cell: (day) => day.day_name },
  { header: 'bookings', cell: (day) => day.bookings },
  { header: 'covers', cell: (day) => day.covers },
  ...BOOKING_STATUSES.map((status) => ({ header: status, cell: (day: StatsDay) => day[status] })),
];

export const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Statistics'] });

  routes.route('GET', '/v1/manage/stats', {
    operationId: 'getStats',
    summary: "Statistics of the bookings dated in a period, in the business's time zone",
    description:
      '`from_date` defaults to the first of the current month, `to_date` to today (both included, at most 366 days). `bookings` counts every booking by status; `capacity` and `busy_*` leave cancelled ones out; `rates` are percentages of `bookings.total`. `busy_hours` and `busy_days` list the hours and dates that have bookings (their bookings and covers), busiest first; `top_resources` the ten active resources with most bookings, with booked minutes as a percentage of open minutes.',
    querystring: PeriodQuery,
    response: { 200: Stats },
    handler: async (request) =>
      businessStats(app.db, principalOf(request).businessId, request.query, app.clock.now()),
  });

  routes.route('GET', '/v1/manage/stats.csv', {
    operationId: 'downloadDailyStats',
    summary: "The period's days as a CSV download: bookings, covers, and bookings by status",
    description:
      'The period as `GET /v1/manage/stats` takes it (by default the month so far, at most 366 days), one row a day in order, days without bookings too. `bookings` counts every booking dated that day, `covers` the party sizes of those not cancelled, then one column per status. RFC 4180, UTF-8 with BOM.',
    querystring: PeriodQuery,
    response: CSV_RESPONSE,
    handler: async (request, reply) => {
      const days = await dailyStats(app.db, principalOf(request).businessId, request.query, app.clock.now());
      return sendCsv(
        reply,
        'stats.csv',
        DAY_CSV,
        (async function* () {
          yield* days;
        })(),
      );
    },
  });
};
