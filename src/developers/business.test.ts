import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearer, createTenant, dashboardToken, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const get = (url: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url, headers });

describe('GET /v1/manage/business', () => {
  describe('200', () => {
    it('answers the business of an API key', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez Nous' });
      const response = await get('/v1/manage/business', tenant.headers);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { id: tenant.businessId, name: 'Chez Nous', slug: 'chez-nous' });
    });

    it('answers the business of a dashboard user, staff members included', async () => {
      const tenant = await createTenant(ctx.app);
      for (const role of ['business_owner', 'staff_member'] as const) {
        const token = await dashboardToken(ctx.app, tenant, role);
        const response = await get('/v1/manage/business', bearer(token));
        assert.equal(response.statusCode, 200, role);
        assert.equal(response.json().id, tenant.businessId);
      }
    });

    it('answers the business a developer token names in X-Business-Id', async () => {
      const tenant = await createTenant(ctx.app);
      const second = await ctx.app.inject({
        method: 'POST',
        url: '/v1/developer/businesses',
        headers: bearer(tenant.developer.token),
        payload: { name: 'Second Place' },
      });
      for (const id of [tenant.businessId, second.json().business_id]) {
        const response = await get('/v1/manage/business', {
          ...bearer(tenant.developer.token),
          'x-business-id': id,
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().id, id);
      }
    });
  });

  describe('403', () => {
    it('asks a developer token without X-Business-Id to name a business', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await get('/v1/manage/business', bearer(tenant.developer.token));
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'insufficient_permissions');
      assert.match(response.json().error.message, /X-Business-Id/);
    });
  });

  describe('404', () => {
    it("answers not_found when a developer names another developer's business or a bad id", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      for (const id of [other.businessId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const response = await get('/v1/manage/business', {
          ...bearer(tenant.developer.token),
          'x-business-id': id,
        });
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/business', scope: 'read', staff: true }),
    });
  });
});

describe('GET /v1/manage/restaurant', () => {
  describe('200', () => {
    it('answers like /v1/manage/business, marked deprecated with a link to its successor', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await get('/v1/manage/restaurant', tenant.headers);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), (await get('/v1/manage/business', tenant.headers)).json());
      assert.equal(response.headers.deprecation, 'true');
      assert.match(String(response.headers.link), /<[^>]*\/v1\/manage\/business>;\s*rel="successor-version"/);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/restaurant', scope: 'read', staff: true }),
    });
  });
});
