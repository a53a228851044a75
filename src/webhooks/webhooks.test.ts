import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import {
  assertNamesFields,
  bearer,
  createTenant,
  createTestApp,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  type TestContext,
} from '../../test/helpers.ts';
import { WEBHOOK_EVENTS } from '../engine/webhook-events.ts';
import { type Resolver, systemResolver } from './target.adapter.ts';

/** Names the tests resolve without asking DNS; any other name goes to the system's resolver. */
const NAMES: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'inside.example.com': ['93.184.215.14', '10.1.2.3'],
  'v6inside.example.com': ['fd12:3456::1'],
  'not-yet.example.com': [],
};
const resolver: Resolver = async (hostname) =>
  hostname in NAMES
    ? NAMES[hostname]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    : systemResolver(hostname);

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp({ webhookAllowPrivateUrls: false });
  ctx.app.webhooks.targets.resolve = resolver;
});
after(() => ctx.close());
beforeEach(() => ctx.reset());
afterEach(() => {
  ctx.app.config.webhookAllowPrivateUrls = false;
});

const URL_OK = 'https://hooks.example.com/slotwise';

const register = (tenant: Tenant, payload: Record<string, unknown>, headers = tenant.headers) =>
  ctx.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers, payload });

async function registered(tenant: Tenant, payload: Record<string, unknown> = {}) {
  const response = await register(tenant, { url: URL_OK, events: ['*'], ...payload });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const list = (tenant: Tenant, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/webhooks${query}`, headers: tenant.headers });

const post = (tenant: Tenant, url: string) =>
  ctx.app.inject({ method: 'POST', url, headers: tenant.headers });

const auditActions = async (tenant: Tenant) =>
  (await ctx.app.inject({ method: 'GET', url: '/v1/manage/audit-logs', headers: tenant.headers }))
    .json()
    .items.map((entry: { action: string }) => entry.action);

const fieldsOf = (body: { error: { fields: { field: string }[] } }) => body.error.fields.map((f) => f.field);

describe('POST /v1/manage/webhooks', () => {
  describe('201', () => {
    it('registers an endpoint and shows its secret this once, sealed at rest and kept out of the audit log', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await register(tenant, {
        url: URL_OK,
        events: ['booking.created', 'booking.cancelled'],
        description: 'CRM sync',
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'created_at',
        'description',
        'events',
        'id',
        'is_active',
        'secret',
        'status',
        'url',
      ]);
      assert.equal(body.url, URL_OK);
      assert.deepEqual(body.events, ['booking.created', 'booking.cancelled']);
      assert.equal(body.description, 'CRM sync');
      assert.equal(body.is_active, true);
      assert.equal(body.status, 'active');
      assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 32);

      const stored = await ctx.app.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.ok(!stored.secret.includes(body.secret.slice(6)), 'the secret is not stored as it is');
      const audit = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/audit-logs',
        headers: tenant.headers,
      });
      assert.equal(audit.json().items[0].action, 'webhook.created');
      assert.ok(!audit.body.includes(body.secret.slice(6)));
    });

    it('accepts every event name, and "*"', async () => {
      const tenant = await createTenant(ctx.app);
      assert.deepEqual((await registered(tenant, { events: [...WEBHOOK_EVENTS] })).events, [
        ...WEBHOOK_EVENTS,
      ]);
      assert.deepEqual((await registered(tenant, { events: ['*'] })).events, ['*']);
    });

    it("answers a dashboard owner and a developer's token naming the business", async () => {
      const tenant = await createTenant(ctx.app);
      const owner = await dashboardToken(ctx.app, tenant, 'business_owner');
      const byOwner = await register(tenant, { url: URL_OK, events: ['*'] }, bearer(owner));
      assert.equal(byOwner.statusCode, 201, byOwner.body);
      const byDeveloper = await register(
        tenant,
        { url: URL_OK, events: ['*'] },
        { ...bearer(tenant.developer.token), 'x-business-id': tenant.businessId },
      );
      assert.equal(byDeveloper.statusCode, 201, byDeveloper.body);
    });

    it('replays an idempotent registration with the same secret, which is not stored in plain text', async () => {
      const tenant = await createTenant(ctx.app);
      const headers = { ...tenant.headers, 'idempotency-key': 'register-1' };
      const payload = { url: URL_OK, events: ['*'] };
      const first = await register(tenant, payload, headers);
      const again = await register(tenant, payload, headers);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().secret, first.json().secret);
      const rows = await ctx.app.db.selectFrom('idempotency_keys').select('response_body').execute();
      assert.ok(rows.every((row) => !row.response_body?.includes(first.json().secret.slice(6))));
    });

    it('takes private and plain-http URLs when WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
      ctx.app.config.webhookAllowPrivateUrls = true;
      const tenant = await createTenant(ctx.app);
      for (const url of [
        'http://127.0.0.1:8080/hooks',
        'https://10.0.0.7/hooks',
        'https://[::1]/hooks',
        'https://localhost/hooks',
        'https://inside.example.com/hooks',
      ]) {
        const response = await register(tenant, { url, events: ['*'] });
        assert.equal(response.statusCode, 201, `${url}: ${response.body}`);
      }
      for (const url of ['http://127.0.0.1:22/hooks', 'http://user:secret@127.0.0.1:8080/hooks']) {
        const response = await register(tenant, { url, events: ['*'] });
        assert.equal(response.statusCode, 422, `${url}: ${response.body}`);
        assert.deepEqual(fieldsOf(response.json()), ['url'], url);
      }
    });

    it('takes port 443 and any port from 1024 to 65535', async () => {
      const tenant = await createTenant(ctx.app);
      for (const url of [
        'https://hooks.example.com:443/slotwise',
        'https://hooks.example.com:1024/slotwise',
        'https://hooks.example.com:8443/slotwise',
        'https://hooks.example.com:65535/slotwise',
      ]) {
        const response = await register(tenant, { url, events: ['*'] });
        assert.equal(response.statusCode, 201, `${url}: ${response.body}`);
      }
    });

    it('takes a name that does not resolve yet: every attempt checks it again', async () => {
      const tenant = await createTenant(ctx.app);
      const body = await registered(tenant, { url: 'https://not-yet.example.com/hooks' });
      assert.equal(body.url, 'https://not-yet.example.com/hooks');
    });
  });

  describe('422', () => {
    it('refuses http and every address that is not public, naming url', async () => {
      const tenant = await createTenant(ctx.app);
      for (const url of [
        'http://hooks.example.com/slotwise',
        'ftp://hooks.example.com/slotwise',
        'not a url',
        'https://127.0.0.1/hooks',
        'https://127.1/hooks',
        'https://10.0.0.7/hooks',
        'https://192.168.1.20/hooks',
        'https://172.16.5.4/hooks',
        'https://169.254.169.254/latest/meta-data',
        'https://100.64.0.1/hooks',
        'https://0.0.0.0/hooks',
        'https://[::1]/hooks',
        'https://[fc00::1]/hooks',
        'https://[fd12:3456::1]/hooks',
        'https://[fe80::1]/hooks',
        'https://[::ffff:10.0.0.1]/hooks',
        'https://[::127.0.0.1]/hooks',
        'https://[::7f00:1]/hooks',
        'https://[::ffff:0:7f00:1]/hooks',
        'https://[64:ff9b::a9fe:a9fe]/hooks',
        'https://[2002:7f00:1::1]/hooks',
        'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks',
        'https://2130706433/hooks',
        'https://0x7f.1/hooks',
        'https://hooks.example.com:22/slotwise',
        'https://hooks.example.com:80/slotwise',
        'https://hooks.example.com:1023/slotwise',
        'https://hooks.example.com:0/slotwise',
        'https://user@hooks.example.com/slotwise',
        'https://user:secret@hooks.example.com/slotwise',
        'https://localhost/hooks',
        'https://inside.example.com/hooks',
        'https://v6inside.example.com/hooks',
      ]) {
        const response = await register(tenant, { url, events: ['*'] });
        assert.equal(response.statusCode, 422, `${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'validation_error');
        assert.deepEqual(fieldsOf(response.json()), ['url'], url);
      }
      const loopback = (await register(tenant, { url: 'https://localhost/hooks', events: ['*'] })).json();
      assert.match(
        loopback.error.fields[0].message,
        /^localhost resolves to an address that is not public \(a server started with WEBHOOK_ALLOW_PRIVATE_URLS=true/,
      );
      assert.equal((await list(tenant)).json().items.length, 0, 'nothing was registered');
    });

    it('names an unknown event', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await register(tenant, {
        url: URL_OK,
        events: ['booking.created', 'booking.exploded'],
      });
      assert.equal(response.statusCode, 422);
      const field = response.json().error.fields[0];
      assert.equal(field.field, 'events[1]');
      assert.match(field.message, /"booking\.exploded" is not an event/);
    });

    it('refuses no events, repeated events, unknown fields and a blank description', async () => {
      const tenant = await createTenant(ctx.app);
      await assertNamesFields(
        [
          [{ url: URL_OK, events: [] }, 'events'],
          [{ url: URL_OK, events: ['*', '*'] }, 'events'],
          [{ url: URL_OK }, 'events'],
          [{ events: ['*'] }, 'url'],
          [{ url: URL_OK, events: ['*'], secret: 'mine' }, 'secret'],
          [{ url: URL_OK, events: ['*'], description: '  ' }, 'description'],
        ],
        (payload) => register(tenant, payload),
      );
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: '/v1/manage/webhooks',
        payload: { url: URL_OK, events: ['*'] },
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('GET /v1/manage/webhooks', () => {
  describe('200', () => {
    it("lists the business's endpoints oldest first, never a secret", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const first = await registered(tenant, { events: ['booking.created'] });
      const second = await registered(tenant, { description: 'second' });
      const foreign = await registered(other);
      const response = await list(tenant);
      assert.equal(response.statusCode, 200);
      const { items, has_more } = response.json();
      assert.deepEqual(
        items.map((e: { id: string }) => e.id),
        [first.id, second.id],
      );
      assert.equal(has_more, false);
      assert.deepEqual(Object.keys(items[0]).sort(), [
        'created_at',
        'description',
        'events',
        'id',
        'is_active',
        'status',
        'url',
      ]);
      for (const secret of [first.secret, second.secret, foreign.secret]) {
        assert.ok(!response.body.includes(secret.slice(6)));
      }
    });

    it('pages with limit and cursor', async () => {
      const tenant = await createTenant(ctx.app);
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await registered(tenant)).id);
      const page1 = (await list(tenant, '?limit=2')).json();
      assert.equal(page1.has_more, true);
      const page2 = (await list(tenant, `?limit=2&cursor=${page1.next_cursor}`)).json();
      assert.deepEqual(
        [...page1.items, ...page2.items].map((e: { id: string }) => e.id),
        ids,
      );
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/webhooks', scope: 'admin', staff: false }),
    });
  });
});

describe('DELETE /v1/manage/webhooks/:endpoint_id', () => {
  describe('204', () => {
    it('removes the endpoint and the deliveries it was still due, with an audit row', async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(tenant);
      assert.equal((await post(tenant, `/v1/manage/webhooks/${endpoint.id}/test`)).statusCode, 202);
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/webhooks/${endpoint.id}`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 204);
      assert.equal((await list(tenant)).json().items.length, 0);
      const left = await ctx.app.db.selectFrom('webhook_deliveries').select('id').execute();
      assert.equal(left.length, 0);
      assert.equal((await auditActions(tenant))[0], 'webhook.deleted');
    });
  });

  describe('404', () => {
    it('answers not_found to an endpoint already removed and to a malformed id', async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(tenant);
      const remove = (id: string) =>
        ctx.app.inject({ method: 'DELETE', url: `/v1/manage/webhooks/${id}`, headers: tenant.headers });
      assert.equal((await remove(endpoint.id)).statusCode, 204);
      for (const id of [endpoint.id, 'not-an-id']) {
        const response = await remove(id);
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().error.message, 'webhook endpoint not found');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: registered,
      route: (endpoint) => ({
        method: 'DELETE',
        url: `/v1/manage/webhooks/${endpoint.id}`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('POST /v1/manage/webhooks/:endpoint_id/rotate-secret', () => {
  describe('200', () => {
    it('answers a new secret once; the previous one stays valid for 24 hours; audited', async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(tenant);
      const now = Date.now();
      ctx.app.clock.now = () => now;
      try {
        const response = await post(tenant, `/v1/manage/webhooks/${endpoint.id}/rotate-secret`);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['cache-control'], 'no-store');
        const body = response.json();
        assert.equal(body.id, endpoint.id);
        assert.match(body.secret, /^whsec_/);
        assert.notEqual(body.secret, endpoint.secret);
        assert.equal(body.previous_secret_expires_at, new Date(now + 24 * 3_600_000).toISOString());
        assert.ok(!(await list(tenant)).body.includes(body.secret.slice(6)));
        assert.equal((await auditActions(tenant))[0], 'webhook.secret_rotated');
      } finally {
        ctx.app.clock.now = Date.now;
      }
    });
  });

  describe('404', () => {
    it("answers not_found to another business's endpoint", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const endpoint = await registered(other);
      const response = await post(tenant, `/v1/manage/webhooks/${endpoint.id}/rotate-secret`);
      assert.equal(response.statusCode, 404);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: registered,
      route: (endpoint) => ({
        method: 'POST',
        url: `/v1/manage/webhooks/${endpoint.id}/rotate-secret`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('POST /v1/manage/webhooks/:endpoint_id/test', () => {
  describe('202', () => {
    it('queues a webhook.test event for this endpoint alone', async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(tenant);
      const bystander = await registered(tenant);
      const response = await post(tenant, `/v1/manage/webhooks/${endpoint.id}/test`);
      assert.equal(response.statusCode, 202, response.body);
      const delivery = response.json();
      assert.equal(delivery.event_type, 'webhook.test');
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, 0);
      assert.ok(delivery.next_attempt_at);
      const logs = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/webhooks/${bystander.id}/deliveries`,
        headers: tenant.headers,
      });
      assert.equal(logs.json().items.length, 0);
    });
  });

  describe('404', () => {
    it("answers not_found to another business's endpoint", async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(await createTenant(ctx.app));
      assert.equal((await post(tenant, `/v1/manage/webhooks/${endpoint.id}/test`)).statusCode, 404);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: registered,
      route: (endpoint) => ({
        method: 'POST',
        url: `/v1/manage/webhooks/${endpoint.id}/test`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('GET /v1/manage/webhooks/:endpoint_id/deliveries', () => {
  describe('200', () => {
    it('lists the endpoint’s deliveries newest first, by status, in pages', async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(tenant);
      const ids = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await post(tenant, `/v1/manage/webhooks/${endpoint.id}/test`)).json().id);
      }
      const url = `/v1/manage/webhooks/${endpoint.id}/deliveries`;
      const page1 = (
        await ctx.app.inject({ method: 'GET', url: `${url}?limit=2`, headers: tenant.headers })
      ).json();
      assert.equal(page1.has_more, true);
      assert.deepEqual(Object.keys(page1.items[0]).sort(), [
        'attempts',
        'created_at',
        'delivered_at',
        'event_id',
        'event_type',
        'id',
        'last_error',
        'last_response_code',
        'next_attempt_at',
        'status',
      ]);
      const page2 = (
        await ctx.app.inject({
          method: 'GET',
          url: `${url}?limit=2&cursor=${page1.next_cursor}`,
          headers: tenant.headers,
        })
      ).json();
      assert.deepEqual(
        [...page1.items, ...page2.items].map((d: { id: string }) => d.id),
        ids.reverse(),
      );
      const delivered = await ctx.app.inject({
        method: 'GET',
        url: `${url}?status=delivered`,
        headers: tenant.headers,
      });
      assert.equal(delivered.json().items.length, 0);
    });
  });

  describe('404', () => {
    it("answers not_found to another business's endpoint", async () => {
      const tenant = await createTenant(ctx.app);
      const endpoint = await registered(await createTenant(ctx.app));
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/webhooks/${endpoint.id}/deliveries`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 404);
    });
  });

  describe('422', () => {
    it('refuses an unknown status and a cursor of another endpoint', async () => {
      const tenant = await createTenant(ctx.app);
      const one = await registered(tenant);
      const two = await registered(tenant);
      for (let i = 0; i < 2; i++) await post(tenant, `/v1/manage/webhooks/${one.id}/test`);
      const url = (id: string) => `/v1/manage/webhooks/${id}/deliveries`;
      const page = (
        await ctx.app.inject({ method: 'GET', url: `${url(one.id)}?limit=1`, headers: tenant.headers })
      ).json();
      for (const query of [`${url(one.id)}?status=lost`, `${url(two.id)}?cursor=${page.next_cursor}`]) {
        const response = await ctx.app.inject({ method: 'GET', url: query, headers: tenant.headers });
        assert.equal(response.statusCode, 422, query);
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: registered,
      route: (endpoint) => ({
        method: 'GET',
        url: `/v1/manage/webhooks/${endpoint.id}/deliveries`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('POST /v1/manage/webhooks/:endpoint_id/deliveries/:delivery_id/retry', () => {
  async function failedDelivery(tenant: Tenant) {
    const endpoint = await registered(tenant);
    const delivery = (await post(tenant, `/v1/manage/webhooks/${endpoint.id}/test`)).json();
    await ctx.app.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 8, next_attempt_at: null, last_response_code: 500 })
      .where('id', '=', delivery.id)
      .execute();
    return { endpoint, delivery, url: `/v1/manage/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry` };
  }

  describe('202', () => {
    it('makes a failed delivery due now with a fresh schedule', async () => {
      const tenant = await createTenant(ctx.app);
      const { delivery, url } = await failedDelivery(tenant);
      const now = Date.now();
      ctx.app.clock.now = () => now;
      try {
        const response = await post(tenant, url);
        assert.equal(response.statusCode, 202, response.body);
        const body = response.json();
        assert.equal(body.id, delivery.id);
        assert.equal(body.status, 'pending');
        assert.equal(body.attempts, 0);
        assert.equal(body.next_attempt_at, new Date(now).toISOString());
        assert.equal(body.last_response_code, 500, 'the last outcome stays until the next attempt');
      } finally {
        ctx.app.clock.now = Date.now;
      }
    });
  });

  describe('404', () => {
    it('answers not_found to a delivery of another endpoint', async () => {
      const tenant = await createTenant(ctx.app);
      const { delivery } = await failedDelivery(tenant);
      const other = await registered(tenant);
      const response = await post(tenant, `/v1/manage/webhooks/${other.id}/deliveries/${delivery.id}/retry`);
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.message, 'webhook delivery not found');
    });
  });

  describe('409', () => {
    it('refuses a delivery being sent at this moment', async () => {
      const tenant = await createTenant(ctx.app);
      const { delivery, url } = await failedDelivery(tenant);
      await ctx.app.db
        .updateTable('webhook_deliveries')
        .set({ status: 'retrying', locked_until: new Date(Date.now() + 60_000) })
        .where('id', '=', delivery.id)
        .execute();
      const response = await post(tenant, url);
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: failedDelivery,
      route: ({ url }) => ({ method: 'POST', url, scope: 'admin', staff: false }),
    });
  });
});
