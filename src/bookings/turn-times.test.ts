import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BookableBusiness,
  bookOk,
  daysFromNow,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { dynamicFixtures } from '../../test/dynamic-fixtures.ts';
import { assertError, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const DAY = daysFromNow(7);

/** Parties of up to 4 hold their table 90 minutes, 5 to 8 two hours; the default stays 60. */
const TURN_TIMES = [
  { min_party: 1, max_party: 4, duration_minutes: 90 },
  { min_party: 5, max_party: 8, duration_minutes: 120 },
];

/** Open 09:00-17:00 on a 30-minute grid; T2 (1-2), T4 (1-4), T6 (2-6). */
const setup = (settings: Record<string, unknown> = { turn_times: TURN_TIMES }) =>
  setupBookable(ctx.app, { settings });

const book = (biz: BookableBusiness, body: Record<string, unknown> = {}) => bookOk(ctx.app, biz, body);

const get = (biz: BookableBusiness, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers: biz.tenant.headers });

const patch = (biz: BookableBusiness, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/v1/manage/bookings/${id}`, headers: biz.tenant.headers, payload });

type Slot = { time: string; available: boolean; resource_id?: string };

async function slots(biz: BookableBusiness, url: string): Promise<Slot[]> {
  const response = await get(biz, url);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().slots;
}

const freeTimes = (list: Slot[]) => list.filter((slot) => slot.available).map((slot) => slot.time);

async function auditActions(id: string) {
  const rows = await ctx.database.db
    .selectFrom('audit_logs')
    .select('action')
    .where('entity_id', '=', id)
    .orderBy('seq')
    .execute();
  return rows.map((row) => row.action);
}

/** T6 taken from 14:00 by a party of two (held 90 minutes). */
async function withT6TakenAt14(biz: BookableBusiness) {
  const taken = await book(biz, { start_time: '14:00', resource_id: biz.resources.T6 });
  assert.equal(taken.end_time, '15:30');
}

describe('turn times in availability', () => {
  it('offers a party only the starts its own length fits, on the public and managed day routes', async () => {
    const biz = await setup();
    await withT6TakenAt14(biz);
    const query = `booking_date=${DAY}&capacity=6`;
    const sixes = await slots(biz, `/v1/availability/${biz.tenant.businessId}?${query}`);
    // Only T6 takes six: 12:00 ends at 14:00; 12:30 would fit 90 minutes but not 120.
    assert.deepEqual(freeTimes(sixes), ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00']);
    assert.equal(sixes.at(-1)?.time, '15:00', 'the last start leaves two hours before closing');
    assert.deepEqual(await slots(biz, `/v1/manage/availability?${query}`), sixes);
    const fours = await slots(
      biz,
      `/v1/availability/${biz.tenant.businessId}?booking_date=${DAY}&capacity=4&resource_id=${biz.resources.T6}`,
    );
    assert.ok(freeTimes(fours).includes('12:30'), 'a party of four holds T6 90 minutes');
    assert.equal(fours.at(-1)?.time, '15:30');
  });

  it('lists the resources free for the turn time (view=resources)', async () => {
    const biz = await setup();
    await withT6TakenAt14(biz);
    const list = await slots(
      biz,
      `/v1/availability/${biz.tenant.businessId}?booking_date=${DAY}&capacity=5&view=resources`,
    );
    assert.deepEqual(
      list.filter((slot) => slot.time >= '12:00').map((slot) => [slot.time, slot.resource_id]),
      [['12:00', biz.resources.T6]],
    );
  });

  it("counts a month's free starts for the turn time", async () => {
    const biz = await setup();
    await withT6TakenAt14(biz);
    const days = async (capacity: number) => {
      const response = await get(
        biz,
        `/v1/availability/${biz.tenant.businessId}/days?from=${DAY}&to=${DAY}&capacity=${capacity}`,
      );
      assert.equal(response.statusCode, 200, response.body);
      return response.json().days[0];
    };
    assert.equal((await days(6)).slot_count, 7);
    assert.equal((await days(1)).slot_count, 14, 'T2 and T4 stay free for a party of one');
  });

  it('drops cached days when the turn times change', async () => {
    const biz = await setup({});
    const url = `/v1/availability/${biz.tenant.businessId}?booking_date=${DAY}&capacity=6`;
    assert.equal((await slots(biz, url)).at(-1)?.time, '16:00');
    const changed = await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/manage/settings',
      headers: biz.tenant.headers,
      payload: { turn_times: TURN_TIMES },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await slots(biz, url)).at(-1)?.time, '15:00');
  });
});

describe('turn times in bookings', () => {
  it('gives a new booking the turn time of its party, a service its own length', async () => {
    const biz = await setup();
    const six = await book(biz, { start_time: '09:00', capacity: 6 });
    assert.deepEqual([six.duration_minutes, six.end_time], [120, '11:00']);
    assert.equal(Date.parse(six.ends_at) - Date.parse(six.starts_at), 120 * 60_000);
    const two = await book(biz, { start_time: '09:00', capacity: 2 });
    assert.deepEqual([two.duration_minutes, two.end_time], [90, '10:30']);
    const service = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/services',
      headers: biz.tenant.headers,
      payload: { name: 'Tasting', duration_minutes: 45 },
    });
    assert.equal(service.statusCode, 201, service.body);
    const tasting = await book(biz, { start_time: '12:00', capacity: 6, service_id: service.json().id });
    assert.deepEqual([tasting.duration_minutes, tasting.end_time], [45, '12:45']);
  });

  it('refuses a party whose turn time runs past closing, online and by staff', async () => {
    const biz = await setup();
    const online = await postBooking(ctx.app, biz, { start_time: '15:30', capacity: 6 });
    assertError(online, 422, 'outside_operating_hours');
    assert.match(online.json().error.message, /120-minute booking at 15:30/);
    const staff = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff',
      headers: biz.tenant.headers,
      payload: {
        date: DAY,
        time: '15:10',
        capacity: 6,
        first_name: 'Ada',
        last_name: 'Lovelace',
        phone: '+49 30 5551234',
      },
    });
    assertError(staff, 422, 'outside_operating_hours');
    assert.equal((await book(biz, { start_time: '15:30', capacity: 4 })).end_time, '17:00');
  });

  it('gives a rescheduled booking the length of its party, written with it', async () => {
    const biz = await setup({});
    const booking = await book(biz, { start_time: '09:00', capacity: 6 });
    assert.equal(booking.duration_minutes, 60, 'made before the turn times');
    await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/manage/settings',
      headers: biz.tenant.headers,
      payload: { turn_times: TURN_TIMES },
    });
    const moved = await patch(biz, booking.id, { start_time: '10:00' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(
      [moved.json().start_time, moved.json().end_time, moved.json().duration_minutes],
      ['10:00', '12:00', 120],
    );
    const stored = await get(biz, `/v1/manage/bookings/${booking.id}`);
    assert.equal(stored.json().duration_minutes, 120);
  });

  describe('a capacity change', () => {
    it('takes the longer turn time when it is free: a reschedule to the same start', async () => {
      const biz = await setup();
      const booking = await book(biz, { start_time: '12:00', capacity: 4, resource_id: biz.resources.T6 });
      assert.equal(booking.end_time, '13:30');
      const grown = await patch(biz, booking.id, { capacity: 6 });
      assert.equal(grown.statusCode, 200, grown.body);
      const after = grown.json();
      assert.deepEqual(
        [after.start_time, after.end_time, after.duration_minutes, after.capacity, after.resource_id],
        ['12:00', '14:00', 120, 6, biz.resources.T6],
      );
      assert.equal(after.ends_at, new Date(Date.parse(booking.starts_at) + 120 * 60_000).toISOString());
      assert.deepEqual(await auditActions(booking.id), [
        'booking.created',
        'booking.rescheduled',
        'booking.capacity_changed',
      ]);
      const fours = await slots(
        biz,
        `/v1/availability/${biz.tenant.businessId}?booking_date=${DAY}&capacity=4&resource_id=${biz.resources.T6}`,
      );
      assert.ok(!freeTimes(fours).includes('13:30'), 'T6 is held until 14:00');
      const shrunk = await patch(biz, booking.id, { capacity: 3 });
      assert.deepEqual([shrunk.json().end_time, shrunk.json().duration_minutes], ['13:30', 90]);
    });

    it('answers 409 slot_unavailable when the longer time clashes, and changes nothing', async () => {
      const biz = await setup();
      const booking = await book(biz, { start_time: '12:00', capacity: 4, resource_id: biz.resources.T6 });
      await book(biz, { start_time: '13:30', capacity: 2, resource_id: biz.resources.T6 });
      assertError(await patch(biz, booking.id, { capacity: 6 }), 409, 'slot_unavailable');
      const stored = (await get(biz, `/v1/manage/bookings/${booking.id}`)).json();
      assert.deepEqual([stored.capacity, stored.end_time, stored.duration_minutes], [4, '13:30', 90]);
      assert.deepEqual(await auditActions(booking.id), ['booking.created']);
    });

    it('answers as a reschedule does when the longer time runs past closing', async () => {
      const biz = await setup();
      const late = await book(biz, { start_time: '15:30', capacity: 4, resource_id: biz.resources.T6 });
      const grown = await patch(biz, late.id, { capacity: 6 });
      assertError(grown, 422, 'outside_operating_hours');
      const six = await book(biz, { start_time: '12:00', capacity: 6 });
      const moved = await patch(biz, six.id, { start_time: '15:30' });
      assertError(moved, 422, 'outside_operating_hours');
      assert.equal(grown.json().error.message, moved.json().error.message);
    });

    it('keeps the held time when the turn time stays the same, as before', async () => {
      const biz = await setup();
      const booking = await book(biz, { start_time: '12:00', capacity: 5 });
      const grown = await patch(biz, booking.id, { capacity: 6 });
      assert.equal(grown.statusCode, 200, grown.body);
      assert.deepEqual([grown.json().end_time, grown.json().duration_minutes], ['14:00', 120]);
      assert.deepEqual(await auditActions(booking.id), ['booking.created', 'booking.capacity_changed']);
    });

    it("keeps a service's length whatever the party", async () => {
      const biz = await setup();
      const service = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Tasting', duration_minutes: 45 },
      });
      const booking = await book(biz, {
        start_time: '12:00',
        capacity: 4,
        resource_id: biz.resources.T6,
        service_id: service.json().id,
      });
      const grown = await patch(biz, booking.id, { capacity: 6 });
      assert.equal(grown.statusCode, 200, grown.body);
      assert.deepEqual([grown.json().end_time, grown.json().duration_minutes], ['12:45', 45]);
    });
  });
});

describe('turn times in dynamic mode', () => {
  const dynamic = dynamicFixtures(() => ctx.app);

  it('keeps the length asked, and 60 minutes when none is', async () => {
    const biz = await dynamic.setupDynamic({ settings: { turn_times: TURN_TIMES } });
    const asked = await dynamic.bookOk(biz, { capacity: 6, duration_minutes: 45 });
    assert.equal(asked.duration_minutes, 45);
    const unasked = await dynamic.bookOk(biz, { capacity: 6, start_time: '13:00' });
    assert.equal(unasked.duration_minutes, 60);
    const grown = await patch(biz, asked.id, { capacity: 2 });
    assert.equal(grown.statusCode, 200, grown.body);
    assert.equal(grown.json().duration_minutes, 45);
  });
});
