import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BOOKING_DAY,
  type BookableBusiness,
  guest,
  send,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { itChecksAuth, RACE, useTestApp } from '../../test/helpers.ts';
import { addDays } from '../engine/time.ts';

const ctx = useTestApp();

/** One table of 4, open 09:00-17:00 every day, in `timezone`. */
const venue = (timezone = 'UTC') =>
  setupBookable(ctx.app, {
    settings: { timezone, default_slot_duration_minutes: 60 },
    resources: [{ name: 'T4', capacity_min: 1, capacity_max: 4 }],
  });

const inject = (biz: BookableBusiness, method: 'GET' | 'POST', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: biz.tenant.headers, ...(payload ? { payload } : {}) });

const staffBooking = (date: string, time: string, extra: object = {}) => ({
  date,
  time,
  capacity: 2,
  ...guest(),
  ...extra,
});

async function series(biz: BookableBusiness, body: object) {
  const response = await inject(biz, 'POST', '/v1/manage/bookings/staff', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const bookingsOf = async (biz: BookableBusiness) =>
  (await send(ctx.app, biz.tenant, 'GET', '/v1/manage/bookings?limit=100')).items as {
    booking_date: string;
    start_time: string;
    status: string;
    series_id: string | null;
  }[];

const weeks = (count: number, every = 1) =>
  Array.from({ length: count }, (_, week) => addDays(BOOKING_DAY, week * 7 * every));

describe('POST /v1/manage/bookings/staff with recurrence', () => {
  it('places a booking each week at the same time, one series, each a booking of its own', async () => {
    const biz = await venue();
    const placed = await series(biz, staffBooking(BOOKING_DAY, '10:00', { recurrence: { count: 4 } }));
    assert.deepEqual(
      placed.bookings.map((booking: { booking_date: string; start_time: string }) => [
        booking.booking_date,
        booking.start_time,
      ]),
      weeks(4).map((date) => [date, '10:00']),
    );
    assert.deepEqual(placed.not_placed, []);
    assert.ok(
      placed.bookings.every((booking: { series_id: string }) => booking.series_id === placed.series_id),
    );
    assert.equal(new Set(placed.bookings.map((booking: { id: string }) => booking.id)).size, 4);
    const read = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/series/${placed.series_id}`);
    assert.deepEqual(read, { series_id: placed.series_id, bookings: placed.bookings });

    const single = await send(
      ctx.app,
      biz.tenant,
      'POST',
      '/v1/manage/bookings/staff',
      staffBooking(BOOKING_DAY, '14:00'),
    );
    assert.equal(single.booking.series_id, null);
  });

  it('places every other week up to a date', async () => {
    const biz = await venue();
    const placed = await series(
      biz,
      staffBooking(BOOKING_DAY, '11:00', { recurrence: { every_weeks: 2, until: addDays(BOOKING_DAY, 43) } }),
    );
    assert.deepEqual(
      placed.bookings.map((booking: { booking_date: string }) => booking.booking_date),
      weeks(4, 2),
    );
  });

  it('lists the occurrences it cannot place, with the reason, and places the others', async () => {
    const biz = await venue();
    const [, taken] = weeks(3);
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', staffBooking(taken!, '10:30'));
    const placed = await series(biz, staffBooking(BOOKING_DAY, '10:00', { recurrence: { count: 3 } }));
    assert.deepEqual(
      placed.bookings.map((booking: { booking_date: string }) => booking.booking_date),
      [weeks(3)[0], weeks(3)[2]],
    );
    assert.equal(placed.not_placed.length, 1);
    assert.equal(placed.not_placed[0].booking_date, taken);
    assert.equal(placed.not_placed[0].reason, 'slot_unavailable');
  });

  it('places nothing with all_or_nothing when one occurrence cannot be placed, naming it', async () => {
    const biz = await venue();
    const [, taken] = weeks(3);
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', staffBooking(taken!, '10:30'));
    const response = await inject(
      biz,
      'POST',
      '/v1/manage/bookings/staff',
      staffBooking(BOOKING_DAY, '10:00', { recurrence: { count: 3 }, all_or_nothing: true }),
    );
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().error.code, 'slot_unavailable');
    assert.match(response.json().error.message, new RegExp(taken!));
    assert.equal((await bookingsOf(biz)).length, 1);
  });

  it('refuses a series of which nothing can be placed as its first occurrence is refused', async () => {
    const biz = await venue();
    const response = await inject(
      biz,
      'POST',
      '/v1/manage/bookings/staff',
      staffBooking(BOOKING_DAY, '20:00', { recurrence: { count: 2 } }),
    );
    assert.equal(response.statusCode, 422, response.body);
    assert.equal(response.json().error.code, 'outside_operating_hours');
    assert.equal((await bookingsOf(biz)).length, 0);
  });

  it('keeps the wall-clock time across a change of daylight saving time', async () => {
    const biz = await venue('Europe/Paris');
    // Paris moves its clocks forward on 28 March 2027: 10:00 is 09:00 UTC before, 08:00 UTC after.
    const placed = await series(biz, staffBooking('2027-03-16', '10:00', { recurrence: { count: 3 } }));
    assert.deepEqual(
      placed.bookings.map((booking: { start_time: string; starts_at: string }) => [
        booking.start_time,
        booking.starts_at,
      ]),
      [
        ['10:00', '2027-03-16T09:00:00.000Z'],
        ['10:00', '2027-03-23T09:00:00.000Z'],
        ['10:00', '2027-03-30T08:00:00.000Z'],
      ],
    );
  });

  it('refuses a recurrence without one end, with both, past 52 occurrences, of one occurrence, or for a walk-in', async () => {
    const biz = await venue();
    const cases: [object, string][] = [
      [{ recurrence: {} }, 'recurrence'],
      [{ recurrence: { count: 3, until: addDays(BOOKING_DAY, 30) } }, 'recurrence'],
      [{ recurrence: { until: addDays(BOOKING_DAY, 7 * 52) } }, 'recurrence.until'],
      [{ recurrence: { until: addDays(BOOKING_DAY, 6) } }, 'recurrence.until'],
      [{ recurrence: { until: addDays(BOOKING_DAY, -7) } }, 'recurrence.until'],
      [{ recurrence: { count: 53 } }, 'recurrence.count'],
      [{ recurrence: { count: 2, every_weeks: 5 } }, 'recurrence.every_weeks'],
      [{ recurrence: { count: 2 }, walk_in: true }, 'recurrence'],
    ];
    for (const [extra, field] of cases) {
      const response = await inject(
        biz,
        'POST',
        '/v1/manage/bookings/staff',
        staffBooking(BOOKING_DAY, '10:00', extra),
      );
      assert.equal(response.statusCode, 422, `${JSON.stringify(extra)}: ${response.body}`);
      assert.ok(
        response.json().error.fields.some((error: { field: string }) => error.field === field),
        `${JSON.stringify(extra)}: ${response.body}`,
      );
    }
    const { booking } = await send(
      ctx.app,
      biz.tenant,
      'POST',
      '/v1/manage/bookings/staff',
      staffBooking(BOOKING_DAY, '10:00', { recurrence: undefined }),
    );
    assert.equal(booking.series_id, null);
    assert.equal((await bookingsOf(biz)).length, 1);
  });

  it('lets exactly one of many series racing for the same weekly time win', RACE, async () => {
    const biz = await venue();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        inject(
          biz,
          'POST',
          '/v1/manage/bookings/staff',
          staffBooking(BOOKING_DAY, '10:00', { recurrence: { count: 3 }, all_or_nothing: true }),
        ),
      ),
    );
    const codes = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(codes, [201, 409, 409, 409, 409, 409, 409, 409]);
    const bookings = await bookingsOf(biz);
    assert.equal(bookings.length, 3);
    assert.equal(new Set(bookings.map((booking) => booking.series_id)).size, 1);
  });
});

describe('a series, changed', () => {
  const placedSeries = async () => {
    const biz = await venue();
    const placed = await series(biz, staffBooking(BOOKING_DAY, '10:00', { recurrence: { count: 4 } }));
    return { biz, seriesId: placed.series_id as string };
  };
  const statuses = async (biz: BookableBusiness) =>
    (await bookingsOf(biz)).map((booking) => [booking.booking_date, booking.start_time, booking.status]);

  it('cancels one occurrence and the following, then the rest', async () => {
    const { biz, seriesId } = await placedSeries();
    const [first, second, third, fourth] = weeks(4);
    const cancelled = await send(ctx.app, biz.tenant, 'POST', `/v1/manage/series/${seriesId}/cancel`, {
      from_date: third,
    });
    assert.deepEqual(
      cancelled.bookings.map((booking: { booking_date: string; status: string }) => [
        booking.booking_date,
        booking.status,
      ]),
      [
        [third, 'cancelled'],
        [fourth, 'cancelled'],
      ],
    );
    assert.deepEqual(await statuses(biz), [
      [first, '10:00', 'confirmed'],
      [second, '10:00', 'confirmed'],
      [third, '10:00', 'cancelled'],
      [fourth, '10:00', 'cancelled'],
    ]);
    const rest = await send(ctx.app, biz.tenant, 'POST', `/v1/manage/series/${seriesId}/cancel`, {});
    assert.equal(rest.bookings.length, 2);
    assert.ok((await statuses(biz)).every(([, , status]) => status === 'cancelled'));
  });

  it('moves one occurrence and the following to another time, each on its own date', async () => {
    const { biz, seriesId } = await placedSeries();
    const [first, second, third, fourth] = weeks(4);
    const moved = await send(ctx.app, biz.tenant, 'POST', `/v1/manage/series/${seriesId}/move`, {
      from_date: second,
      time: '15:00',
    });
    assert.equal(moved.bookings.length, 3);
    assert.deepEqual(await statuses(biz), [
      [first, '10:00', 'confirmed'],
      [second, '15:00', 'confirmed'],
      [third, '15:00', 'confirmed'],
      [fourth, '15:00', 'confirmed'],
    ]);
  });

  it('moves nothing when one occurrence cannot move, naming its date', async () => {
    const { biz, seriesId } = await placedSeries();
    const [, , third] = weeks(4);
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', staffBooking(third!, '15:30'));
    const response = await inject(biz, 'POST', `/v1/manage/series/${seriesId}/move`, { time: '15:00' });
    assert.equal(response.statusCode, 409, response.body);
    assert.match(response.json().error.message, new RegExp(`^${third}: `));
    const series = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/series/${seriesId}`);
    assert.ok(series.bookings.every((booking: { start_time: string }) => booking.start_time === '10:00'));
  });

  it('refuses a move that names neither a time nor a resource', async () => {
    const { biz, seriesId } = await placedSeries();
    const response = await inject(biz, 'POST', `/v1/manage/series/${seriesId}/move`, {
      from_date: BOOKING_DAY,
    });
    assert.equal(response.statusCode, 422, response.body);
  });

  it("answers 404 for another business's series, and changes nothing of it", async () => {
    const { biz, seriesId } = await placedSeries();
    const other = await venue();
    for (const [method, url, body] of [
      ['GET', `/v1/manage/series/${seriesId}`, undefined],
      ['POST', `/v1/manage/series/${seriesId}/cancel`, {}],
      ['POST', `/v1/manage/series/${seriesId}/move`, { time: '15:00' }],
    ] as const) {
      const response = await inject(other, method, url, body);
      assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
      assert.equal(response.json().error.code, 'not_found');
    }
    assert.ok((await statuses(biz)).every(([, time, status]) => time === '10:00' && status === 'confirmed'));
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const { biz, seriesId } = await placedSeries();
        return {
          tenant: biz.tenant,
          route: { method: 'GET', url: `/v1/manage/series/${seriesId}`, scope: 'read', staff: true },
        };
      },
    );
    itChecksAuth(
      () => ctx,
      async () => {
        const { biz, seriesId } = await placedSeries();
        return {
          tenant: biz.tenant,
          route: {
            method: 'POST',
            url: `/v1/manage/series/${seriesId}/cancel`,
            payload: {},
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});
