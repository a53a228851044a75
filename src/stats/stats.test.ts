import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { guest, setupBookable } from '../../test/booking-fixtures.ts';
import { assertNamesFields, createTenant, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const stats = (headers: Record<string, string>, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/stats${query}`, headers });

/**
 * A week in Berlin across the spring-forward night (Saturday 28 to Sunday 29 March 2026), open
 * 20:00-04:00 every night, with a blackout on Wednesday 25, and eight bookings in every status.
 */
async function seededWeek() {
  ctx.app.clock.now = () => Date.parse('2026-03-20T12:00:00Z');
  const biz = await setupBookable(ctx.app, {
    settings: { timezone: 'Europe/Berlin', auto_confirm_bookings: false },
    open: '20:00',
    close: '04:00',
  });
  const headers = biz.tenant.headers;
  const send = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const response = await ctx.app.inject({ method, url, headers, payload });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  await send('POST', '/v1/manage/blackout-dates', { start_date: '2026-03-25', end_date: '2026-03-25' });
  const staff = async (date: string, time: string, capacity: number) =>
    (await send('POST', '/v1/manage/bookings/staff', { date, time, capacity, ...guest() })).booking;
  const move = async (booking: { id: string }, ...statuses: string[]) => {
    for (const status of statuses) await send('PATCH', `/v1/manage/bookings/${booking.id}`, { status });
  };
  const completed = await staff('2026-03-23', '20:00', 2);
  const noShow = await staff('2026-03-23', '21:00', 4);
  const cancelled = await staff('2026-03-24', '20:00', 2);
  const confirmedBig = await staff('2026-03-26', '22:00', 6);
  const checkedIn = await staff('2026-03-28', '20:00', 3);
  const lateConfirmed = await staff('2026-03-28', '23:30', 2);
  // After midnight of the Saturday night: 01:00 still exists, the hour after 02:00 does not.
  const afterMidnight = await staff('2026-03-28', '01:00', 2);
  const pending = (
    await send('POST', '/v1/bookings', {
      business_id: biz.tenant.businessId,
      booking_date: '2026-03-27',
      start_time: '20:30',
      capacity: 2,
      ...guest(),
    })
  ).booking;
  assert.equal(pending.status, 'pending');
  await move(completed, 'checked_in', 'completed');
  // A no-show is marked once its booking has started.
  ctx.app.clock.now = () => Date.parse(noShow.starts_at);
  await move(noShow, 'no_show');
  ctx.app.clock.now = () => Date.parse('2026-03-20T12:00:00Z');
  await move(cancelled, 'cancelled');
  await move(checkedIn, 'checked_in');
  const deposits = [
    [completed, 'paid', 1000],
    [noShow, 'captured', 2000],
    [confirmedBig, 'held', 2000],
    [lateConfirmed, 'released', 2000],
    [cancelled, 'refunded', 1000],
  ] as const;
  for (const [booking, status, amount] of deposits) {
    await ctx.database.db
      .insertInto('deposits')
      .values({
        business_id: biz.tenant.businessId,
        booking_id: booking.id,
        type: status === 'paid' || status === 'refunded' ? 'charge' : 'authorization_hold',
        status,
        amount_cents: amount,
        currency: 'eur',
        processor: 'simulated',
      })
      .execute();
  }
  return { biz, afterMidnight };
}

describe('GET /v1/manage/stats', () => {
  describe('200', () => {
    it('matches the hand-computed figures of a week across a daylight-saving change', async () => {
      const { biz, afterMidnight } = await seededWeek();
      assert.equal(afterMidnight.resource_id, biz.resources.T2);
      const response = await stats(biz.tenant.headers, '?from_date=2026-03-23&to_date=2026-03-29');
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(body.period, { from: '2026-03-23', to: '2026-03-29' });
      assert.deepEqual(body.bookings, {
        total: 8,
        pending: 1,
        confirmed: 3,
        checked_in: 1,
        completed: 1,
        cancelled: 1,
        no_show: 1,
      });
      assert.deepEqual(body.revenue, {
        deposits_captured_cents: 3000,
        deposits_held_cents: 2000,
        deposits_released_cents: 2000,
      });
      assert.deepEqual(body.rates, { no_show_pct: 12.5, cancellation_pct: 12.5, completion_pct: 12.5 });
      assert.deepEqual(body.capacity, { avg_party_size: 3, total_covers: 21 });
      assert.deepEqual(body.busy_hours, [
        { hour: 20, count: 3, covers: 7 },
        { hour: 1, count: 1, covers: 2 },
        { hour: 21, count: 1, covers: 4 },
        { hour: 22, count: 1, covers: 6 },
        { hour: 23, count: 1, covers: 2 },
      ]);
      assert.deepEqual(body.busy_days, [
        { date: '2026-03-28', day_name: 'Saturday', count: 3, covers: 7 },
        { date: '2026-03-23', day_name: 'Monday', count: 2, covers: 6 },
        { date: '2026-03-26', day_name: 'Thursday', count: 1, covers: 6 },
        { date: '2026-03-27', day_name: 'Friday', count: 1, covers: 2 },
      ]);
      // Open: five nights of 480 minutes, the spring-forward night 420, the blackout none: 2,820.
      assert.deepEqual(body.top_resources, [
        { resource_id: biz.resources.T2, resource_name: 'T2', booking_count: 4, utilization_pct: 8.5 },
        { resource_id: biz.resources.T4, resource_name: 'T4', booking_count: 2, utilization_pct: 4.3 },
        { resource_id: biz.resources.T6, resource_name: 'T6', booking_count: 1, utilization_pct: 2.1 },
      ]);
    });

    it('covers the first of the month to today by default, and answers zeros for an empty period', async () => {
      const { biz } = await seededWeek();
      ctx.app.clock.now = () => Date.parse('2026-03-21T23:30:00Z'); // already the 22nd in Berlin
      const body = (await stats(biz.tenant.headers)).json();
      assert.deepEqual(body.period, { from: '2026-03-01', to: '2026-03-22' });
      assert.equal(body.bookings.total, 0);
      assert.deepEqual(body.rates, { no_show_pct: 0, cancellation_pct: 0, completion_pct: 0 });
      assert.deepEqual(body.capacity, { avg_party_size: 0, total_covers: 0 });
      assert.deepEqual(body.busy_hours, []);
      assert.deepEqual(body.busy_days, []);
      assert.deepEqual(
        body.top_resources.map((r: { booking_count: number; utilization_pct: number }) => [
          r.booking_count,
          r.utilization_pct,
        ]),
        [
          [0, 0],
          [0, 0],
          [0, 0],
        ],
      );
    });

    it('takes a period of 366 days', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await stats(tenant.headers, '?from_date=2025-01-01&to_date=2026-01-01');
      assert.equal(response.statusCode, 200, response.body);
    });
  });

  describe('422', () => {
    it('refuses to_date before from_date, a period over 366 days, bad dates and unknown fields', async () => {
      const tenant = await createTenant(ctx.app);
      await assertNamesFields(
        [
          ['?from_date=2026-03-10&to_date=2026-03-09', 'to_date'],
          ['?from_date=2025-01-01&to_date=2026-01-02', 'to_date'],
          ['?from_date=2026-02-30', 'from_date'],
          ['?to_date=yesterday', 'to_date'],
          ['?since=2026-01-01', 'since'],
        ],
        (query) => stats(tenant.headers, query),
      );
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/stats', scope: 'read', staff: true }),
    });
  });
});

describe('GET /v1/manage/stats.csv', () => {
  it("answers every day of the period in order, with the day's bookings by status, covers of those not cancelled", async () => {
    const { biz } = await seededWeek();
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/stats.csv?from_date=2026-03-23&to_date=2026-03-29',
      headers: biz.tenant.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.headers['content-type'] as string, /^text\/csv/);
    assert.equal(response.headers['content-disposition'], 'attachment; filename="stats.csv"');
    assert.deepEqual(response.body.replace(/^\uFEFF/, '').split('\r\n'), [
      'date,day_name,bookings,covers,pending,confirmed,checked_in,completed,cancelled,no_show',
      '2026-03-23,Monday,2,6,0,0,0,1,0,1',
      '2026-03-24,Tuesday,1,0,0,0,0,0,1,0',
      '2026-03-25,Wednesday,0,0,0,0,0,0,0,0',
      '2026-03-26,Thursday,1,6,0,1,0,0,0,0',
      '2026-03-27,Friday,1,2,1,0,0,0,0,0',
      '2026-03-28,Saturday,3,7,0,2,1,0,0,0',
      '2026-03-29,Sunday,0,0,0,0,0,0,0,0',
      '',
    ]);
  });

  it('refuses the period the statistics refuse', async () => {
    const tenant = await createTenant(ctx.app);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/stats.csv?from_date=2026-03-23&to_date=2026-03-01',
      headers: tenant.headers,
    });
    assert.equal(response.statusCode, 422, response.body);
    assert.equal(response.json().error.fields[0].field, 'to_date');
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/stats.csv', scope: 'read', staff: true }),
    });
  });
});
