import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { dynamicFixtures } from '../../test/dynamic-fixtures.ts';
import { assertError, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const LUNCH = {
  name: 'Lunch',
  days_of_week: EVERY_DAY,
  start_time: '12:00',
  end_time: '14:30',
  slot_interval_minutes: 15,
};
const DINNER = { name: 'Dinner', days_of_week: EVERY_DAY, start_time: '18:00', end_time: '22:30' };

const LUNCH_TIMES = ['12:00', '12:15', '12:30', '12:45', '13:00', '13:15', '13:30'];
const DINNER_TIMES = ['18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30'];

async function putPeriods(biz: BookableBusiness, periods: unknown[]) {
  const response = await ctx.app.inject({
    method: 'PUT',
    url: '/v1/manage/service-periods',
    headers: biz.tenant.headers,
    payload: periods as object[],
  });
  assert.equal(response.statusCode, 200, response.body);
}

/** The bistro: open 11:00-23:00 every day with T2, T4, T6; lunch and dinner (1-hour bookings). */
async function bistro(options: { settings?: Record<string, unknown>; periods?: unknown[] } = {}) {
  const biz = await setupBookable(ctx.app, { open: '11:00', close: '23:00', settings: options.settings });
  await putPeriods(biz, options.periods ?? [LUNCH, DINNER]);
  return biz;
}

const get = (biz: BookableBusiness, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers: biz.tenant.headers });

type Slot = {
  time: string;
  available: boolean;
  resource_id?: string;
  period: { id: string; name: string } | null;
};

async function day(biz: BookableBusiness, url: string): Promise<{ slots: Slot[]; reason: string | null }> {
  const response = await get(biz, url);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const staffBooking = (biz: BookableBusiness, time: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/bookings/staff',
    headers: biz.tenant.headers,
    payload: {
      date: BOOKING_DAY,
      time,
      capacity: 2,
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+49 30 5551234',
    },
  });

describe('service periods in availability', () => {
  it('offers lunch every 15 minutes and dinner every 30, and nothing between, public and managed', async () => {
    const biz = await bistro();
    const query = `booking_date=${BOOKING_DAY}&capacity=2`;
    const publicDay = await day(biz, `/v1/availability/${biz.tenant.businessId}?${query}`);
    assert.deepEqual(
      publicDay.slots.map((slot) => slot.time),
      [...LUNCH_TIMES, ...DINNER_TIMES],
    );
    assert.ok(publicDay.slots.every((slot) => slot.available));
    assert.deepEqual(await day(biz, `/v1/manage/availability?${query}`), publicDay);
  });

  it('names the period of each slot in both views, and none on a day without periods', async () => {
    const biz = await bistro();
    const periods = (await get(biz, '/v1/manage/service-periods')).json();
    const [lunch, dinner] = ['Lunch', 'Dinner'].map((name) => {
      const { id } = periods.find((period: { name: string }) => period.name === name);
      return { id, name };
    });
    const url = `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=2`;
    const grouped = (slots: Slot[]) => slots.map((slot) => [slot.time, slot.period]);
    const expected = [
      ...LUNCH_TIMES.map((time) => [time, lunch]),
      ...DINNER_TIMES.map((time) => [time, dinner]),
    ];
    assert.deepEqual(grouped((await day(biz, url)).slots), expected);
    const byResource = (await day(biz, `${url}&view=resources`)).slots;
    assert.deepEqual(
      [...new Map(grouped(byResource).map(([time, period]) => [time, period])).entries()],
      expected,
    );
    await putPeriods(biz, []);
    for (const view of ['slots', 'resources']) {
      const { slots } = await day(biz, `${url}&view=${view}`);
      assert.ok(slots.length > 0);
      assert.ok(
        slots.every((slot) => slot.period === null),
        `view=${view}: a day without periods`,
      );
    }
  });

  it('lists only the resources of a period in it (view=resources)', async () => {
    const biz = await bistro();
    await putPeriods(biz, [{ ...LUNCH, resource_ids: [biz.resources.T4] }, DINNER]);
    const { slots } = await day(
      biz,
      `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=2&view=resources`,
    );
    const at = (time: string) => slots.filter((slot) => slot.time === time).map((slot) => slot.resource_id);
    assert.deepEqual(at('12:00'), [biz.resources.T4]);
    assert.deepEqual(at('18:00'), [biz.resources.T2, biz.resources.T4, biz.resources.T6]);
  });

  it('gives each period its own turn times, the business its own elsewhere', async () => {
    const biz = await bistro({
      periods: [LUNCH, { ...DINNER, turn_times: [{ min_party: 1, max_party: 4, duration_minutes: 150 }] }],
    });
    const { slots } = await day(
      biz,
      `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=2`,
    );
    assert.deepEqual(slots.at(-1)?.time, '20:00', 'dinner ends at 22:30: 150 minutes from 20:00');
    assert.equal((await bookOk(ctx.app, biz, { start_time: '18:30' })).duration_minutes, 150);
    assert.equal((await bookOk(ctx.app, biz, { start_time: '12:15' })).duration_minutes, 60);
  });

  it('drops cached days when the periods change, and keeps the hours for a business without', async () => {
    const biz = await setupBookable(ctx.app, { open: '11:00', close: '23:00' });
    const url = `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=2`;
    assert.equal((await day(biz, url)).slots.length, 23, 'every 30 minutes from 11:00 to 22:00');
    await putPeriods(biz, [LUNCH, DINNER]);
    assert.equal((await day(biz, url)).slots.length, LUNCH_TIMES.length + DINNER_TIMES.length);
    await putPeriods(biz, []);
    assert.equal((await day(biz, url)).slots.length, 23);
  });

  it('answers outside_period for a day whose periods hold no booking, by day and by month', async () => {
    const biz = await bistro({ periods: [{ ...LUNCH, end_time: '12:30' }] });
    const found = await day(
      biz,
      `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=2`,
    );
    assert.deepEqual(found, { ...found, slots: [], reason: 'outside_period' });
    const month = await get(
      biz,
      `/v1/availability/${biz.tenant.businessId}/days?from=${BOOKING_DAY}&to=${BOOKING_DAY}&capacity=2`,
    );
    assert.equal(month.statusCode, 200, month.body);
    assert.deepEqual(month.json().days[0], {
      date: BOOKING_DAY,
      available: false,
      first_time: null,
      slot_count: 0,
      reason: 'outside_period',
      note: null,
    });
  });

  it("counts a month's starts inside the periods only", async () => {
    const biz = await bistro();
    const month = await get(
      biz,
      `/v1/availability/${biz.tenant.businessId}/days?from=${BOOKING_DAY}&to=${BOOKING_DAY}&capacity=2`,
    );
    assert.deepEqual(
      [month.json().days[0].first_time, month.json().days[0].slot_count],
      ['12:00', LUNCH_TIMES.length + DINNER_TIMES.length],
    );
  });
});

describe('service periods in bookings', () => {
  it('refuses a booking in the gap as one outside the hours, and books on the period grid', async () => {
    const biz = await bistro();
    const gap = await postBooking(ctx.app, biz, { start_time: '15:00' });
    assertError(gap, 422, 'outside_operating_hours');
    assert.match(
      gap.json().error.message,
      /outside the service periods .*\(Lunch 12:00-14:30, Dinner 18:00-22:30\)/,
    );
    assertError(await postBooking(ctx.app, biz, { start_time: '10:00' }), 422, 'outside_operating_hours');
    assertError(await postBooking(ctx.app, biz, { start_time: '14:00' }), 422, 'outside_operating_hours');
    assert.equal((await bookOk(ctx.app, biz, { start_time: '12:45' })).end_time, '13:45');
  });

  it('holds staff bookings inside a period, at any minute of it', async () => {
    const biz = await bistro();
    assertError(await staffBooking(biz, '16:00'), 422, 'outside_operating_hours');
    const inside = await staffBooking(biz, '12:10');
    assert.equal(inside.statusCode, 201, inside.body);
  });

  it('refuses a reschedule into the gap, and moves one from lunch to dinner', async () => {
    const biz = await bistro();
    const booking = await bookOk(ctx.app, biz, { start_time: '12:00' });
    const patch = (start_time: string) =>
      ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
        payload: { start_time },
      });
    assertError(await patch('16:00'), 422, 'outside_operating_hours');
    const moved = await patch('19:00');
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().start_time, '19:00');
  });
});

describe('service periods in dynamic mode', () => {
  const dynamic = dynamicFixtures(() => ctx.app);

  it('checks and books any minute inside a period, none in the gap', async () => {
    const biz = await dynamic.setupDynamic({ open: '11:00', close: '23:00' });
    await putPeriods(biz, [LUNCH, DINNER]);
    const gap = await dynamic.checkOk(biz, { start_time: '15:07' });
    assert.deepEqual([gap.available, gap.reason], [false, 'outside_operating_hours']);
    const lunch = await dynamic.checkOk(biz, { start_time: '12:07' });
    assert.deepEqual([lunch.available, lunch.reason], [true, null]);
    assertError(await dynamic.book(biz, { start_time: '15:07' }), 422, 'outside_operating_hours');
    assertError(
      await dynamic.book(biz, { start_time: '14:00', duration_minutes: 45 }),
      422,
      'outside_operating_hours',
    );
    assert.equal(
      (await dynamic.bookOk(biz, { start_time: '18:07', duration_minutes: 45 })).end_time,
      '18:52',
    );
  });
});
