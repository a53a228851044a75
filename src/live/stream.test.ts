import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { SseMessage } from '../../dashboard/stream.ts';
import { BOOKING_DAY, bookOk, guest, setupBookable } from '../../test/booking-fixtures.ts';
import {
  bearer,
  createTestApp,
  dashboardToken,
  eventually,
  itChecksAuth,
  type TestContext,
} from '../../test/helpers.ts';
import { type OpenedStream, readStream } from '../../test/live-stream.ts';

const dataOf = (message: SseMessage) => JSON.parse(message.data) as Record<string, unknown>;

let ctx: TestContext;
let url: string;
const open: OpenedStream[] = [];
const stream = async (headers: Record<string, string>) => {
  const opened = await readStream(url, headers);
  open.push(opened);
  return opened;
};

before(async () => {
  ctx = await createTestApp({
    streams: {
      perBusiness: 2,
      perSandboxBusiness: 2,
      perDeveloper: 100,
      perIp: 100,
      perProcess: 100,
      heartbeatMs: 50,
      recheckMs: 15_000,
    },
  });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());
beforeEach(async () => {
  for (const each of open.splice(0)) each.close();
  await eventually(() => ctx.app.liveEvents.open === 0, 'the previous tests’ streams to end');
  await ctx.reset();
});

describe('GET /v1/manage/stream', () => {
  itChecksAuth(
    () => ctx,
    async () => ({
      tenant: (await setupBookable(ctx.app)).tenant,
      route: { method: 'GET', url: '/v1/manage/stream', scope: 'read', staff: true },
    }),
  );

  it('opens with the stream headers and a ready event, then one event per public booking', async () => {
    const biz = await setupBookable(ctx.app);
    const live = await stream(biz.tenant.headers);
    assert.equal(live.response.status, 200);
    assert.equal(live.response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(live.response.headers.get('cache-control'), 'no-cache');
    assert.equal(live.response.headers.get('x-accel-buffering'), 'no');
    assert.ok(live.response.headers.get('api-version'));
    assert.ok(live.response.headers.get('ratelimit-limit'), 'the connection was counted by the rate limit');
    await live.next('ready');

    const booking = await bookOk(ctx.app, biz);
    const created = await live.next('booking.created');
    assert.ok(created.id, 'each event has an id');
    assert.deepEqual(Object.keys(dataOf(created)).sort(), [
      'at',
      'booking_date',
      'business_id',
      'id',
      'type',
    ]);
    assert.deepEqual(
      { ...dataOf(created), at: undefined },
      {
        type: 'booking.created',
        id: booking.id,
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        at: undefined,
      },
    );
    assert.doesNotMatch(created.data, /Grace|Hopper|@|\+49/, 'no guest data');
  });

  it('shows staff changes, the ones without a webhook event too, to a staff member’s stream', async () => {
    const biz = await setupBookable(ctx.app);
    const token = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
    const live = await stream(bearer(token));
    await live.next('ready');
    const booking = await bookOk(ctx.app, biz);
    const patch = async (path: string, payload: object) => {
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}${path}`,
        headers: biz.tenant.headers,
        payload,
      });
      assert.equal(response.statusCode, 200, response.body);
    };
    await patch('/notes', { staff_notes: 'window seat' });
    assert.equal(dataOf(await live.next('booking.updated')).id, booking.id);
    await patch('', { start_time: '13:00' });
    await live.next('booking.rescheduled');
    await patch('', { status: 'checked_in' });
    await live.next('booking.checked_in');
    await patch('', { status: 'completed' });
    await live.next('booking.completed');
  });

  it('shows waitlist entries joined and removed', async () => {
    const biz = await setupBookable(ctx.app);
    const live = await stream(biz.tenant.headers);
    await live.next('ready');
    const joined = await ctx.app.inject({
      method: 'POST',
      url: `/v1/waitlist/${biz.tenant.businessId}`,
      payload: { customer: guest(), preferred_date: BOOKING_DAY, capacity: 2 },
    });
    assert.equal(joined.statusCode, 201, joined.body);
    const id = joined.json().waitlist_id;
    const created = dataOf(await live.next('waitlist.created'));
    assert.equal(created.id, id);
    assert.equal(created.booking_date, BOOKING_DAY);
    const removed = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/waitlist/${id}`,
      headers: biz.tenant.headers,
    });
    assert.equal(removed.statusCode, 204, removed.body);
    assert.equal(dataOf(await live.next('waitlist.removed')).id, id);
  });

  it('shows blocks created and deleted', async () => {
    const biz = await setupBookable(ctx.app);
    const live = await stream(biz.tenant.headers);
    await live.next('ready');
    const blocks = `/v1/manage/resources/${biz.resources.T2}/blocks`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: blocks,
      headers: biz.tenant.headers,
      payload: { start_at: `${BOOKING_DAY}T10:00:00Z`, end_at: `${BOOKING_DAY}T11:00:00Z` },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    assert.equal(dataOf(await live.next('block.created')).id, id);
    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `${blocks}/${id}`,
      headers: biz.tenant.headers,
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal(dataOf(await live.next('block.deleted')).id, id);
  });

  it("never sends one business's changes to another's stream", async () => {
    const a = await setupBookable(ctx.app);
    const b = await setupBookable(ctx.app);
    const liveA = await stream(a.tenant.headers);
    const liveB = await stream(b.tenant.headers);
    await Promise.all([liveA.next('ready'), liveB.next('ready')]);
    await bookOk(ctx.app, a);
    await liveA.next('booking.created');
    // B's own change comes after A's: once it is there, A's would have been too.
    await bookOk(ctx.app, b);
    await liveB.next('booking.created');
    for (const message of liveB.messages.filter((m) => m.event !== 'ready')) {
      assert.equal(dataOf(message).business_id, b.tenant.businessId, message.data);
    }
  });

  it('sends a heartbeat comment on the configured interval', async () => {
    const biz = await setupBookable(ctx.app);
    const live = await stream(biz.tenant.headers);
    await live.next('ready');
    await eventually(() => live.pings >= 2, 'two heartbeats');
  });

  it('refuses a stream past the per-business cap with 429 and Retry-After', async () => {
    const biz = await setupBookable(ctx.app);
    for (let i = 0; i < 2; i++) await (await stream(biz.tenant.headers)).next('ready');
    const refused = await stream(biz.tenant.headers);
    assert.equal(refused.response.status, 429);
    assert.equal(
      ((await refused.response.json()) as { error: { code: string } }).error.code,
      'rate_limit_exceeded',
    );
    assert.ok(refused.response.headers.get('retry-after'));
    const other = await setupBookable(ctx.app);
    assert.equal(
      (await stream(other.tenant.headers)).response.status,
      200,
      'another business is not held back',
    );
  });

  it('ends the stream when the token expires, saying so', async () => {
    const biz = await setupBookable(ctx.app);
    const token = await dashboardToken(ctx.app, biz.tenant, 'business_owner');
    const realNow = ctx.app.clock.now;
    // The token's hour is over by the app's clock (its signature is still checked against the real one).
    ctx.app.clock.now = () => realNow() + 3_700_000;
    try {
      const live = await stream(bearer(token));
      assert.equal(live.response.status, 200);
      assert.deepEqual(dataOf(await live.next('closing')), { reason: 'token_expired' });
      await eventually(() => live.ended, 'the stream to end');
    } finally {
      ctx.app.clock.now = realNow;
    }
  });

  it('ends every stream when the change feed is lost, and opens none until it is back', async () => {
    const biz = await setupBookable(ctx.app);
    const live = await stream(biz.tenant.headers);
    await live.next('ready');
    ctx.app.liveEvents.down();
    try {
      assert.deepEqual(dataOf(await live.next('closing')), { reason: 'feed_lost' });
      await eventually(() => live.ended, 'the stream to end');
      assert.equal((await stream(biz.tenant.headers)).response.status, 503);
    } finally {
      ctx.app.liveEvents.up();
    }
  });
});
