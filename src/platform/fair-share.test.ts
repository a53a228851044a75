import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  createTenant,
  createTestApp,
  ENGINE,
  eventually,
  feedCaughtUp,
  type Tenant,
  type TestContext,
} from '../../test/helpers.ts';
import { withTx } from './db.ts';

/**
 * One business's requests use at most `DB_CONCURRENCY_PER_BUSINESS` of the database at once; the
 * rest wait their turn within their deadline, and other businesses do not wait behind them.
 */

const DEADLINE_MS = 1500;
/** The change log's poll interval (`CHANGE_FEED_POLL_MS`'s default). */
const POLL_MS = 250;
/** More than the sockets' buffers hold, so an answer nobody reads is written but never finished. */
const LARGE_ANSWER_BYTES = 32 * 1024 * 1024;

/** Requests of `/test/:business_id/hold` keep their transaction open until `release()`. */
let held: Promise<void>;
let release: () => void;
let holding = 0;
const closeTheHold = () => {
  held = new Promise((resolve) => {
    release = resolve;
  });
};
closeTheHold();

/** Routes naming their business in the path, as the public reads do, with no credential to look up. */
function testRoutes(app: FastifyInstance): void {
  const hold = async () => {
    await withTx(app.db, async (tx) => {
      await sql`SELECT 1`.execute(tx);
      holding++;
      await held;
    });
    return { ok: true };
  };
  app.get('/test/:business_id/hold', hold);
  app.post('/test/:business_id/hold', hold);
  app.get('/test/:business_id/two-steps', async () => {
    await sql`SELECT 1`.execute(app.db);
    holding++;
    await held;
    await sql`SELECT 2`.execute(app.db);
    return { ok: true };
  });
  app.get('/test/:business_id/large', async () => {
    await sql`SELECT 1`.execute(app.db);
    holding++;
    return 'x'.repeat(LARGE_ANSWER_BYTES);
  });
  app.post('/test/:business_id/write', async () => {
    await sql`SELECT 1`.execute(app.db);
    return { ok: true };
  });
  app.get('/test/:business_id/read', async () => {
    await sql`SELECT 1`.execute(app.db);
    return { ok: true };
  });
  app.get('/test/:business_id/throw', async () =>
    withTx(app.db, async (tx) => {
      await sql`SELECT 1`.execute(tx);
      throw new Error('the work failed after its first statement');
    }),
  );
  app.get('/test/:business_id/bad-statement', async () => {
    await sql`SELECT no_such_column FROM businesses`.execute(app.db);
    return { ok: true };
  });
}

let ctx: TestContext;
let a: Tenant;
let b: Tenant;
before(async () => {
  ctx = await createTestApp({ dbConcurrencyPerBusiness: 1, dbRequestDeadlineMs: DEADLINE_MS }, testRoutes);
  a = await createTenant(ctx.app);
  b = await createTenant(ctx.app);
});
after(async () => {
  release();
  await ctx.close();
});

const call = (tenant: Tenant, what: string) =>
  ctx.app.inject({ method: 'GET', url: `/test/${tenant.businessId}/${what}` });
const usage = (tenant: Tenant) => ctx.app.businessSlots!.usage(tenant.businessId);
/** A request gives its slot back once answered (`onResponse`), a moment after its answer is read. */
const slotsBack = (tenant: Tenant) =>
  eventually(() => usage(tenant).holders === 0 && usage(tenant).waiting === 0, 'every slot came back');

/** A request of `tenant` holding its business's one slot until the returned function is called. */
async function hold(tenant: Tenant) {
  closeTheHold();
  const before = holding;
  const response = call(tenant, 'hold');
  await eventually(() => holding > before, 'the hold began');
  return async () => {
    release();
    assert.equal((await response).statusCode, 200);
  };
}

describe('requests of one business past its share', () => {
  it('wait their turn, and are answered 503 business_busy with Retry-After when their deadline comes first', async () => {
    const done = await hold(a);
    const waiting = call(a, 'read');
    await eventually(() => usage(a).waiting === 1, 'the second request waits');
    const refused = await waiting;
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().error.code, 'business_busy');
    assert.equal(refused.headers['retry-after'], '1');
    assert.deepEqual(usage(a), { holders: 1, waiting: 0 }, 'the refused request left the queue');

    const next = call(a, 'read');
    await eventually(() => usage(a).waiting === 1, 'the next request waits');
    await done();
    assert.equal((await next).statusCode, 200, 'the slot went to the one waiting');
    await slotsBack(a);
  });

  it('leave another business’s requests to go straight through', async () => {
    const finished: string[] = [];
    const done = await hold(a);
    const waitingA = call(a, 'read').then((response) => {
      finished.push('a');
      return response;
    });
    await eventually(() => usage(a).waiting === 1, 'the second request of the business waits');
    const ofB = call(b, 'read').then((response) => {
      finished.push('b');
      return response;
    });
    if (ENGINE === 'postgres') {
      assert.equal((await ofB).statusCode, 200);
      assert.deepEqual(finished, ['b'], 'answered while the first business still holds its share');
    } else {
      // PGlite's one connection serves one request at a time: the other business's request waits
      // for it, in front of the first business's queue, not behind it.
      await eventually(() => ctx.database.poolStats!().waiting === 1, 'the request waits for the connection');
    }
    await done();
    assert.equal((await waitingA).statusCode, 200);
    assert.equal((await ofB).statusCode, 200);
    assert.deepEqual(finished, ['b', 'a']);
  });

  it('count for the business of the credential on routes that name none', async () => {
    // The key verified once and cached: the held connection is then all the second request needs.
    await feedCaughtUp(ctx.app);
    const list = () => ctx.app.inject({ method: 'GET', url: '/v1/manage/customers', headers: a.headers });
    assert.equal((await list()).statusCode, 200);
    const done = await hold(a);
    const refused = await list();
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().error.code, 'business_busy');
    await done();
    assert.equal((await list()).statusCode, 200);
  });
});

describe('a request that began its work', () => {
  it('keeps its slot between its statements until it is answered, so it is never refused halfway', async () => {
    closeTheHold();
    const before = holding;
    const finished: string[] = [];
    const first = call(a, 'two-steps').then((response) => {
      finished.push('first');
      return response;
    });
    await eventually(() => holding > before, 'the first statement ran');
    // No connection is lent to the first request now, and still its slot is not free.
    const second = call(a, 'read').then((response) => {
      finished.push('second');
      return response;
    });
    await eventually(() => usage(a).waiting === 1, 'the second request waits');
    release();
    assert.equal((await first).statusCode, 200);
    assert.equal((await second).statusCode, 200);
    assert.deepEqual(finished, ['first', 'second']);
    await slotsBack(a);
  });
});

describe('a slot', () => {
  it('comes back when the work fails, a statement fails or the client goes away', async () => {
    for (const what of ['throw', 'bad-statement']) {
      const response = await call(a, what);
      assert.equal(response.statusCode, 500, what);
      await slotsBack(a);
    }

    const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    // A request with a body has been read whole before its work begins, so its client going away
    // is seen only on the response, as a load generator stopping does.
    for (const init of [
      { method: 'GET' },
      { method: 'POST', body: '{"party":2}', headers: { 'content-type': 'application/json' } },
    ]) {
      closeTheHold();
      const before = holding;
      const client = new AbortController();
      const gone = fetch(`${address}/test/${a.businessId}/hold`, { ...init, signal: client.signal }).catch(
        (error: Error) => error.name,
      );
      await eventually(() => holding > before, 'the hold began');
      client.abort();
      assert.equal(await gone, 'AbortError');
      release();
      await slotsBack(a);
      assert.equal((await call(a, 'read')).statusCode, 200, init.method);
    }

    // Answered, but its client left before reading the answer, as a load generator stopping
    // does: the answer is never finished, yet the connection is closed.
    const before = holding;
    const { port } = new URL(address);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /test/${a.businessId}/large HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    await eventually(() => holding > before, 'the answer was made');
    await sleep(100);
    socket.destroy();
    await slotsBack(a);
    assert.equal((await call(a, 'read')).statusCode, 200);
  });
});

describe('work a request only sets going', () => {
  it('serves the whole process outside the request’s share: the change log is read while that business is at its share', async () => {
    // A write's answer reads the change log at once when its last read is a moment past, and the
    // reads that follow on the poll's interval come from that one.
    await feedCaughtUp(ctx.app);
    await sleep(50);
    assert.equal(
      (await ctx.app.inject({ method: 'POST', url: `/test/${a.businessId}/write` })).statusCode,
      200,
    );
    // The business's one slot is taken by a request between its statements (on PGlite, which has
    // one connection, a held transaction would stop every reader), past the next poll's time.
    closeTheHold();
    const before = holding;
    const taking = call(a, 'two-steps');
    await eventually(() => holding > before, 'the slot was taken');
    try {
      await sleep(POLL_MS + 50);
      const late = sleep(DEADLINE_MS / 2, 'late');
      assert.notEqual(await Promise.race([feedCaughtUp(ctx.app), late]), 'late');
    } finally {
      release();
      assert.equal((await taking).statusCode, 200);
    }
  });
});
