import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  BOOKING_DAY,
  type BookableBusiness,
  postBooking,
  send,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { assertError, RACE, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

/** A salon of three stylists and two chairs, open 09:00-17:00; a colour needs a stylist and a chair for an hour. */
async function salon() {
  const resources = ['Ana', 'Ben', 'Cleo', 'Chair 1', 'Chair 2'].map((name) => ({
    name,
    capacity_min: 1,
    capacity_max: 1,
  }));
  const biz = await setupBookable(ctx.app, { name: 'Salon Lumen', resources });
  const { Ana, Ben, Cleo } = biz.resources;
  const chairs = [biz.resources['Chair 1']!, biz.resources['Chair 2']!];
  const colour = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/services', {
    name: 'Colour',
    duration_minutes: 60,
    requirements: [
      { name: 'Stylist', resource_ids: [Ana, Ben, Cleo] },
      { name: 'Chair', resource_ids: chairs },
    ],
  });
  return { biz, colour: colour.id as string, stylists: [Ana!, Ben!, Cleo!], chairs };
}

const book = (biz: BookableBusiness, service: string, body: Record<string, unknown> = {}) =>
  postBooking(ctx.app, biz, { service_id: service, start_time: '10:00', capacity: 1, ...body });

async function day(biz: BookableBusiness, service: string, extra = '') {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=1&service_id=${service}${extra}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().slots as {
    time: string;
    available: boolean;
    remaining_resources?: number;
    resource_ids?: string[];
    resource_name?: string;
    reasons?: string[];
    missing_requirements?: string[];
  }[];
}

const at = async (biz: BookableBusiness, service: string, time: string, extra = '') =>
  (await day(biz, service, extra)).filter((slot) => slot.time === time);

describe('services that need several resources at once', () => {
  it('holds a stylist and a chair together, and offers only what every group can still give', async () => {
    const { biz, colour, stylists, chairs } = await salon();
    assert.equal((await at(biz, colour, '10:00'))[0]!.remaining_resources, 2);
    const sets = await at(biz, colour, '10:00', '&view=resources');
    assert.deepEqual(
      sets.map((slot) => [slot.resource_ids, slot.resource_name]),
      [
        [[stylists[0], chairs[0]], 'Ana + Chair 1'],
        [[stylists[1], chairs[1]], 'Ben + Chair 2'],
      ],
    );

    const first = (await book(biz, colour)).json().booking;
    assert.deepEqual(first.resource_ids, [stylists[0], chairs[0]]);
    const second = (await book(biz, colour)).json().booking;
    assert.deepEqual(second.resource_ids, [stylists[1], chairs[1]]);
    // Cleo is free, but no chair is.
    assertError(await book(biz, colour), 409, 'slot_unavailable');
    const full = (await at(biz, colour, '10:00', '&explain=true'))[0]!;
    assert.equal(full.available, false);
    assert.deepEqual(full.reasons, ['requirement_busy']);
    assert.deepEqual(full.missing_requirements, ['Chair']);
    assert.equal((await at(biz, colour, '11:00'))[0]!.remaining_resources, 2);

    // A single booking of a chair holds it as any booking does.
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${second.id}`, { status: 'cancelled' });
    await postBooking(ctx.app, biz, { start_time: '10:00', capacity: 1, resource_id: chairs[1] });
    assert.equal((await at(biz, colour, '10:00'))[0]?.available ?? false, false);
  });

  it('moves every resource along with a new time, and frees them all on cancel', async () => {
    const { biz, colour, stylists, chairs } = await salon();
    const booking = (await book(biz, colour)).json().booking;
    const moved = await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${booking.id}`, {
      start_time: '14:00',
    });
    assert.deepEqual(moved.resource_ids, [stylists[0], chairs[0]]);
    const holds = () =>
      ctx.database.db
        .selectFrom('booking_holds')
        .select(['resource_id', sql<string>`lower(during)`.as('from')])
        .where('booking_id', '=', booking.id)
        .execute();
    const held = await holds();
    assert.equal(held.length, 2);
    assert.ok(held.every((hold) => new Date(hold.from).toISOString() === moved.starts_at));
    assert.equal((await at(biz, colour, '10:00'))[0]!.remaining_resources, 2);

    const swapped = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { resource_id: stylists[2] },
    });
    assertError(swapped, 422, 'validation_error');

    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${booking.id}`, { status: 'cancelled' });
    assert.deepEqual(await holds(), []);
  });

  it('refuses groups that overlap, outnumber their resources, or come with seats or resource_ids', async () => {
    const { biz, stylists, chairs } = await salon();
    const attempts: [string, Record<string, unknown>][] = [
      [
        'overlap',
        {
          requirements: [
            { name: 'A', resource_ids: stylists },
            { name: 'B', resource_ids: [stylists[0]] },
          ],
        },
      ],
      ['count', { requirements: [{ name: 'Chair', resource_ids: chairs, count: 3 }] }],
      ['seats', { seats: 8, requirements: [{ name: 'Chair', resource_ids: chairs }] }],
      ['resource_ids', { resource_ids: chairs, requirements: [{ name: 'Stylist', resource_ids: stylists }] }],
      [
        'unknown',
        { requirements: [{ name: 'Chair', resource_ids: ['00000000-0000-4000-8000-000000000000'] }] },
      ],
      [
        'names',
        {
          requirements: [
            { name: 'X', resource_ids: chairs },
            { name: 'x', resource_ids: stylists },
          ],
        },
      ],
    ];
    for (const [label, body] of attempts) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Colour', duration_minutes: 60, ...body },
      });
      assertError(response, 422, 'validation_error', label);
      assert.equal(response.json().error.fields[0].field, 'requirements', label);
    }
  });

  it(
    'never holds one resource twice when 30 guests race, and places as many as the engine offered',
    RACE,
    async () => {
      const { biz, colour } = await salon();
      const offered = (await at(biz, colour, '10:00'))[0]!.remaining_resources;
      const answers = await Promise.all(Array.from({ length: 30 }, () => book(biz, colour)));
      const won = answers.filter((answer) => answer.statusCode === 201);
      for (const answer of answers.filter((a) => a.statusCode !== 201))
        assertError(answer, 409, 'slot_unavailable');
      assert.equal(won.length, offered);
      const { rows } = await sql<{ clashes: number }>`
      SELECT count(*)::int AS clashes FROM booking_holds a JOIN booking_holds b
        ON a.business_id = b.business_id AND a.resource_id = b.resource_id AND a.booking_id < b.booking_id
        AND a.during && b.during
      WHERE a.business_id = ${biz.tenant.businessId}`.execute(ctx.database.db);
      assert.equal(rows[0]!.clashes, 0);
    },
  );
});
