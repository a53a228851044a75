// test lane: system
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { bookingsCounted, ENGINE } from '../../test/helpers.ts';
import { twoServersOnOneDatabase } from '../../test/server-processes.ts';
import { PLANS, quotaMonth } from './plans.rules.ts';
import { setSubscription } from './subscription.service.ts';

/** The quota's edge with the bookings spread over two real server processes on one PostgreSQL. */
describe('monthly booking quota across two server processes', {
  skip: ENGINE === 'pglite' && 'PGlite serves one process',
}, () => {
  const served = twoServersOnOneDatabase();

  describe('402', () => {
    it('lets exactly one booking take the last one of the quota, whichever process answers', async () => {
      const biz = await setupBookable(served.ctx.app);
      const developerId = biz.tenant.developer.id;
      await setSubscription(served.ctx.app.db, served.ctx.app.changes, developerId, {
        status: 'active',
        planId: 'free',
      });
      await served.ctx.database.db
        .insertInto('booking_usage')
        .values({
          developer_id: developerId,
          month: quotaMonth(Date.now()),
          bookings: PLANS.free.monthlyBookings - 1,
        })
        .execute();
      const starts = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'];
      const answers = await Promise.all(
        [...starts, ...starts].map(async (start_time, i) => {
          const response = await fetch(`${served.servers[i % 2]!.url}/v1/bookings`, {
            method: 'POST',
            headers: { ...biz.tenant.headers, 'content-type': 'application/json' },
            body: JSON.stringify({
              business_id: biz.tenant.businessId,
              booking_date: BOOKING_DAY,
              start_time,
              capacity: 2,
              ...guest(),
            }),
          });
          return { status: response.status, body: await response.text() };
        }),
      );
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status === 402 && a.body.includes('plan_limit_reached'));
      assert.equal(created.length, 1, JSON.stringify(answers));
      assert.equal(refused.length, answers.length - 1, JSON.stringify(answers));
      assert.equal(await bookingsCounted(served.ctx.database.db, developerId), PLANS.free.monthlyBookings);
      const stored = await served.ctx.database.db
        .selectFrom('bookings')
        .select('id')
        .where('business_id', '=', biz.tenant.businessId)
        .execute();
      assert.equal(stored.length, 1);
    });
  });
});
