import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type StartedProcess, startProcess, stopProcess } from '../../bench/process.ts';
import { BOOKING_DAY, guest, setupBookable } from '../../test/booking-fixtures.ts';
import {
  bookingsCounted,
  createTestApp,
  ENGINE,
  TEST_JWT_SECRET,
  type TestContext,
} from '../../test/helpers.ts';
import { PLANS, quotaMonth } from './plans.ts';
import { setSubscription } from './subscription.service.ts';

/** The quota's edge with the bookings spread over two real server processes on one PostgreSQL. */
describe('monthly booking quota across two server processes', {
  skip: ENGINE === 'pglite' && 'PGlite serves one process',
}, () => {
  let ctx: TestContext;
  const servers: StartedProcess[] = [];

  before(async () => {
    ctx = await createTestApp();
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startProcess(
          'src/main.ts',
          { DATABASE_URL: ctx.databaseUrl!, JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'warn' },
          { args: ['serve'], readyPath: '/readyz' },
        ),
      );
    }
  });
  after(async () => {
    await Promise.all(servers.map((server) => stopProcess(server.child)));
    await ctx.close();
  });

  describe('402', () => {
    it('lets exactly one booking take the last one of the quota, whichever process answers', async () => {
      const biz = await setupBookable(ctx.app);
      const developerId = biz.tenant.developer.id;
      await setSubscription(ctx.app.db, ctx.app.changes, developerId, { status: 'active', planId: 'free' });
      await ctx.database.db
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
          const response = await fetch(`${servers[i % 2]!.url}/v1/bookings`, {
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
      assert.equal(await bookingsCounted(ctx.database.db, developerId), PLANS.free.monthlyBookings);
      const stored = await ctx.database.db
        .selectFrom('bookings')
        .select('id')
        .where('business_id', '=', biz.tenant.businessId)
        .execute();
      assert.equal(stored.length, 1);
    });
  });
});
