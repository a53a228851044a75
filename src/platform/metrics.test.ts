import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BOOKING_DAY, bookOk, guest, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import { freePort } from '../../test/free-port.ts';
import { bearer, createKey, createTestApp, type TestContext, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp({ webhookAllowPrivateUrls: true });

const scrape = async (headers: Record<string, string> = {}) => {
  const response = await ctx.app.inject({ method: 'GET', url: '/metrics', headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.body;
};

/** The value of one sample: `name{labels} value`; labels given must all match, in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  describe('200', () => {
    it('serves the Prometheus text format to this machine when no token is configured', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.match(response.body, /# TYPE slotwise_bookings_created_total counter/);
      assert.match(response.body, /# TYPE process_resident_memory_bytes gauge/);
    });

    it('labels request durations with the route as routed, never the URL with its ids', async () => {
      const biz = await setupBookable(ctx.app);
      const resourceId = biz.resources.T2!;
      const changed = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/resources/${resourceId}`,
        headers: biz.tenant.headers,
        payload: { name: 'T2 by the window' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      await ctx.app.inject({ method: 'GET', url: `/v1/no-such-thing/${resourceId}` });
      const text = await scrape();
      const labels = { method: 'PATCH', route: '/v1/manage/resources/:resource_id', status_code: '200' };
      assert.equal(sample(text, 'http_request_duration_seconds_count', labels), 1);
      assert.equal(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched' }), 1);
      assert.ok(!text.includes(resourceId), 'no id in any label');
    });

    it('counts bookings created and refused by error code, replays of an idempotent request once', async () => {
      const biz = await setupBookable(ctx.app);
      const headers = { ...biz.tenant.headers, 'idempotency-key': 'metrics-booking-1' };
      const body = { start_time: '10:00', ...guest() };
      for (let i = 0; i < 2; i++) {
        const created = await postBooking(ctx.app, biz, body, headers);
        assert.equal(created.statusCode, 201, created.body);
      }
      const closed = await postBooking(ctx.app, biz, { start_time: '07:00' });
      assert.equal(closed.statusCode, 422);
      const invalid = await postBooking(ctx.app, biz, { capacity: 0 });
      assert.equal(invalid.statusCode, 422);
      const text = await scrape();
      assert.equal(sample(text, 'slotwise_bookings_created_total', { route: '/v1/bookings' }), 1);
      assert.equal(
        sample(text, 'slotwise_bookings_refused_total', {
          route: '/v1/bookings',
          reason: closed.json().error.code,
        }),
        1,
      );
      assert.equal(
        sample(text, 'slotwise_bookings_refused_total', {
          route: '/v1/bookings',
          reason: 'validation_error',
        }),
        1,
      );
    });

    it('counts availability cache hits and misses', async () => {
      const biz = await setupBookable(ctx.app);
      const before = await scrape();
      const url = `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=2`;
      for (let i = 0; i < 3; i++) {
        const response = await ctx.app.inject({ method: 'GET', url, headers: biz.tenant.headers });
        assert.equal(response.statusCode, 200, response.body);
      }
      const text = await scrape();
      const grew = (name: string, cache: string) =>
        (sample(text, name, { cache }) ?? 0) - (sample(before, name, { cache }) ?? 0);
      assert.equal(grew('slotwise_availability_cache_misses_total', 'days'), 1);
      assert.equal(grew('slotwise_availability_cache_hits_total', 'days'), 2);
    });

    it('reports the change feed as up with its lag, and the database pool', async () => {
      const text = await scrape();
      assert.equal(sample(text, 'slotwise_change_feed_up'), 1);
      assert.equal(sample(text, 'slotwise_change_feed_reconnects_total'), 0);
      const lag = sample(text, 'slotwise_change_feed_lag_seconds');
      assert.ok(lag !== undefined && lag >= 0 && lag < 2, `lag ${lag}`);
      assert.ok((sample(text, 'slotwise_db_pool_connections', { state: 'idle' }) ?? -1) >= 0);
      assert.ok((sample(text, 'slotwise_db_pool_connections', { state: 'in_use' }) ?? -1) >= 0);
      // The scrape's own queries may be waiting for a new connection as it is read.
      assert.ok((sample(text, 'slotwise_db_pool_waiting') ?? -1) >= 0);
    });

    it('counts feed reconnects', async () => {
      ctx.app.changes.disconnected();
      ctx.app.changes.connected();
      const text = await scrape();
      assert.equal(sample(text, 'slotwise_change_feed_reconnects_total'), 1);
    });

    it('counts rate-limit refusals by route', async () => {
      const biz = await setupBookable(ctx.app);
      const key = await createKey(ctx.app, biz.tenant, ['read'], { rate_limit_per_minute: 1 });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await ctx.app.inject({
          method: 'GET',
          url: '/v1/manage/resources',
          headers: bearer(key),
        });
        statuses.push(response.statusCode);
      }
      assert.deepEqual(statuses, [200, 429, 429]);
      const text = await scrape();
      assert.equal(sample(text, 'slotwise_rate_limit_refusals_total', { route: '/v1/manage/resources' }), 2);
    });

    it('reports the webhook outbox depth and failed delivery attempts', async () => {
      const biz = await setupBookable(ctx.app);
      const endpoint = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/webhooks',
        headers: biz.tenant.headers,
        payload: { url: `http://127.0.0.1:${await freePort()}/hook`, events: ['booking.created'] },
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      await bookOk(ctx.app, biz);
      assert.equal(sample(await scrape(), 'slotwise_webhook_outbox_depth'), 1);
      await ctx.app.webhooks.dispatcher.run();
      const text = await scrape();
      assert.equal(sample(text, 'slotwise_webhook_delivery_failures_total', { outcome: 'retrying' }), 1);
      assert.equal(sample(text, 'slotwise_webhook_outbox_depth'), 1, 'still due for a retry');
    });
  });

  describe('404', () => {
    it('is not served without a token to a client that is not on this machine or came through a proxy', async () => {
      for (const request of [
        { remoteAddress: '203.0.113.9' },
        { headers: { 'x-forwarded-for': '203.0.113.9' } },
        { headers: { forwarded: 'for=203.0.113.9' } },
      ]) {
        const response = await ctx.app.inject({ method: 'GET', url: '/metrics', ...request });
        assert.equal(response.statusCode, 404, JSON.stringify(request));
        assert.equal(response.json().error.code, 'not_found');
      }
    });

    it('is not served without a token to a loopback client whose request carries any forwarding header', async () => {
      for (const header of [
        'forwarded',
        'x-forwarded-for',
        'x-forwarded-host',
        'x-forwarded-proto',
        'x-forwarded-port',
        'x-forwarded-server',
        'x-real-ip',
        'x-client-ip',
        'cf-connecting-ip',
        'true-client-ip',
        'X-Real-IP',
        'x-forwarded',
        'x-original-forwarded-for',
        'client-ip',
        'x-cluster-client-ip',
        'fastly-client-ip',
      ]) {
        for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
          const response = await ctx.app.inject({
            method: 'GET',
            url: '/metrics',
            remoteAddress,
            headers: { [header]: header === 'forwarded' ? 'for=203.0.113.9' : '203.0.113.9' },
          });
          assert.equal(response.statusCode, 404, `${header} from ${remoteAddress}`);
          assert.equal(response.json().error.code, 'not_found');
        }
      }
    });

    it('is not served to a loopback client that sends a forwarding header empty', async () => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { 'x-real-ip': '' },
      });
      assert.equal(response.statusCode, 404);
    });
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let guarded: TestContext;
  before(async () => {
    guarded = await createTestApp({ metricsToken: 'scrape-token-0123456789' });
  });
  after(() => guarded.close());

  describe('200', () => {
    it('serves whoever sends the token, from anywhere', async () => {
      const response = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: bearer('scrape-token-0123456789'),
      });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /slotwise_change_feed_up 1/);
    });
  });

  describe('401', () => {
    it('refuses a missing or wrong token, from this machine too', async () => {
      for (const headers of [{}, bearer('scrape-token-012345678'), { authorization: 'Basic abc' }]) {
        const response = await guarded.app.inject({ method: 'GET', url: '/metrics', headers });
        assert.equal(response.statusCode, 401, JSON.stringify(headers));
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });
});

describe('GET /metrics on METRICS_PORT', () => {
  let separate: TestContext;
  before(async () => {
    separate = await createTestApp({ metricsPort: 0, metricsHost: '127.0.0.1' });
    await separate.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => separate.close());

  const urlOf = (server: { address(): unknown }) => {
    const address = server.address() as { port: number };
    return `http://127.0.0.1:${address.port}/metrics`;
  };

  describe('200', () => {
    it('serves the metrics on a listener of its own, started and stopped with the app', async () => {
      assert.ok(separate.app.metricsServer);
      const response = await fetch(urlOf(separate.app.metricsServer.server));
      assert.equal(response.status, 200);
      assert.match(await response.text(), /slotwise_change_feed_up 1/);
    });
  });

  describe('404', () => {
    it('does not serve them on the public port', async () => {
      const response = await fetch(urlOf(separate.app.server));
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'not_found');
    });
  });
});
