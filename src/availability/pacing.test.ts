import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { dynamicFixtures } from '../../test/dynamic-fixtures.ts';
import { assertError, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

/** A business open 17:00-23:00 with T2, T4, T6 and a second T6; dinner 18:00-22:00 on 30 minutes, paced as asked. */
async function paced(caps: { max_covers_per_slot?: number; max_bookings_per_slot?: number }, dinner = {}) {
  const biz = await setupBookable(ctx.app, {
    open: '17:00',
    close: '23:00',
    resources: [
      { name: 'T2', capacity_min: 1, capacity_max: 2 },
      { name: 'T4', capacity_min: 1, capacity_max: 4 },
      { name: 'T6', capacity_min: 2, capacity_max: 6 },
      { name: 'T6b', capacity_min: 2, capacity_max: 6 },
    ],
  });
  await putDinner(biz, { slot_interval_minutes: 30, ...caps, ...dinner });
  return biz;
}

/** Dinner, 18:00-22:00 every day, as the business's one service period, with `fields` (its pacing). */
async function putDinner(biz: BookableBusiness, fields: object) {
  const response = await ctx.app.inject({
    method: 'PUT',
    url: '/v1/manage/service-periods',
    headers: biz.tenant.headers,
    payload: [{ name: 'Dinner', days_of_week: EVERY_DAY, start_time: '18:00', end_time: '22:00', ...fields }],
  });
  assert.equal(response.statusCode, 200, response.body);
}

type SlotView = { time: string; available: boolean; remaining_resources: number };

async function slotsFor(biz: BookableBusiness, capacity: number): Promise<Record<string, SlotView>> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=${capacity}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return Object.fromEntries(response.json().slots.map((slot: SlotView) => [slot.time, slot]));
}

const book = (biz: BookableBusiness, start_time: string, capacity: number, body: object = {}) =>
  bookOk(ctx.app, biz, { start_time, capacity, ...body });

const patch = (biz: BookableBusiness, id: string, payload: object) =>
  ctx.app.inject({ method: 'PATCH', url: `/v1/manage/bookings/${id}`, headers: biz.tenant.headers, payload });

const PACING_FULL = /^The kitchen's pacing for 19:00 on \d{4}-\d{2}-\d{2} is full: /;

/** The active covers stored as starting at 19:00 on BOOKING_DAY. */
async function coversAtSeven(biz: BookableBusiness): Promise<number> {
  const rows = await ctx.database.db
    .selectFrom('bookings')
    .select('capacity')
    .where('business_id', '=', biz.tenant.businessId)
    .where('booking_date', '=', BOOKING_DAY)
    .where('start_time', '=', '19:00')
    .where('status', 'in', ['pending', 'confirmed', 'checked_in'])
    .execute();
  return rows.reduce((sum, row) => sum + row.capacity, 0);
}

describe('pacing: max_covers_per_slot', () => {
  it('leaves a full time out of the day for a large party, offers it to a small one, and the next time to both', async () => {
    const biz = await paced({ max_covers_per_slot: 10 });
    await book(biz, '19:00', 6);
    await book(biz, '19:00', 1);
    const large = await slotsFor(biz, 4);
    assert.deepEqual(large['19:00'], { ...large['19:00'], available: false, remaining_resources: 0 });
    assert.equal(large['19:30']!.available, true);
    assert.equal(large['18:30']!.available, true);
    assert.equal((await slotsFor(biz, 3))['19:00']!.available, true);
  });

  it('refuses a booking that would pass the cap with 409 slot_unavailable naming the pacing, and takes one that fills it', async () => {
    const biz = await paced({ max_covers_per_slot: 10 });
    await book(biz, '19:00', 6);
    const refused = await postBooking(ctx.app, biz, { start_time: '19:00', capacity: 5 });
    assertError(refused, 409, 'slot_unavailable');
    assert.match(refused.json().error.message, PACING_FULL);
    assert.match(
      refused.json().error.message,
      /at most 10 guests may start then, and too few places are left for a party of 5\.$/,
    );
    await book(biz, '19:00', 4);
    assert.equal(await coversAtSeven(biz), 10);
    await book(biz, '19:30', 6);
  });

  it('frees the covers of cancelled, no-show and completed bookings', async () => {
    const biz = await paced({ max_covers_per_slot: 6 });
    const bookings = [await book(biz, '19:00', 2), await book(biz, '19:00', 2), await book(biz, '19:00', 2)];
    assertError(
      await postBooking(ctx.app, biz, { start_time: '19:00', capacity: 2 }),
      409,
      'slot_unavailable',
    );
    const cancelled = await patch(biz, bookings[0].id, { status: 'cancelled' });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    await ctx.database.db
      .updateTable('bookings')
      .set({ status: 'no_show' })
      .where('id', '=', bookings[1].id)
      .execute();
    await ctx.database.db
      .updateTable('bookings')
      .set({ status: 'completed' })
      .where('id', '=', bookings[2].id)
      .execute();
    await book(biz, '19:00', 6);
  });
});

describe('pacing: max_bookings_per_slot', () => {
  it('caps the bookings of a time whatever their parties, not the next time', async () => {
    const biz = await paced({ max_bookings_per_slot: 2 });
    await book(biz, '19:00', 1);
    await book(biz, '19:00', 1);
    const refused = await postBooking(ctx.app, biz, { start_time: '19:00', capacity: 1 });
    assertError(refused, 409, 'slot_unavailable');
    assert.match(refused.json().error.message, /at most 2 bookings may start then, and all are taken\.$/);
    assert.equal((await slotsFor(biz, 1))['19:00']!.available, false);
    await book(biz, '19:30', 2);
  });
});

describe('pacing in the month view', () => {
  it('shows a day whose every start is paced out as fully booked', async () => {
    const biz = await paced({ max_bookings_per_slot: 1 }, { end_time: '19:30', last_start_time: '18:30' });
    const days = async () => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${biz.tenant.businessId}/days?from=${BOOKING_DAY}&to=${BOOKING_DAY}&capacity=1`,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().days[0];
    };
    await book(biz, '18:00', 2);
    assert.deepEqual(await days(), {
      date: BOOKING_DAY,
      available: true,
      first_time: '18:30',
      slot_count: 1,
      reason: null,
      note: null,
    });
    await book(biz, '18:30', 2);
    assert.deepEqual(await days(), {
      date: BOOKING_DAY,
      available: false,
      first_time: null,
      slot_count: 0,
      reason: 'fully_booked',
      note: null,
    });
  });
});

describe('pacing of changes', () => {
  it('refuses a reschedule into a full time, and lets a booking keep its own covers there', async () => {
    const biz = await paced({ max_covers_per_slot: 10 });
    const seated = await book(biz, '19:00', 6);
    const own = await book(biz, '19:00', 4);
    const early = await book(biz, '18:00', 2);
    const refused = await patch(biz, early.id, { start_time: '19:00' });
    assertError(refused, 409, 'slot_unavailable');
    assert.match(refused.json().error.message, PACING_FULL);
    const kept = await patch(biz, own.id, { start_time: '19:00', resource_id: biz.resources.T6b });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(kept.json().resource_id, biz.resources.T6b);
    assert.equal(await coversAtSeven(biz), 10);
    assert.ok(seated);
  });

  it('re-checks a party that grows at a full time, and lets it grow within the cap', async () => {
    const biz = await paced({ max_covers_per_slot: 10 });
    await book(biz, '19:00', 6);
    const growing = await book(biz, '19:00', 2, { resource_id: biz.resources.T6b });
    const refused = await patch(biz, growing.id, { capacity: 6 });
    assertError(refused, 409, 'slot_unavailable');
    assert.match(
      refused.json().error.message,
      /at most 10 guests may start then, and too few places are left for a party of 6\.$/,
    );
    const grown = await patch(biz, growing.id, { capacity: 4 });
    assert.equal(grown.statusCode, 200, grown.body);
    assert.equal(await coversAtSeven(biz), 10);
  });
});

describe('pacing and staff', () => {
  const staffBooking = (biz: BookableBusiness, capacity: number) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff',
      headers: biz.tenant.headers,
      payload: { date: BOOKING_DAY, time: '19:00', capacity, ...guest() },
    });

  const auditOf = async (biz: BookableBusiness, action: string) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/audit-logs',
      headers: biz.tenant.headers,
    });
    return response.json().items.filter((item: { action: string }) => item.action === action);
  };

  it('lets a staff booking pass a full time, and says so in its audit row', async () => {
    const biz = await paced({ max_covers_per_slot: 6 });
    const fits = await staffBooking(biz, 2);
    assert.equal(fits.statusCode, 201, fits.body);
    const [fitting] = await auditOf(biz, 'booking.created_by_staff');
    assert.deepEqual(fitting.meta, {});
    await book(biz, '19:00', 4);
    const passes = await staffBooking(biz, 6);
    assert.equal(passes.statusCode, 201, passes.body);
    const rows = await auditOf(biz, 'booking.created_by_staff');
    const passing = rows.find((row: { entity_id: string }) => row.entity_id === passes.json().booking.id);
    assert.deepEqual(passing.meta, { pacing_overridden: true });
    assert.equal(await coversAtSeven(biz), 12);
    assertError(
      await postBooking(ctx.app, biz, { start_time: '19:00', capacity: 1 }),
      409,
      'slot_unavailable',
    );
  });

  it("lets a staff booking's party grow past a full time, audited", async () => {
    const biz = await paced({ max_covers_per_slot: 6 });
    await book(biz, '19:00', 4);
    const staff = (await staffBooking(biz, 2)).json().booking;
    const grown = await patch(biz, staff.id, { capacity: 4, resource_id: biz.resources.T6 });
    assert.equal(grown.statusCode, 200, grown.body);
    const [changed] = await auditOf(biz, 'booking.capacity_changed');
    assert.deepEqual(changed.meta, { pacing_overridden: true });
  });
});

describe('pacing of a combined party that changes size', () => {
  /** The paced business with T4 and T6 joined for 7 to 10. */
  async function joined(caps: { max_covers_per_slot: number }) {
    const biz = await paced(caps);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/combinations',
      headers: biz.tenant.headers,
      payload: {
        name: 'T4 + T6',
        resource_ids: [biz.resources.T4, biz.resources.T6],
        capacity_min: 7,
        capacity_max: 10,
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    return biz;
  }

  it("keeps a guest's combined party to the cap when staff grow it", async () => {
    const biz = await joined({ max_covers_per_slot: 10 });
    const party = await book(biz, '19:00', 8);
    assert.equal(party.resource_ids.length, 2);
    await book(biz, '19:00', 2);
    assertError(await patch(biz, party.id, { capacity: 9 }), 409, 'slot_unavailable');
    assert.equal(await coversAtSeven(biz), 10);
  });

  it('lets a combined party shrink at a start staff filled past the cap', async () => {
    const biz = await joined({ max_covers_per_slot: 10 });
    const party = await book(biz, '19:00', 8);
    const staff = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff',
      headers: biz.tenant.headers,
      payload: { date: BOOKING_DAY, time: '19:00', capacity: 4, ...guest() },
    });
    assert.equal(staff.statusCode, 201, staff.body);
    const shrunk = await patch(biz, party.id, { capacity: 7 });
    assert.equal(shrunk.statusCode, 200, shrunk.body);
    assert.equal(await coversAtSeven(biz), 11);
  });
});

describe('pacing in dynamic mode', () => {
  const dynamic = dynamicFixtures(() => ctx.app);

  it('answers a full start unavailable in the point check, refuses it, and counts a start off the grid at its own minute', async () => {
    const biz = await dynamic.setupDynamic({ open: '17:00', close: '23:00' });
    await putDinner(biz, { max_bookings_per_slot: 1 });
    await dynamic.bookOk(biz, { start_time: '19:07', duration_minutes: 45 });
    const full = await dynamic.checkOk(biz, { start_time: '19:07', duration_minutes: 45 });
    assert.deepEqual([full.available, full.remaining_resources, full.reason], [false, 0, 'slot_unavailable']);
    const refused = await dynamic.book(biz, { start_time: '19:07', duration_minutes: 45 });
    assertError(refused, 409, 'slot_unavailable');
    assert.match(
      refused.json().error.message,
      /pacing for 19:07 on .* is full: at most 1 booking may start then/,
    );
    const next = await dynamic.checkOk(biz, { start_time: '19:08', duration_minutes: 45 });
    assert.equal(next.available, true);
  });
});

describe('pacing under concurrency', () => {
  it('lets 40 simultaneous bookings at one time store at most the cap, exactly the winners', async () => {
    const resources = Array.from({ length: 40 }, (_, i) => ({
      name: `B${i}`,
      capacity_min: 1,
      capacity_max: 2,
    }));
    const biz = await setupBookable(ctx.app, { open: '17:00', close: '23:00', resources });
    await putDinner(biz, { max_covers_per_slot: 10 });
    const parties = Array.from({ length: 40 }, (_, i) => 1 + (i % 2));
    const answers = await Promise.all(
      parties.map((capacity) => postBooking(ctx.app, biz, { start_time: '19:00', capacity })),
    );
    const won = answers.filter((answer) => answer.statusCode === 201);
    const lost = answers.filter((answer) => answer.statusCode !== 201);
    for (const answer of lost) assertError(answer, 409, 'slot_unavailable');
    const wonCovers = won.reduce((sum, answer) => sum + answer.json().booking.capacity, 0);
    const stored = await coversAtSeven(biz);
    assert.equal(stored, wonCovers);
    assert.ok(stored <= 10, `${stored} covers stored`);
    // A party of one among the losers would have fitted any total below 10.
    assert.ok(stored >= 9, `${stored} covers stored`);
  });
});
