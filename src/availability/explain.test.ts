import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { BOOKING_DAY, type BookableBusiness, bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { createPublishableKey, createTestApp, type TestContext } from '../../test/helpers.ts';

let ctx: TestContext;
let clockNow: () => number;
before(async () => {
  ctx = await createTestApp();
  clockNow = ctx.app.clock.now;
});
after(() => ctx.close());
beforeEach(() => ctx.reset());
afterEach(() => {
  ctx.app.clock.now = clockNow;
});

type Slot = {
  time: string;
  available: boolean;
  remaining_resources: number;
  duration_minutes?: number;
  period: { name: string } | null;
  reasons?: string[];
};

/** Open 09:00-12:30 in UTC with T2, T4, T6: one-hour bookings on the hour, the last start at 11:00. */
const venue = (settings: Record<string, unknown> = {}) =>
  setupBookable(ctx.app, {
    open: '09:00',
    close: '12:30',
    settings: {
      timezone: 'UTC',
      default_slot_interval_minutes: 60,
      default_slot_duration_minutes: 60,
      min_notice_hours: 0,
      max_capacity: 20,
      ...settings,
    },
  });

async function call(
  biz: BookableBusiness,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload?: unknown,
) {
  const response = await ctx.app.inject({
    method,
    url,
    headers: biz.tenant.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response;
}

async function day(biz: BookableBusiness, query = '', capacity = 2) {
  const url = `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=${capacity}${query}`;
  return (await call(biz, 'GET', url)).json() as { slots: Slot[]; reason: string | null };
}

/** time -> reasons, of the explained day. */
async function reasons(biz: BookableBusiness, capacity = 2) {
  const { slots } = await day(biz, '&explain=true', capacity);
  return Object.fromEntries(slots.map((slot) => [slot.time, slot.reasons]));
}

const at = (time: string) => Date.parse(`${BOOKING_DAY}T${time}:00Z`);

describe('explain=true on day availability', () => {
  it('lists every grid time; offered ones as without explain, with no reasons', async () => {
    const biz = await venue();
    const plain = await day(biz);
    assert.deepEqual(
      plain.slots.map((slot) => [slot.time, slot.available, slot.remaining_resources]),
      [
        ['09:00', true, 3],
        ['10:00', true, 3],
        ['11:00', true, 3],
      ],
    );
    assert.ok(plain.slots.every((slot) => !('reasons' in slot)));
    assert.deepEqual(await day(biz, '&explain=false'), plain);
    const explained = await day(biz, '&explain=true');
    assert.deepEqual(explained.slots, [
      // The explained view lists times, not the lengths of the bookings they would start.
      ...plain.slots.map(({ duration_minutes: _length, ...slot }) => ({ ...slot, reasons: [] })),
      { time: '12:00', available: false, remaining_resources: 0, period: null, reasons: ['closed'] },
    ]);
    assert.equal(explained.reason, plain.reason);
    const managed = await call(
      biz,
      'GET',
      `/v1/manage/availability?booking_date=${BOOKING_DAY}&capacity=2&explain=true`,
    );
    assert.deepEqual(managed.json().slots, explained.slots);
  });

  it('does not change the cached plain answer, nor read it', async () => {
    const biz = await venue();
    const plain = await day(biz);
    assert.equal((await day(biz, '&explain=true')).slots.length, 4);
    assert.deepEqual(await day(biz), plain);
    assert.equal((await day(biz, '&explain=true')).slots.length, 4);
  });

  it('past and notice, from the clock and min_notice_hours', async () => {
    const biz = await venue({ min_notice_hours: 1 });
    ctx.app.clock.now = () => at('10:30');
    assert.deepEqual(await reasons(biz), {
      '09:00': ['past'],
      '10:00': ['past'],
      '11:00': ['notice'],
      '12:00': ['closed'],
    });
  });

  it('window: a date beyond booking_window_days; the day keeps its reason', async () => {
    const biz = await venue({ booking_window_days: 3 });
    const explained = await day(biz, '&explain=true');
    assert.equal(explained.reason, 'outside_booking_window');
    assert.deepEqual(
      explained.slots.map((slot) => [slot.time, slot.reasons]),
      [
        ['09:00', ['window']],
        ['10:00', ['window']],
        ['11:00', ['window']],
        ['12:00', ['window', 'closed']],
      ],
    );
  });

  it('blackout: a blackout date covering the day', async () => {
    const biz = await venue();
    await call(biz, 'POST', '/v1/manage/blackout-dates', { start_date: BOOKING_DAY, end_date: BOOKING_DAY });
    const explained = await day(biz, '&explain=true');
    assert.equal(explained.reason, 'blackout');
    assert.deepEqual(
      explained.slots.map((slot) => slot.reasons!.join()),
      ['blackout', 'blackout', 'blackout', 'closed,blackout'],
    );
  });

  it('closed: a weekday without hours has no grid, and says so as the day reason', async () => {
    const biz = await venue();
    const closed = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ day_of_week: dayOfWeek, is_open: false }));
    await call(biz, 'PUT', '/v1/manage/hours', closed);
    assert.deepEqual(await day(biz, '&explain=true'), { ...(await day(biz)), slots: [] });
    assert.equal((await day(biz, '&explain=true')).reason, 'closed');
  });

  it("outside_period: the hours' grid outside the service periods", async () => {
    const biz = await venue();
    await call(biz, 'PUT', '/v1/manage/service-periods', [
      { name: 'Lunch', days_of_week: [0, 1, 2, 3, 4, 5, 6], start_time: '10:00', end_time: '12:00' },
    ]);
    const explained = await day(biz, '&explain=true');
    assert.deepEqual(
      explained.slots.map((slot) => [slot.time, slot.period?.name ?? null, slot.reasons]),
      [
        ['09:00', null, ['outside_period']],
        ['10:00', 'Lunch', []],
        ['11:00', 'Lunch', []],
        ['12:00', null, ['outside_period']],
      ],
    );
  });

  it("pacing: a time whose period's covers the party would pass, not the next one", async () => {
    const biz = await venue();
    await call(biz, 'PUT', '/v1/manage/service-periods', [
      {
        name: 'Lunch',
        days_of_week: [0, 1, 2, 3, 4, 5, 6],
        start_time: '09:00',
        end_time: '12:30',
        max_covers_per_slot: 5,
      },
    ]);
    await bookOk(ctx.app, biz, { start_time: '10:00', capacity: 4 });
    const explained = await reasons(biz, 2);
    assert.deepEqual(explained['10:00'], ['pacing']);
    assert.deepEqual(explained['11:00'], []);
    assert.deepEqual((await reasons(biz, 1))['10:00'], []);
  });

  it("no_resource_fits_party: a party bigger than every table, or than the period's tables", async () => {
    const biz = await venue();
    assert.deepEqual(await reasons(biz, 7), {
      '09:00': ['no_resource_fits_party'],
      '10:00': ['no_resource_fits_party'],
      '11:00': ['no_resource_fits_party'],
      '12:00': ['closed'],
    });
    await call(biz, 'PUT', '/v1/manage/service-periods', [
      {
        name: 'Terrace',
        days_of_week: [0, 1, 2, 3, 4, 5, 6],
        start_time: '09:00',
        end_time: '12:30',
        resource_ids: [biz.resources.T2],
      },
    ]);
    assert.deepEqual((await reasons(biz, 3))['09:00'], ['no_resource_fits_party']);
    assert.deepEqual((await reasons(biz, 2))['09:00'], []);
  });

  it('all_resources_busy: bookings fill every table that fits; blocked: a block holds the last one', async () => {
    const biz = await venue();
    await bookOk(ctx.app, biz, { start_time: '10:00', capacity: 5 });
    await call(biz, 'POST', `/v1/manage/resources/${biz.resources.T6}/blocks`, {
      start_at: `${BOOKING_DAY}T11:00:00Z`,
      end_at: `${BOOKING_DAY}T12:00:00Z`,
    });
    assert.deepEqual(await reasons(biz, 5), {
      '09:00': [],
      '10:00': ['all_resources_busy'],
      '11:00': ['blocked'],
      '12:00': ['closed'],
    });
    const plain = await day(biz, '', 5);
    assert.deepEqual(
      plain.slots.map((slot) => [slot.time, slot.available]),
      [
        ['09:00', true],
        ['10:00', false],
        ['11:00', false],
      ],
    );
  });

  it('tells blocked only to a secret credential of the business: the public sees all_resources_busy', async () => {
    const biz = await venue();
    await call(biz, 'POST', `/v1/manage/resources/${biz.resources.T6}/blocks`, {
      start_at: `${BOOKING_DAY}T11:00:00Z`,
      end_at: `${BOOKING_DAY}T12:00:00Z`,
    });
    const other = await venue();
    const { key } = await createPublishableKey(ctx.app, biz.tenant, ['https://shop.example']);
    const explained = async (headers: Record<string, string>) => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=5&explain=true`,
        headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { slots: Slot[] }).slots.find((slot) => slot.time === '11:00')?.reasons;
    };
    assert.deepEqual(await explained({}), ['all_resources_busy'], 'no credential');
    assert.deepEqual(
      await explained({ authorization: `Bearer ${key}`, origin: 'https://shop.example' }),
      ['all_resources_busy'],
      'a publishable key',
    );
    assert.deepEqual(await explained(other.tenant.headers), ['all_resources_busy'], "another business's key");
    assert.deepEqual(await explained(biz.tenant.headers), ['blocked'], "the business's own secret key");
    const staff = await call(
      biz,
      'GET',
      `/v1/manage/availability?booking_date=${BOOKING_DAY}&capacity=5&explain=true`,
    );
    assert.deepEqual(
      (staff.json() as { slots: Slot[] }).slots.find((slot) => slot.time === '11:00')?.reasons,
      ['blocked'],
    );
  });

  it('answers 400 with view=resources', async () => {
    const biz = await venue();
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&view=resources&explain=true`,
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'bad_request');
  });
});
