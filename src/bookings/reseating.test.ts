import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BookableBusiness, postBooking, send, setupBookable } from '../../test/booking-fixtures.ts';
import { assertError, RACE, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

/** A two-top and a four-top, and Lea's party of two on the four-top at noon. */
async function bistro() {
  const biz = await setupBookable(ctx.app, {
    resources: [
      { name: 'T2', capacity_min: 1, capacity_max: 2 },
      { name: 'T4', capacity_min: 1, capacity_max: 4 },
    ],
  });
  const lea = await postBooking(ctx.app, biz, { capacity: 2, resource_id: biz.resources.T4 });
  assert.equal(lea.statusCode, 201, lea.body);
  return { biz, lea: lea.json().booking as { id: string } };
}

const resourceOf = async (biz: BookableBusiness, id: string) =>
  (await send(ctx.app, biz.tenant, 'GET', `/v1/manage/bookings/${id}`)).resource_id as string;

describe('re-seating', () => {
  it('moves an unstarted booking to another table to seat a party that fits no free one, audited', async () => {
    const { biz, lea } = await bistro();
    const four = await postBooking(ctx.app, biz, { capacity: 4 });
    assert.equal(four.statusCode, 201, four.body);
    assert.equal(four.json().booking.resource_id, biz.resources.T4);
    assert.equal(await resourceOf(biz, lea.id), biz.resources.T2);
    const audit = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/audit-logs?entity_id=${lea.id}`);
    const reseated = audit.items.find((entry: { action: string }) => entry.action === 'booking.reseated');
    assert.deepEqual(
      [reseated.before_state, reseated.after_state, reseated.meta],
      [
        { resource_id: biz.resources.T4 },
        { resource_id: biz.resources.T2 },
        { for_booking: four.json().booking.id },
      ],
    );
  });

  it('never moves a booking the staff locked to its table, and the lock can be lifted', async () => {
    const { biz, lea } = await bistro();
    const locked = await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${lea.id}`, {
      table_locked: true,
    });
    assert.equal(locked.table_locked, true);
    assertError(await postBooking(ctx.app, biz, { capacity: 4 }), 409, 'slot_unavailable');
    assert.equal(await resourceOf(biz, lea.id), biz.resources.T4);
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${lea.id}`, { table_locked: false });
    assert.equal((await postBooking(ctx.app, biz, { capacity: 4 })).statusCode, 201);
  });

  it('moves nothing when the table it would move to is taken too', async () => {
    const { biz, lea } = await bistro();
    await postBooking(ctx.app, biz, { capacity: 2, start_time: '11:30' });
    assertError(await postBooking(ctx.app, biz, { capacity: 4 }), 409, 'slot_unavailable');
    assert.equal(await resourceOf(biz, lea.id), biz.resources.T4);
  });

  it(
    'gives a re-seated party and a booking of the table it frees exactly one consistent outcome',
    RACE,
    async () => {
      for (let round = 0; round < 6; round++) {
        const { biz, lea } = await bistro();
        const [four, two] = await Promise.all([
          postBooking(ctx.app, biz, { capacity: 4 }),
          postBooking(ctx.app, biz, { capacity: 2, resource_id: biz.resources.T2 }),
        ]);
        const won = [four, two].filter((answer) => answer.statusCode === 201);
        assert.equal(won.length, 1, `${four.body} ${two.body}`);
        for (const lost of [four, two].filter((answer) => answer.statusCode !== 201)) {
          assertError(lost, 409, 'slot_unavailable');
        }
        // Lea sits on the two-top exactly when the party of four took her table.
        assert.equal(
          await resourceOf(biz, lea.id),
          four.statusCode === 201 ? biz.resources.T2 : biz.resources.T4,
        );
        const tables = await ctx.database.db
          .selectFrom('booking_holds')
          .select('resource_id')
          .where('business_id', '=', biz.tenant.businessId)
          .execute();
        assert.equal(new Set(tables.map((hold) => hold.resource_id)).size, 2);
      }
    },
  );
});
