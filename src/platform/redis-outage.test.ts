// test lane: system
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bearer, createKey, createTenant, createTestApp, type TestContext } from '../../test/helpers.ts';
import { noOwnRedis, type OwnRedis, startOwnRedis } from '../../test/outage-servers.ts';

/**
 * The rate limits' Redis gone (killed, or hung with its connection open): requests go on at once,
 * let through without counting, and counting resumes when Redis is back. The client used to wait
 * about 8 s for Redis on every request.
 */

/** For all 11 requests: what one alone waited before, far above what they cost on a busy machine. */
const NO_WAIT_MS = 8000;

describe('rate limits when their Redis is gone', { skip: noOwnRedis, timeout: 120_000 }, () => {
  let redis: OwnRedis;
  let ctx: TestContext;

  before(async () => {
    redis = await startOwnRedis();
    ctx = await createTestApp({
      redisUrl: redis.url,
      redisKeyPrefix: `slotwise_outage_${randomBytes(4).toString('hex')}:`,
    });
  });
  after(async () => {
    await ctx?.close();
    await redis?.close();
  });

  /** A key limited to 3 calls a minute, and a call of it. */
  async function limitedKey() {
    const tenant = await createTenant(ctx.app);
    const key = await createKey(ctx.app, tenant, ['read'], { rate_limit_per_minute: 3 });
    return () => ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers: bearer(key) });
  }

  /** 11 calls of a limited key: how they were answered, and how long they took together. */
  async function elevenCalls(call: Awaited<ReturnType<typeof limitedKey>>) {
    const started = Date.now();
    const statuses: number[] = [];
    for (let n = 0; n < 11; n++) {
      const response = await call();
      statuses.push(response.statusCode);
      assert.equal(response.headers['ratelimit-remaining'], undefined, 'nothing was counted');
    }
    return { statuses, tookMs: Date.now() - started };
  }

  /**
   * Calls a key limited to 3 until it is refused: Redis counts. On a busy machine a slow answer
   * (past the 250 ms command timeout) trips the breaker, letting calls through uncounted until the
   * probe closes it, so the refusal may come later than the fourth call; `rate-limit.test.ts`
   * holds the exact limit.
   */
  async function assertCounting(): Promise<void> {
    const call = await limitedKey();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      const response = await call();
      statuses.push(response.statusCode);
      if (response.statusCode === 429) return;
      if (response.headers['ratelimit-remaining'] === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.fail(`a key limited to 3 is not refused within 10 seconds: ${statuses}`);
  }

  it('counts in Redis while it is there', () => assertCounting());

  it('lets requests through at once while Redis is killed, and counts again once it is back', async () => {
    const call = await limitedKey();
    await redis.kill();
    const { statuses, tookMs } = await elevenCalls(call);
    assert.deepEqual(statuses, Array(11).fill(200), 'limits fail open');
    assert.ok(tookMs < NO_WAIT_MS, `11 requests took ${tookMs} ms: they waited for Redis`);
    await redis.start();
    await assertCounting();
  });

  it('lets requests through while Redis hangs with its connection open, and counts again once it answers', async () => {
    const call = await limitedKey();
    redis.pause();
    try {
      // The first call waits for one command timeout at most, then the breaker answers at once.
      const { statuses, tookMs } = await elevenCalls(call);
      assert.deepEqual(statuses, Array(11).fill(200), 'limits fail open');
      assert.ok(tookMs < NO_WAIT_MS, `11 requests took ${tookMs} ms: they waited for Redis`);
    } finally {
      redis.resume();
    }
    await assertCounting();
  });
});
