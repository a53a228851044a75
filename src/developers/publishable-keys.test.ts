import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  BOOKING_DAY,
  type BookableBusiness,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import {
  assertNamesFields,
  bearer,
  createKeyWithId,
  createPublishableKey,
  createTenant,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import { ensureSandbox } from '../sandbox/sandbox.service.ts';
import { defaultPublishableKey } from './api-keys.service.ts';

const ctx = useTestApp();

const SHOP = 'https://shop.example';
const createKey = (tenant: Tenant, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/v1/manage/api-keys', headers: tenant.headers, payload });
const listKeys = async (tenant: Tenant) =>
  (
    await ctx.app.inject({ method: 'GET', url: '/v1/manage/api-keys?limit=200', headers: tenant.headers })
  ).json().items as {
    id: string;
    name: string;
    type: string;
    key: string | null;
    is_default: boolean;
    is_active: boolean;
  }[];
const rotate = (tenant: Tenant, id: string, headers = tenant.headers) =>
  ctx.app.inject({ method: 'POST', url: `/v1/manage/api-keys/${id}/rotate`, headers });
const ownOrigin = () => new URL(ctx.config.publicBaseUrl).origin;

/** A call from a web page on `origin` (none: a call that sends no Origin) with a publishable key. */
const fromPage = (
  key: string,
  origin: string | undefined,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
  extra: Record<string, string> = {},
) =>
  ctx.app.inject({
    method,
    url,
    payload: payload as InjectOptions['payload'],
    headers: { ...bearer(key), ...(origin ? { origin } : {}), ...extra },
  });

describe('POST /v1/manage/api-keys with type publishable', () => {
  describe('201', () => {
    it('makes a svc_pk_live_ key with its origins normalised, no scopes, listed in full', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await createKey(tenant, {
        name: 'shop widget',
        type: 'publishable',
        allowed_origins: ['https://Shop.Example:443/', 'http://localhost:5173', 'https://shop.example'],
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.match(body.key, /^svc_pk_live_[A-Za-z0-9]{40}$/);
      assert.equal(body.type, 'publishable');
      assert.equal(body.prefix, body.key.slice(0, 16));
      assert.deepEqual(body.scopes, []);
      assert.deepEqual(body.allowed_origins, [SHOP, 'http://localhost:5173']);
      assert.equal(body.is_default, false);
      const listed = (await listKeys(tenant)).find((key) => key.id === body.id);
      assert.equal(listed?.key, body.key, 'a publishable key is no secret: the list shows it again');
    });

    it('makes a svc_pk_test_ key for a sandbox business', async () => {
      const tenant = await createTenant(ctx.app, { is_dev: true });
      const { key } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      assert.match(key, /^svc_pk_test_/);
    });
  });

  describe('422', () => {
    it('refuses origins with a path, a wildcard, plain http off localhost, no scheme, or a host no DNS name has, naming each', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await createKey(tenant, {
        name: 'bad',
        type: 'publishable',
        allowed_origins: [
          'https://shop.example/book',
          'https://*.shop.example',
          'http://shop.example',
          'shop.example',
          'https://user@shop.example',
          "https://shop.example'",
          'https://a;frame-ancestors.example',
          'https://a,b.example',
          'https://a"b.example',
          SHOP,
        ],
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(
        response.json().error.fields.map((field: { field: string }) => field.field),
        [0, 1, 2, 3, 4, 5, 6, 7, 8].map((index) => `allowed_origins[${index}]`),
      );
    });

    it('refuses a publishable key without origins or with scopes, and origins on a secret key', async () => {
      const tenant = await createTenant(ctx.app);
      await assertNamesFields(
        [
          [{ type: 'publishable' }, 'allowed_origins'],
          [{ type: 'publishable', allowed_origins: [] }, 'allowed_origins'],
          [{ type: 'publishable', allowed_origins: [SHOP], scopes: ['read'] }, 'scopes'],
          [{ allowed_origins: [SHOP] }, 'allowed_origins'],
        ],
        (payload) => createKey(tenant, { name: 'k', ...payload }),
      );
    });
  });
});

describe('the default publishable key', () => {
  describe('200', () => {
    it('is made with every business, listed, and served to the hosted page by defaultPublishableKey', async () => {
      const tenant = await createTenant(ctx.app);
      const defaults = (await listKeys(tenant)).filter((key) => key.is_default);
      assert.equal(defaults.length, 1);
      assert.equal(defaults[0]!.type, 'publishable');
      assert.match(defaults[0]!.key!, /^svc_pk_live_/);
      assert.equal(await defaultPublishableKey(ctx.app.db, tenant.businessId), defaults[0]!.key);
    });

    it('is made for a sandbox business and for the shared sandbox, as test keys', async () => {
      const tenant = await createTenant(ctx.app, { is_dev: true });
      assert.match(await defaultPublishableKey(ctx.app.db, tenant.businessId), /^svc_pk_test_/);
      const sandbox = await ensureSandbox(ctx.app.db, ctx.app.passwords);
      assert.match(await defaultPublishableKey(ctx.app.db, sandbox.id), /^svc_pk_test_/);
    });

    it("works from the API's own pages: its public URL, or a same-origin call by any name or with no Origin", async () => {
      const tenant = await createTenant(ctx.app);
      const key = await defaultPublishableKey(ctx.app.db, tenant.businessId);
      const url = `/v1/public/business/${tenant.slug}`;
      assert.equal((await fromPage(key, ownOrigin(), 'GET', url)).statusCode, 200);
      const sameOrigin = await fromPage(key, undefined, 'GET', url, undefined, {
        'sec-fetch-site': 'same-origin',
      });
      assert.equal(sameOrigin.statusCode, 200, sameOrigin.body);
      // The hosted page reached by another name of the server (its POSTs carry that Origin).
      const otherName = await fromPage(key, 'http://localhost:9', 'GET', url, undefined, {
        'sec-fetch-site': 'same-origin',
      });
      assert.equal(otherName.statusCode, 200, otherName.body);
      const elsewhere = await fromPage(key, SHOP, 'GET', url);
      assert.equal(elsewhere.statusCode, 403);
      assert.equal(elsewhere.json().error.code, 'origin_not_allowed');
    });
  });

  describe('409', () => {
    it('cannot be revoked: it is rotated instead', async () => {
      const tenant = await createTenant(ctx.app);
      const id = (await listKeys(tenant)).find((key) => key.is_default)!.id;
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/api-keys/${id}`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().error.code, 'conflict');
      assert.ok((await listKeys(tenant)).find((key) => key.id === id)!.is_active);
    });
  });
});

describe('POST /v1/manage/api-keys/{key_id}/rotate', () => {
  describe('201', () => {
    it('replaces a publishable key by one with the same settings; the old one is refused at once', async () => {
      const tenant = await createTenant(ctx.app);
      const old = await createPublishableKey(ctx.app, tenant, [SHOP]);
      const url = `/v1/public/business/${tenant.slug}`;
      assert.equal((await fromPage(old.key, SHOP, 'GET', url)).statusCode, 200);
      const response = await rotate(tenant, old.id);
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const fresh = response.json();
      assert.notEqual(fresh.id, old.id);
      assert.notEqual(fresh.key, old.key);
      assert.equal(fresh.name, 'widget');
      assert.equal(fresh.type, 'publishable');
      assert.deepEqual(fresh.allowed_origins, [SHOP]);
      assert.equal((await fromPage(old.key, SHOP, 'GET', url)).statusCode, 401);
      assert.equal((await fromPage(fresh.key, SHOP, 'GET', url)).statusCode, 200);
      const keys = await listKeys(tenant);
      assert.equal(keys.find((key) => key.id === old.id)!.is_active, false);
      const audit = await ctx.app.db
        .selectFrom('audit_logs')
        .select(['action', 'entity_id', 'meta'])
        .where('action', '=', 'api_key.rotated')
        .executeTakeFirstOrThrow();
      assert.equal(audit.entity_id, fresh.id);
      assert.deepEqual(audit.meta, { replaces: old.id });
    });

    it('keeps the default key the default: the hosted page gets the new one', async () => {
      const tenant = await createTenant(ctx.app);
      const before = await defaultPublishableKey(ctx.app.db, tenant.businessId);
      const id = (await listKeys(tenant)).find((key) => key.is_default)!.id;
      const response = await rotate(tenant, id);
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().is_default, true);
      const after = await defaultPublishableKey(ctx.app.db, tenant.businessId);
      assert.equal(after, response.json().key);
      assert.notEqual(after, before);
      assert.equal((await listKeys(tenant)).filter((key) => key.is_default).length, 1);
    });

    it('rotates a secret key with its scopes; the new key is shown this once', async () => {
      const tenant = await createTenant(ctx.app);
      const old = await createKeyWithId(ctx.app, tenant, ['read'], { rate_limit_per_minute: 77 });
      const response = await rotate(tenant, old.id);
      assert.equal(response.statusCode, 201, response.body);
      const fresh = response.json();
      assert.match(fresh.key, /^svc_live_/);
      assert.deepEqual(fresh.scopes, ['read']);
      assert.equal(fresh.rate_limit_per_minute, 77);
      assert.equal((await listKeys(tenant)).find((key) => key.id === fresh.id)!.key, null);
      const use = (key: string) =>
        ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers: bearer(key) });
      assert.equal((await use(old.key)).statusCode, 401);
      assert.equal((await use(fresh.key)).statusCode, 200);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's key and for an unknown id", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const theirs = await createPublishableKey(ctx.app, other, [SHOP]);
      for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
        const response = await rotate(tenant, id);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal(
        (await fromPage(theirs.key, SHOP, 'GET', `/v1/public/business/${other.slug}`)).statusCode,
        200,
      );
    });
  });

  describe('409', () => {
    it('refuses to rotate a revoked key', async () => {
      const tenant = await createTenant(ctx.app);
      const { id } = await createPublishableKey(ctx.app, tenant, [SHOP]);
      await ctx.app.inject({ method: 'DELETE', url: `/v1/manage/api-keys/${id}`, headers: tenant.headers });
      const response = await rotate(tenant, id);
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().error.code, 'conflict');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => createPublishableKey(ctx.app, tenant, [SHOP]),
      route: ({ id }) => ({
        method: 'POST',
        url: `/v1/manage/api-keys/${id}/rotate`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('what a publishable key may do', () => {
  let biz: BookableBusiness;
  let key: string;
  beforeEach(async () => {
    biz = await setupBookable(ctx.app);
    key = (await createPublishableKey(ctx.app, biz.tenant, [SHOP])).key;
  });

  describe('200 and 201', () => {
    it('reads availability, the month, public data; books; joins the waitlist, from its origin', async () => {
      const id = biz.tenant.businessId;
      for (const url of [
        `/v1/availability/${id}?date=${BOOKING_DAY}&capacity=2`,
        `/v1/availability/${id}/days?capacity=2`,
        `/v1/public/business/${biz.tenant.slug}`,
        `/v1/public/hours/${id}`,
        `/v1/availability/hours/${id}`,
        `/v1/public/blackout-dates/${id}`,
      ]) {
        const response = await fromPage(key, SHOP, 'GET', url);
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      }
      const booked = await postBooking(ctx.app, biz, {}, { ...bearer(key), origin: SHOP });
      assert.equal(booked.statusCode, 201, booked.body);
      assert.equal(booked.json().booking.source, 'online');
      const joined = await fromPage(key, SHOP, 'POST', `/v1/waitlist/${id}`, {
        customer: guest(),
        preferred_date: BOOKING_DAY,
      });
      assert.equal(joined.statusCode, 201, joined.body);
    });

    it('books in dynamic mode and checks a start there', async () => {
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { booking_mode: 'dynamic' },
      });
      const id = biz.tenant.businessId;
      const check = await fromPage(
        key,
        SHOP,
        'GET',
        `/v1/dynamic/availability/${id}?booking_date=${BOOKING_DAY}&start_time=10:07&capacity=2`,
      );
      assert.equal(check.statusCode, 200, check.body);
      assert.equal(check.json().available, true);
      const booked = await fromPage(key, SHOP, 'POST', '/v1/dynamic/bookings', {
        business_id: id,
        booking_date: BOOKING_DAY,
        start_time: '10:07',
        capacity: 2,
        ...guest(),
      });
      assert.equal(booked.statusCode, 201, booked.body);
    });

    it("keeps each visitor's Idempotency-Keys apart: another IP's same key never replays a booking", async () => {
      const visitor = guest();
      const book = (remoteAddress: string, start_time: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/bookings',
          remoteAddress,
          headers: { ...bearer(key), origin: SHOP, 'idempotency-key': 'booking-1' },
          payload: {
            business_id: biz.tenant.businessId,
            booking_date: BOOKING_DAY,
            start_time,
            capacity: 2,
            ...visitor,
          },
        });
      const first = await book('203.0.113.1', '12:00');
      assert.equal(first.statusCode, 201, first.body);
      const replay = await book('203.0.113.1', '12:00');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().booking.id, first.json().booking.id);
      const other = await book('203.0.113.2', '13:00');
      assert.equal(other.statusCode, 201, other.body);
      assert.notEqual(other.json().booking.id, first.json().booking.id);
      assert.equal(other.headers['idempotent-replayed'], undefined);
    });

    it('never changes a returning customer: the booking keeps the name given, the customer keeps theirs', async () => {
      const phone = '+49 30 999 111';
      const own = await postBooking(ctx.app, biz, {
        ...guest({ first_name: 'Anna', last_name: 'Meyer', email: 'anna@example.com', phone }),
      });
      assert.equal(own.statusCode, 201, own.body);
      const stranger = await postBooking(
        ctx.app,
        biz,
        {
          ...guest({ first_name: 'Mallory', last_name: 'Evil', email: 'mallory@evil.test', phone }),
          start_time: '14:00',
        },
        { ...bearer(key), origin: SHOP },
      );
      assert.equal(stranger.statusCode, 201, stranger.body);
      const customers = await ctx.app.db.selectFrom('customers').selectAll().execute();
      assert.equal(customers.length, 1);
      assert.equal(customers[0]!.first_name, 'Anna');
      assert.equal(customers[0]!.email, 'anna@example.com');
      const booking = await ctx.app.db
        .selectFrom('bookings')
        .select(['guest_first_name', 'guest_email', 'customer_id'])
        .where('id', '=', stranger.json().booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(booking.guest_first_name, 'Mallory');
      assert.equal(booking.guest_email, 'mallory@evil.test');
      assert.equal(booking.customer_id, customers[0]!.id);
    });
  });

  describe('403', () => {
    it('answers missing_scope everywhere else, even from its origin', async () => {
      const id = biz.tenant.businessId;
      for (const [method, url, payload] of [
        ['GET', '/v1/manage/business'],
        ['GET', '/v1/manage/bookings'],
        ['GET', '/v1/manage/settings'],
        ['PATCH', '/v1/manage/settings', { max_capacity: 4 }],
        ['GET', `/v1/manage/availability?date=${BOOKING_DAY}&capacity=2`],
        ['POST', '/v1/manage/api-keys', { name: 'x' }],
        ['GET', '/v1/manage/customers'],
        ['GET', '/v1/manage/waitlist'],
        ['GET', '/v1/developer/businesses'],
        ['POST', '/v1/manage/bookings/staff', { business_id: id }],
      ] as [InjectOptions['method'], string, unknown?][]) {
        const response = await fromPage(key, SHOP, method, url, payload);
        assert.equal(response.statusCode, 403, `${method} ${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'missing_scope', `${method} ${url}`);
      }
    });

    it('answers origin_not_allowed from another origin or with no Origin', async () => {
      const url = `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}`;
      for (const origin of ['https://evil.example', 'http://shop.example', ownOrigin(), undefined]) {
        const response = await fromPage(key, origin, 'GET', url);
        assert.equal(response.statusCode, 403, `${origin}: ${response.body}`);
        assert.equal(response.json().error.code, 'origin_not_allowed');
      }
      const booked = await postBooking(ctx.app, biz, {}, { ...bearer(key), origin: 'https://evil.example' });
      assert.equal(booked.statusCode, 403);
      assert.equal(await ctx.app.db.selectFrom('bookings').select('id').executeTakeFirst(), undefined);
    });
  });

  describe('404', () => {
    it('finds nothing of another business: its availability, slug, bookings and waitlist', async () => {
      const other = await setupBookable(ctx.app);
      const id = other.tenant.businessId;
      for (const [method, url, payload] of [
        ['GET', `/v1/availability/${id}?date=${BOOKING_DAY}`],
        ['GET', `/v1/availability/${id}/days`],
        ['GET', `/v1/public/business/${other.tenant.slug}`],
        ['GET', `/v1/public/hours/${id}`],
        ['POST', `/v1/waitlist/${id}`, { customer: guest(), preferred_date: BOOKING_DAY }],
        [
          'POST',
          '/v1/bookings',
          { business_id: id, booking_date: BOOKING_DAY, start_time: '12:00', capacity: 2, ...guest() },
        ],
      ] as [InjectOptions['method'], string, unknown?][]) {
        const response = await fromPage(key, SHOP, method, url, payload);
        assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal(await ctx.app.db.selectFrom('bookings').select('id').executeTakeFirst(), undefined);
      assert.equal(
        await ctx.app.db.selectFrom('waitlist_entries').select('id').executeTakeFirst(),
        undefined,
      );
    });
  });

  describe('429', () => {
    it('counts per key and client IP together', async () => {
      const limited = await createKey(biz.tenant, {
        name: 'tight',
        type: 'publishable',
        allowed_origins: [SHOP],
        rate_limit_per_minute: 2,
      });
      const limitedKey = limited.json().key;
      const call = (remoteAddress: string) =>
        ctx.app.inject({
          method: 'GET',
          url: `/v1/public/business/${biz.tenant.slug}`,
          headers: { ...bearer(limitedKey), origin: SHOP },
          remoteAddress,
        });
      assert.equal((await call('203.0.113.1')).statusCode, 200);
      assert.equal((await call('203.0.113.1')).statusCode, 200);
      const over = await call('203.0.113.1');
      assert.equal(over.statusCode, 429);
      assert.equal(over.json().error.code, 'rate_limit_exceeded');
      assert.equal((await call('203.0.113.2')).statusCode, 200, 'another visitor has a count of their own');
    });
  });
});
