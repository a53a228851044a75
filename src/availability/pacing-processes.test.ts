// test lane: system
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, type BookableBusiness, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { ENGINE } from '../../test/helpers.ts';
import { twoServersOnOneDatabase } from '../../test/server-processes.ts';

/**
 * What one start may take (its pacing, a class's seats) with the bookings spread over two real
 * server processes on one PostgreSQL.
 */
describe('pacing and class seats across two server processes', {
  skip: ENGINE === 'pglite' && 'PGlite serves one process',
}, () => {
  const served = twoServersOnOneDatabase();

  /** 40 bookings on BOOKING_DAY sent at once, every other one to each process; `body(i)` adds to the i-th. */
  const raceThroughBoth = (biz: BookableBusiness, body: (i: number) => Record<string, unknown>) =>
    Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await fetch(`${served.servers[i % 2]!.url}/v1/bookings`, {
          method: 'POST',
          headers: { ...biz.tenant.headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            business_id: biz.tenant.businessId,
            booking_date: BOOKING_DAY,
            ...guest(),
            ...body(i),
          }),
        });
        return { status: response.status, body: await response.text() };
      }),
    );

  it('stores at most max_covers_per_slot at one time, exactly the winners, whichever process answers', async () => {
    const resources = Array.from({ length: 40 }, (_, i) => ({
      name: `B${i}`,
      capacity_min: 1,
      capacity_max: 2,
    }));
    const biz = await setupBookable(served.ctx.app, { open: '17:00', close: '23:00', resources });
    const put = await served.ctx.app.inject({
      method: 'PUT',
      url: '/v1/manage/service-periods',
      headers: biz.tenant.headers,
      payload: [
        {
          name: 'Dinner',
          days_of_week: [0, 1, 2, 3, 4, 5, 6],
          start_time: '18:00',
          end_time: '22:00',
          max_covers_per_slot: 10,
        },
      ],
    });
    assert.equal(put.statusCode, 200, put.body);
    const answers = await raceThroughBoth(biz, (i) => ({ start_time: '19:00', capacity: 1 + (i % 2) }));
    const won = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409 && a.body.includes('slot_unavailable'));
    assert.equal(won.length + refused.length, answers.length, JSON.stringify(answers));
    const wonCovers = won.reduce((sum, a) => sum + JSON.parse(a.body).booking.capacity, 0);
    const stored = await served.ctx.database.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.sum<string>('capacity').as('covers'))
      .where('business_id', '=', biz.tenant.businessId)
      .where('status', 'in', ['pending', 'confirmed', 'checked_in'])
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.covers), wonCovers);
    assert.ok(wonCovers <= 10 && wonCovers >= 9, `${wonCovers} covers stored`);
    console.log(
      `pacing race (two processes): ${won.length} winners, ${wonCovers} covers, ${refused.length} refused`,
    );
  });

  it('stores exactly the seats of a class of 12 when 40 guests race through both processes', async () => {
    const biz = await setupBookable(served.ctx.app, {
      resources: [
        { name: 'Room A', capacity_min: 1, capacity_max: 1 },
        { name: 'Room B', capacity_min: 1, capacity_max: 1 },
      ],
    });
    const created = await served.ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/services',
      headers: biz.tenant.headers,
      payload: { name: 'Yoga', duration_minutes: 60, seats: 12 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const answers = await raceThroughBoth(biz, () => ({
      service_id: created.json().id,
      start_time: '10:00',
      capacity: 1,
    }));
    const won = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409 && a.body.includes('slot_unavailable'));
    assert.equal(won.length + refused.length, answers.length, JSON.stringify(answers));
    assert.equal(won.length, 12);
    const stored = await served.ctx.database.db
      .selectFrom('bookings')
      .select('resource_id')
      .where('business_id', '=', biz.tenant.businessId)
      .where('status', 'in', ['pending', 'confirmed', 'checked_in'])
      .execute();
    assert.equal(stored.length, 12);
    assert.equal(new Set(stored.map((booking) => booking.resource_id)).size, 1);
  });
});
