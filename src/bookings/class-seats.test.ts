import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BOOKING_DAY,
  type BookableBusiness,
  postBooking,
  send,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { assertError, RACE, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

/** A studio with two rooms of one place each, open 09:00-17:00, and a class of `seats` an hour long. */
async function studio(seats = 12) {
  const biz = await setupBookable(ctx.app, {
    name: 'Studio Flow',
    resources: [
      { name: 'Room A', capacity_min: 1, capacity_max: 1 },
      { name: 'Room B', capacity_min: 1, capacity_max: 1 },
    ],
    settings: { max_capacity: 20 },
  });
  const yoga = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/services', {
    name: 'Yoga',
    duration_minutes: 60,
    seats,
  });
  return { biz, yoga: yoga.id as string };
}

const book = (biz: BookableBusiness, service: string, body: Record<string, unknown> = {}) =>
  postBooking(ctx.app, biz, { service_id: service, start_time: '10:00', capacity: 1, ...body });

async function slotAt(biz: BookableBusiness, service: string, time: string, capacity = 1) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=${capacity}&service_id=${service}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().slots.find((slot: { time: string }) => slot.time === time) as {
    available: boolean;
    seats_left: number;
    remaining_resources: number;
  };
}

describe('classes with seats', () => {
  it('joins the bookings of one start on one resource and counts their seats down to full', async () => {
    const { biz, yoga } = await studio(12);
    assert.equal((await slotAt(biz, yoga, '10:00')).seats_left, 12);
    const first = (await book(biz, yoga, { capacity: 2 })).json().booking;
    const second = (await book(biz, yoga, { capacity: 5 })).json().booking;
    assert.equal(second.resource_id, first.resource_id);
    assert.deepEqual(await slotAt(biz, yoga, '10:00'), {
      time: '10:00',
      available: true,
      remaining_resources: 1,
      duration_minutes: 60,
      seats_left: 5,
      period: null,
    });
    // Room B is still free at 10:00 for another start's class, not for a second class at 10:00.
    assert.equal((await slotAt(biz, yoga, '11:00')).seats_left, 12);

    const tooMany = await book(biz, yoga, { capacity: 6 });
    assertError(tooMany, 409, 'slot_unavailable');
    assert.match(
      tooMany.json().error.message,
      /class at 10:00 on .* has 5 seats left, too few for a party of 6/,
    );
    assert.equal((await slotAt(biz, yoga, '10:00', 6)).available, false);

    const last = (await book(biz, yoga, { capacity: 5 })).json().booking;
    assert.equal(last.resource_id, first.resource_id);
    const full = await slotAt(biz, yoga, '10:00');
    assert.equal(full.seats_left, 0);
    assert.equal(full.available, false);
    const refused = await book(biz, yoga);
    assertError(refused, 409, 'slot_unavailable');
    assert.match(refused.json().error.message, /class at 10:00 on .* is full/);

    const explained = await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=1&service_id=${yoga}&explain=true`,
    });
    const at10 = explained.json().slots.find((slot: { time: string }) => slot.time === '10:00');
    assert.deepEqual(at10.reasons, ['class_full']);

    // A cancelled seat is free again.
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${first.id}`, { status: 'cancelled' });
    assert.equal((await slotAt(biz, yoga, '10:00')).seats_left, 2);
    assert.equal((await book(biz, yoga, { capacity: 2 })).statusCode, 201);
  });

  it('moves one participant to another start, and refuses a move into a full class', async () => {
    const { biz, yoga } = await studio(3);
    const ada = (await book(biz, yoga)).json().booking;
    await book(biz, yoga, { capacity: 2 });
    const eleven = (await book(biz, yoga, { start_time: '11:00', capacity: 3 })).json().booking;

    const refused = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${ada.id}`,
      headers: biz.tenant.headers,
      payload: { start_time: '11:00' },
    });
    assertError(refused, 409, 'slot_unavailable');

    const moved = await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${ada.id}`, {
      start_time: '12:00',
    });
    assert.equal(moved.start_time, '12:00');
    assert.equal((await slotAt(biz, yoga, '10:00')).seats_left, 1);
    assert.equal((await slotAt(biz, yoga, '12:00')).seats_left, 2);
    assert.equal((await slotAt(biz, yoga, '11:00')).seats_left, 0);

    // A party grows only into the seats left, and a participant stays in its class's room.
    const grown = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${ada.id}`,
      headers: biz.tenant.headers,
      payload: { capacity: 4 },
    });
    assertError(grown, 409, 'slot_unavailable');
    assert.equal(
      (await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${ada.id}`, { capacity: 3 })).capacity,
      3,
    );
    const otherRoom = Object.values(biz.resources).find((id) => id !== eleven.resource_id)!;
    const split = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${eleven.id}`,
      headers: biz.tenant.headers,
      payload: { resource_id: otherRoom },
    });
    // The class of 11:00 has no other booking: it may change room.
    assert.equal(split.statusCode, 200, split.body);
  });

  it('keeps ordinary bookings and other classes off the room a class holds', async () => {
    const { biz, yoga } = await studio(12);
    const pilates = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/services', {
      name: 'Pilates',
      duration_minutes: 60,
      seats: 6,
    });
    await book(biz, yoga);
    await book(biz, pilates.id);
    // Both rooms now hold a class at 10:00: a third class, or a single booking, finds none free.
    assertError(await book(biz, yoga, { start_time: '10:30' }), 409, 'slot_unavailable');
    assertError(
      await postBooking(ctx.app, biz, { start_time: '10:30', capacity: 1 }),
      409,
      'slot_unavailable',
    );
    const holds = await ctx.database.db
      .selectFrom('booking_holds')
      .select(['resource_id', 'shared_by'])
      .where('business_id', '=', biz.tenant.businessId)
      .execute();
    assert.equal(new Set(holds.map((hold) => hold.resource_id)).size, 2);
  });

  it('takes seats between 2 and 500, shown on the service', async () => {
    const { biz, yoga } = await studio(12);
    const read = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/services');
    assert.equal(read.items.find((service: { id: string }) => service.id === yoga).seats, 12);
    for (const seats of [1, 501, 2.5]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Spin', duration_minutes: 45, seats },
      });
      assertError(response, 422, 'validation_error', String(seats));
    }
    const plain = await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/services/${yoga}`, { seats: null });
    assert.equal(plain.seats, null);
  });

  it('stores exactly the seats of the class when 40 guests race for 12', RACE, async () => {
    const { biz, yoga } = await studio(12);
    const answers = await Promise.all(Array.from({ length: 40 }, () => book(biz, yoga)));
    const won = answers.filter((answer) => answer.statusCode === 201);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      assertError(answer, 409, 'slot_unavailable');
    }
    assert.equal(won.length, 12);
    const stored = await ctx.database.db
      .selectFrom('bookings')
      .select(['resource_id', 'capacity'])
      .where('business_id', '=', biz.tenant.businessId)
      .where('status', 'in', ['pending', 'confirmed'])
      .execute();
    assert.equal(stored.length, 12);
    assert.equal(new Set(stored.map((booking) => booking.resource_id)).size, 1);
  });
});
