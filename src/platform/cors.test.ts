import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, createPublishableKey, createTenant, type Tenant, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const SHOP = 'https://shop.example';
const EVIL = 'https://evil.example';

const preflight = (origin: string, url: string, method = 'GET') =>
  ctx.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });
const availabilityUrl = (tenant: Tenant) => `/v1/availability/${tenant.businessId}?date=${BOOKING_DAY}`;

describe('CORS preflight (OPTIONS)', () => {
  describe('204', () => {
    it('answers for an origin an active publishable key lists, with the methods and headers a widget sends', async () => {
      const tenant = await createTenant(ctx.app);
      await createPublishableKey(ctx.app, tenant, [SHOP]);
      const response = await preflight(SHOP, '/v1/bookings', 'POST');
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.headers['access-control-allow-origin'], SHOP);
      assert.equal(response.headers['access-control-allow-methods'], 'GET, HEAD, POST');
      const allowed = String(response.headers['access-control-allow-headers']).toLowerCase();
      for (const header of ['authorization', 'content-type', 'idempotency-key'])
        assert.ok(allowed.includes(header));
      assert.equal(response.headers['access-control-max-age'], '600');
      assert.ok(String(response.headers.vary).toLowerCase().includes('origin'));
      assert.equal(response.headers['access-control-allow-credentials'], undefined, 'no cookies');
    });

    it("answers for the API's own public origin, where the hosted page runs", async () => {
      const own = new URL(ctx.config.publicBaseUrl).origin;
      const response = await preflight(own, '/v1/bookings', 'POST');
      assert.equal(response.statusCode, 204);
      assert.equal(response.headers['access-control-allow-origin'], own);
    });

    it('answers a new key’s origin at once', async () => {
      const tenant = await createTenant(ctx.app);
      assert.equal((await preflight(SHOP, '/v1/bookings')).headers['access-control-allow-origin'], undefined);
      await createPublishableKey(ctx.app, tenant, [SHOP]);
      assert.equal((await preflight(SHOP, '/v1/bookings')).headers['access-control-allow-origin'], SHOP);
    });
  });

  describe('404', () => {
    it('gives no CORS headers to an origin no key lists, nor once its key is revoked', async () => {
      const tenant = await createTenant(ctx.app);
      const { id } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      const unknown = await preflight(EVIL, '/v1/bookings', 'POST');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.headers['access-control-allow-origin'], undefined);
      await ctx.app.inject({ method: 'DELETE', url: `/v1/manage/api-keys/${id}`, headers: tenant.headers });
      const revoked = await preflight(SHOP, '/v1/bookings', 'POST');
      assert.equal(revoked.statusCode, 404);
      assert.equal(revoked.headers['access-control-allow-origin'], undefined);
    });
  });
});

describe('CORS on the request itself', () => {
  describe('200', () => {
    it("allows the key's origin to read the answer and the headers a widget needs", async () => {
      const tenant = await createTenant(ctx.app);
      const { key } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      const response = await ctx.app.inject({
        method: 'GET',
        url: availabilityUrl(tenant),
        headers: { ...bearer(key), origin: SHOP },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['access-control-allow-origin'], SHOP);
      assert.ok(String(response.headers.vary).toLowerCase().includes('origin'));
      const exposed = String(response.headers['access-control-expose-headers']).toLowerCase();
      for (const header of ['ratelimit-remaining', 'retry-after', 'x-request-id'])
        assert.ok(exposed.includes(header));
    });

    it('allows a call without credentials from a listed origin on a public route', async () => {
      const tenant = await createTenant(ctx.app);
      await createPublishableKey(ctx.app, tenant, [SHOP]);
      const response = await ctx.app.inject({
        method: 'GET',
        url: availabilityUrl(tenant),
        headers: { origin: SHOP },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], SHOP);
    });

    it('makes a booking readable by the page that made it', async () => {
      const biz = await setupBookable(ctx.app);
      const { key } = await createPublishableKey(ctx.app, biz.tenant, [SHOP]);
      const response = await postBooking(ctx.app, biz, {}, { ...bearer(key), origin: SHOP });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['access-control-allow-origin'], SHOP);
    });
  });

  describe('403', () => {
    it("gives no CORS headers to an origin the key does not list, which the key's guard refuses", async () => {
      const tenant = await createTenant(ctx.app);
      const { key } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      const response = await ctx.app.inject({
        method: 'GET',
        url: availabilityUrl(tenant),
        headers: { ...bearer(key), origin: EVIL },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'origin_not_allowed');
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    });

    it('never makes a route a publishable key may not call readable, even from a listed origin', async () => {
      const tenant = await createTenant(ctx.app);
      const { key } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: { ...bearer(key), origin: SHOP },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    });

    it('never makes a call with a secret credential readable from another origin', async () => {
      const tenant = await createTenant(ctx.app);
      await createPublishableKey(ctx.app, tenant, [SHOP]);
      for (const url of [availabilityUrl(tenant), '/v1/manage/business']) {
        const response = await ctx.app.inject({
          method: 'GET',
          url,
          headers: { ...tenant.headers, origin: SHOP },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['access-control-allow-origin'], undefined, url);
      }
    });
  });
});
