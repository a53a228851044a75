import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { type BookableBusiness, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { assertNamesFields, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();
beforeEach(() => {
  // Tuesday 1 December 2026, 08:00 UTC.
  ctx.app.clock.now = () => Date.parse('2026-12-01T08:00:00Z');
});

const month = (biz: BookableBusiness, query: string) =>
  ctx.app.inject({ method: 'GET', url: `/v1/availability/${biz.tenant.businessId}/days${query}` });

async function monthOk(biz: BookableBusiness, query: string) {
  const response = await month(biz, query);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const send = async (biz: BookableBusiness, method: 'POST' | 'PUT', url: string, payload: unknown) => {
  const response = await ctx.app.inject({
    method,
    url,
    headers: biz.tenant.headers,
    payload: payload as object,
  });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
  return response.json();
};

/** Open 09:00-17:00 Monday to Saturday, closed on Sunday; one table for four. */
async function weekdayBistro() {
  const biz = await setupBookable(ctx.app, {
    resources: [{ name: 'T4', capacity_min: 1, capacity_max: 4 }],
    settings: { booking_window_days: 20 },
  });
  await send(
    biz,
    'PUT',
    '/v1/manage/hours',
    [0, 1, 2, 3, 4, 5, 6].map((day) =>
      day === 0
        ? { day_of_week: 0, is_open: false }
        : { day_of_week: day, is_open: true, open_time: '09:00', close_time: '17:00' },
    ),
  );
  return biz;
}

describe('GET /v1/availability/{business_id}/days', () => {
  describe('200', () => {
    it('summarises each day with its first free start, how many, and why a day has none', async () => {
      const biz = await weekdayBistro();
      await send(biz, 'POST', '/v1/manage/blackout-dates', {
        start_date: '2026-12-04',
        end_date: '2026-12-04',
        reason: 'Private party',
      });
      await send(biz, 'POST', `/v1/manage/resources/${biz.resources.T4}/blocks`, {
        start_at: '2026-12-03T00:00:00Z',
        end_at: '2026-12-04T00:00:00Z',
      });
      await send(biz, 'POST', '/v1/bookings', {
        business_id: biz.tenant.businessId,
        booking_date: '2026-12-02',
        start_time: '09:00',
        capacity: 2,
        ...guest(),
      });
      const body = await monthOk(biz, '?from=2026-11-30&to=2026-12-22&capacity=2');
      assert.equal(body.from, '2026-11-30');
      assert.equal(body.to, '2026-12-22');
      assert.equal(body.capacity, 2);
      assert.equal(body.days.length, 23);
      const day = (date: string) => body.days.find((d: { date: string }) => d.date === date);
      assert.deepEqual(day('2026-11-30'), {
        date: '2026-11-30',
        available: false,
        first_time: null,
        slot_count: 0,
        reason: 'outside_booking_window',
        note: null,
      });
      // Today, 08:00 UTC: every start from 09:00 is still ahead; 15 starts of 60 minutes every 30.
      assert.deepEqual(day('2026-12-01'), {
        date: '2026-12-01',
        available: true,
        first_time: '09:00',
        slot_count: 15,
        reason: null,
        note: null,
      });
      // The 09:00 booking holds 09:00-10:00: the starts at 09:00 and 09:30 are taken.
      assert.deepEqual(day('2026-12-02'), {
        date: '2026-12-02',
        available: true,
        first_time: '10:00',
        slot_count: 13,
        reason: null,
        note: null,
      });
      assert.equal(day('2026-12-03').reason, 'fully_booked');
      assert.equal(day('2026-12-04').reason, 'blackout');
      assert.equal(day('2026-12-04').note, 'Private party', "the venue's words to guests");
      assert.equal(day('2026-12-06').reason, 'closed');
      // The window is 20 days: the 21st is the last day that can be booked.
      assert.equal(day('2026-12-21').available, true);
      assert.equal(day('2026-12-22').reason, 'outside_booking_window');
    });

    it('agrees with the day endpoint, and sees a new booking at once', async () => {
      const biz = await setupBookable(ctx.app);
      const before = await monthOk(biz, '?from=2026-12-05&to=2026-12-05&capacity=3');
      const dayView = (
        await ctx.app.inject({
          method: 'GET',
          url: `/v1/availability/${biz.tenant.businessId}?date=2026-12-05&capacity=3`,
        })
      ).json();
      const free = dayView.slots.filter((s: { available: boolean }) => s.available);
      assert.equal(before.days[0].slot_count, free.length);
      assert.equal(before.days[0].first_time, free[0].time);
      for (const resource of ['T4', 'T6']) {
        await send(biz, 'POST', '/v1/bookings', {
          business_id: biz.tenant.businessId,
          booking_date: '2026-12-05',
          start_time: '09:00',
          capacity: 3,
          resource_id: biz.resources[resource],
          ...guest(),
        });
      }
      const after = await monthOk(biz, '?from=2026-12-05&to=2026-12-05&capacity=3');
      assert.equal(after.days[0].first_time, '10:00');
      assert.equal(after.days[0].slot_count, before.days[0].slot_count - 2);
    });

    it('covers 31 days from today by default, and up to 62 days', async () => {
      const biz = await setupBookable(ctx.app);
      const body = await monthOk(biz, '');
      assert.equal(body.from, '2026-12-01');
      assert.equal(body.to, '2026-12-31');
      assert.equal(body.days.length, 31);
      assert.equal((await monthOk(biz, '?from=2026-12-01&to=2027-01-31')).days.length, 62);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown business', async () => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/availability/00000000-0000-4000-8000-000000000000/days',
      });
      assert.equal(response.statusCode, 404);
    });
  });

  describe('422', () => {
    it('refuses a reversed or too long range, bad dates, a party outside the limits and unknown filters', async () => {
      const biz = await setupBookable(ctx.app);
      await assertNamesFields(
        [
          ['?from=2026-12-10&to=2026-12-09', 'to'],
          ['?from=2026-12-01&to=2027-02-01', 'to'],
          ['?from=soon', 'from'],
          ['?capacity=0', 'capacity'],
          ['?capacity=51', 'capacity'],
          ['?service_id=00000000-0000-4000-8000-000000000000', 'service_id'],
          ['?resource_id=00000000-0000-4000-8000-000000000000', 'resource_id'],
          ['?date=2026-12-01', 'date'],
        ],
        (query) => month(biz, query),
      );
    });
  });
});
