import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import { createTestApp, eventually, type TestContext } from '../../test/helpers.ts';
import { AvailabilityService } from './availability.service.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
  // Caching needs the change feed to be listening.
  await eventually(() => ctx.app.changes.businessVersion('any') !== null, 'the change feed to listen');
});
after(() => ctx.close());

describe('AvailabilityService caches', () => {
  it('keep nothing about a business or a service that does not exist', async () => {
    const service = new AvailabilityService(ctx.app.db, ctx.app.changes, ctx.app.clock);
    const biz = await setupBookable(ctx.app);
    const questions = [
      { businessId: '00000000-0000-4000-8000-000000000000' },
      { businessId: biz.tenant.businessId, serviceId: '00000000-0000-4000-8000-000000000001' },
    ];
    for (const question of questions) {
      await assert.rejects(
        service.day({
          ...question,
          date: daysFromNow(3),
          partySize: 2,
          perResource: false,
          channel: 'online',
        }),
        (error: { code?: string }) => error.code === 'not_found' || error.code === 'validation_error',
      );
    }
    assert.deepEqual(service.cacheStats(), { days: 0, daysBytes: 0, rules: 0, rulesBytes: 0 });
  });

  it('stay within their size limit however many distinct days are asked', async () => {
    const limit = 10_000;
    const service = new AvailabilityService(ctx.app.db, ctx.app.changes, ctx.app.clock, {
      daysBytes: limit,
      rulesBytes: limit,
    });
    const biz = await setupBookable(ctx.app);
    for (let day = 1; day <= 20; day++) {
      const answer = await service.day({
        businessId: biz.tenant.businessId,
        date: daysFromNow(day),
        partySize: 2,
        perResource: false,
        channel: 'online',
      });
      assert.ok(answer.slots.length > 0);
    }
    const sizes = service.cacheStats();
    assert.ok(sizes.days > 0, 'something is cached');
    assert.ok(sizes.daysBytes <= limit, `${sizes.daysBytes} bytes of days kept, limit ${limit}`);
    assert.ok(sizes.days < 20, 'older days were evicted');
  });
});
