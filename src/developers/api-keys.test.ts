import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bearer,
  createKeyWithId,
  createTenant,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const createKey = (tenant: Tenant, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/v1/manage/api-keys', headers: tenant.headers, payload });
const listKeys = (tenant: Tenant, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/api-keys${query}`, headers: tenant.headers });
const revokeKey = (tenant: Tenant, id: string) =>
  ctx.app.inject({ method: 'DELETE', url: `/v1/manage/api-keys/${id}`, headers: tenant.headers });
const businessWith = (key: string) =>
  ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers: bearer(key) });

describe('POST /v1/manage/api-keys', () => {
  describe('201', () => {
    it('creates a key with the given scopes, environment and rate limit; the full key once', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await createKey(tenant, {
        name: 'load test',
        scopes: ['write', 'read'],
        environment: 'test',
        rate_limit_per_minute: 100000,
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.match(body.key, /^svc_test_[A-Za-z0-9]{40}$/);
      assert.equal(body.prefix, body.key.slice(0, 12));
      assert.equal(body.name, 'load test');
      assert.deepEqual(body.scopes, ['read', 'write']);
      assert.equal(body.environment, 'test');
      assert.equal(body.rate_limit_per_minute, 100000);
      assert.equal(body.is_active, true);
      assert.equal(body.last_used_at, null);
      assert.ok(!Number.isNaN(Date.parse(body.created_at)));
      assert.equal((await businessWith(body.key)).statusCode, 200);
    });

    it('defaults to read and write, a live key for a live business and no rate limit', async () => {
      const tenant = await createTenant(ctx.app);
      const body = (await createKey(tenant, { name: 'default' })).json();
      assert.deepEqual(body.scopes, ['read', 'write']);
      assert.equal(body.environment, 'live');
      assert.match(body.key, /^svc_live_/);
      assert.equal(body.rate_limit_per_minute, null);
    });

    it('gives a sandbox business test keys', async () => {
      const tenant = await createTenant(ctx.app, { is_dev: true });
      const body = (await createKey(tenant, { name: 'sandbox' })).json();
      assert.equal(body.environment, 'test');
      assert.match(body.key, /^svc_test_/);
    });

    it('writes an audit entry without the key', async () => {
      const tenant = await createTenant(ctx.app);
      const created = (await createKey(tenant, { name: 'audited' })).json();
      const audit = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/audit-logs',
        headers: tenant.headers,
      });
      const entry = audit.json().items[0];
      assert.equal(entry.action, 'api_key.created');
      assert.equal(entry.entity_id, created.id);
      assert.equal(entry.user_email, 'api_key:default');
      assert.ok(!audit.body.includes(created.key));
    });
  });

  describe('403', () => {
    it('answers missing_scope to a write key (keys need admin)', async () => {
      const tenant = await createTenant(ctx.app);
      const write = (await createKey(tenant, { name: 'w', scopes: ['write'] })).json().key;
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/api-keys',
        headers: bearer(write),
        payload: { name: 'escalate', scopes: ['admin'] },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'missing_scope');
    });
  });

  describe('422', () => {
    it('refuses a name of white space only', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await createKey(tenant, { name: ' \t ' });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.code, 'validation_error');
      assert.deepEqual(
        response.json().error.fields.map((f: { field: string }) => f.field),
        ['name'],
      );
    });

    it('names every bad field', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await createKey(tenant, {
        name: '',
        scopes: ['read', 'superuser'],
        environment: 'prod',
        rate_limit_per_minute: 0,
        colour: 'red',
      });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      for (const field of ['name', 'scopes[1]', 'environment', 'rate_limit_per_minute', 'colour']) {
        assert.ok(fields.includes(field), `${field} in ${fields}`);
      }
    });

    it('refuses a live key for a sandbox business', async () => {
      const tenant = await createTenant(ctx.app, { is_dev: true });
      const response = await createKey(tenant, { name: 'live', environment: 'live' });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'environment');
    });

    it('refuses empty and repeated scopes', async () => {
      const tenant = await createTenant(ctx.app);
      for (const scopes of [[], ['read', 'read']]) {
        const response = await createKey(tenant, { name: 'x', scopes });
        assert.equal(response.statusCode, 422, JSON.stringify(scopes));
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: '/v1/manage/api-keys',
        payload: { name: 'k' },
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('GET /v1/manage/api-keys', () => {
  describe('200', () => {
    it("lists the business's keys oldest first and never shows a full key", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const created = [];
      for (const name of ['one', 'two']) created.push((await createKey(tenant, { name })).json());
      const response = await listKeys(tenant);
      assert.equal(response.statusCode, 200);
      const { items, has_more, next_cursor } = response.json();
      assert.deepEqual(
        items.map((k: { name: string }) => k.name),
        ['default', 'default publishable', 'one', 'two'],
      );
      assert.equal(has_more, false);
      assert.equal(next_cursor, null);
      for (const item of items) {
        assert.deepEqual(Object.keys(item).sort(), [
          'allowed_origins',
          'created_at',
          'environment',
          'id',
          'is_active',
          'is_default',
          'key',
          'last_used_at',
          'name',
          'prefix',
          'rate_limit_per_minute',
          'scopes',
          'type',
        ]);
        if (item.type === 'secret') {
          assert.equal(item.prefix.length, 12);
          assert.equal(item.key, null);
        }
      }
      for (const key of [tenant.apiKey, other.apiKey, ...created.map((k) => k.key)]) {
        assert.ok(!response.body.includes(key.slice(12)), 'no secret part of any key');
      }
      assert.ok(!items.some((k: { prefix: string }) => k.prefix === other.apiKey.slice(0, 12)));
    });

    it('pages with limit and cursor', async () => {
      const tenant = await createTenant(ctx.app);
      for (const name of ['a', 'b', 'c']) await createKey(tenant, { name });
      const page1 = (await listKeys(tenant, '?limit=3')).json();
      assert.equal(page1.has_more, true);
      const page2 = (await listKeys(tenant, `?limit=3&cursor=${page1.next_cursor}`)).json();
      assert.deepEqual(
        [...page1.items, ...page2.items].map((k: { name: string }) => k.name),
        ['default', 'default publishable', 'a', 'b', 'c'],
      );
      assert.equal(page2.has_more, false);
    });
  });

  describe('422', () => {
    it('refuses a limit over 200 and a garbage cursor', async () => {
      const tenant = await createTenant(ctx.app);
      for (const query of ['?limit=201', '?limit=0', '?cursor=%%%']) {
        const response = await listKeys(tenant, query);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/api-keys', scope: 'admin', staff: false }),
    });
  });
});

describe('DELETE /v1/manage/api-keys/:key_id', () => {
  describe('204', () => {
    it('revokes the key: it answers 401 from then on and stays listed as inactive', async () => {
      const tenant = await createTenant(ctx.app);
      const { key, id } = await createKeyWithId(ctx.app, tenant, ['read']);
      assert.equal((await businessWith(key)).statusCode, 200);
      const response = await revokeKey(tenant, id);
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      const refused = await businessWith(key);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error.code, 'invalid_token');
      const listed = (await listKeys(tenant)).json().items.find((k: { id: string }) => k.id === id);
      assert.equal(listed.is_active, false);
      const audit = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/audit-logs',
        headers: tenant.headers,
      });
      assert.equal(audit.json().items[0].action, 'api_key.revoked');
    });

    it('answers 204 again to a key that is already revoked', async () => {
      const tenant = await createTenant(ctx.app);
      const { id } = await createKeyWithId(ctx.app, tenant, ['read']);
      assert.equal((await revokeKey(tenant, id)).statusCode, 204);
      assert.equal((await revokeKey(tenant, id)).statusCode, 204);
    });

    it('accepts a bodiless request that still says Content-Type: application/json', async () => {
      const tenant = await createTenant(ctx.app);
      const { id } = await createKeyWithId(ctx.app, tenant, ['read']);
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/api-keys/${id}`,
        headers: { ...tenant.headers, 'content-type': 'application/json' },
      });
      assert.equal(response.statusCode, 204, response.body);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's key, which keeps working", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const foreign = await createKeyWithId(ctx.app, other, ['read']);
      for (const id of [foreign.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
        const response = await revokeKey(tenant, id);
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal((await businessWith(foreign.key)).statusCode, 200);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => createKeyWithId(ctx.app, tenant, ['read']),
      route: ({ id }) => ({
        method: 'DELETE',
        url: `/v1/manage/api-keys/${id}`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('API key use', () => {
  describe('200', () => {
    it('reaches only its own business, with the scopes it has', async () => {
      const tenant = await createTenant(ctx.app);
      const read = (await createKey(tenant, { name: 'r', scopes: ['read'] })).json().key;
      const business = await businessWith(read);
      assert.equal(business.statusCode, 200);
      assert.equal(business.json().id, tenant.businessId);
      const list = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/api-keys',
        headers: bearer(read),
      });
      assert.equal(list.statusCode, 403);
      assert.equal(list.json().error.code, 'missing_scope');
    });
  });

  describe('401', () => {
    it('refuses a key whose secret part is altered', async () => {
      const tenant = await createTenant(ctx.app);
      const last = tenant.apiKey.at(-1) === 'A' ? 'B' : 'A';
      const response = await businessWith(`${tenant.apiKey.slice(0, -1)}${last}`);
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error.code, 'invalid_token');
    });
  });

  // Runs last: it shuts the app down to make the usage recorder flush.
  describe('last_used_at', () => {
    it('is not written on the request path, and is kept once usage is flushed (at the latest at shutdown)', async () => {
      const tenant = await createTenant(ctx.app);
      const used = await createKeyWithId(ctx.app, tenant, ['read']);
      const alsoUsed = await createKeyWithId(ctx.app, tenant, ['read']);
      const unused = await createKeyWithId(ctx.app, tenant, ['read']);
      const lastUsed = async () =>
        new Map(
          (
            await ctx.database.db
              .selectFrom('api_keys')
              .select(['id', 'last_used_at'])
              .where('business_id', '=', tenant.businessId)
              .execute()
          ).map((row) => [row.id, row.last_used_at]),
        );
      const startedAt = new Date();
      for (const { key } of [used, alsoUsed, used]) assert.equal((await businessWith(key)).statusCode, 200);
      assert.equal((await lastUsed()).get(used.id), null);
      await ctx.app.close();
      const flushed = await lastUsed();
      for (const { id } of [used, alsoUsed]) {
        const at = flushed.get(id);
        assert.ok(at instanceof Date);
        assert.ok(at.getTime() >= startedAt.getTime() - 1000);
      }
      assert.equal(flushed.get(unused.id), null);
    });
  });
});
