import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { bearer, createTenant, createTestApp, type Tenant, type TestContext } from '../../test/helpers.ts';
import { todayIn } from '../engine/index.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(async () => {
  await ctx.close();
});
beforeEach(async () => {
  await ctx.reset();
  ctx.app.clock.now = Date.now;
});

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const WEEK = [0, 1, 2, 3, 4, 5, 6].map((day) =>
  day === 1
    ? { day_of_week: 1, is_open: false, open_time: null, close_time: null, last_booking_time: null }
    : {
        day_of_week: day,
        is_open: true,
        open_time: '17:00',
        close_time: '00:30',
        last_booking_time: '22:00',
      },
);

const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });
const manage = (tenant: Tenant, method: InjectOptions['method'], url: string, payload: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

const shiftDate = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('GET /v1/public/business/{slug}', () => {
  describe('200', () => {
    it('answers id, name, slug and the default settings without credentials, whatever the case of the slug', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez Public' });
      for (const slug of [tenant.slug, tenant.slug.toUpperCase()]) {
        const response = await get(`/v1/public/business/${slug}`);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), {
          id: tenant.businessId,
          name: 'Chez Public',
          slug: tenant.slug,
          timezone: 'UTC',
          booking_mode: 'scheduled',
          min_capacity: 1,
          max_capacity: 50,
          booking_window_days: 60,
          default_slot_interval_minutes: 30,
          deposit_type: 'none',
          default_deposit_amount_cents: 500,
          payment_hold_minutes: 30,
          cancellation_cutoff_hours: 0,
          guest_change_cutoff_hours: 2,
          time_format: null,
          max_online_party_size: 50,
          description: null,
          address: null,
          phone: null,
          public_email: null,
          website: null,
          logo_url: null,
          booking_policy: null,
          guest_emails_enabled: true,
          is_sandbox: false,
        });
      }
    });

    it("shows the venue's profile and its online party limit, which follows max_capacity until set", async () => {
      const tenant = await createTenant(ctx.app);
      const profile = {
        description: 'Wood-fired pizza since 1998.',
        address: 'Via Roma 1, Napoli',
        phone: '+39 081 555 0101',
        public_email: 'ciao@pizza.example',
        website: 'https://pizza.example',
        logo_url: 'https://pizza.example/logo.svg',
        booking_policy: 'Tables are held for 15 minutes.',
      };
      const changed = await manage(tenant, 'PATCH', '/v1/manage/settings', { ...profile, max_capacity: 12 });
      assert.equal(changed.statusCode, 200, changed.body);
      const following = (await get(`/v1/public/business/${tenant.slug}`)).json();
      assert.deepEqual({ ...following, ...profile, max_online_party_size: 12 }, following);
      await manage(tenant, 'PATCH', '/v1/manage/settings', { max_online_party_size: 6 });
      assert.equal((await get(`/v1/public/business/${tenant.slug}`)).json().max_online_party_size, 6);
    });

    it('offers online, when the venue sets no limit, only the parties its tables and combinations seat', async () => {
      const tenant = await createTenant(ctx.app);
      const table = async (name: string) =>
        (
          await manage(tenant, 'POST', '/v1/manage/resources', { name, capacity_min: 1, capacity_max: 4 })
        ).json();
      const limit = async () =>
        (await get(`/v1/public/business/${tenant.slug}`)).json().max_online_party_size;
      const first = await table('T1');
      assert.equal(await limit(), 4, 'one table of 4: not 1-50');
      const second = await table('T2');
      const joined = await manage(tenant, 'POST', '/v1/manage/combinations', {
        name: 'T1+T2',
        resource_ids: [first.id, second.id],
        capacity_min: 5,
        capacity_max: 8,
      });
      assert.equal(joined.statusCode, 201, joined.body);
      assert.equal(await limit(), 8);
      await manage(tenant, 'PATCH', '/v1/manage/settings', { max_online_party_size: 6 });
      assert.equal(await limit(), 6, "the venue's own limit stands");
    });

    it('tells a widget how long an unpaid deposit holds the table and whether guests are emailed', async () => {
      const tenant = await createTenant(ctx.app);
      const changed = await manage(tenant, 'PATCH', '/v1/manage/settings', {
        payment_hold_minutes: 45,
        guest_emails_enabled: false,
        venue_notification_email: 'owner@venue.example',
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const business = (await get(`/v1/public/business/${tenant.slug}`)).json();
      assert.equal(business.payment_hold_minutes, 45);
      assert.equal(business.guest_emails_enabled, false);
      assert.equal(business.venue_notification_email, undefined, "the venue's own address stays private");
    });

    it('says so of a sandbox business, whose bookings are for trying things out', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Try Me', is_dev: true });
      const response = await get(`/v1/public/business/${tenant.slug}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().is_sandbox, true);
    });

    it('finds the business by its id too, as a widget may be given either', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez Public' });
      await createTenant(ctx.app, { name: 'Elsewhere' });
      const response = await get(`/v1/public/business/${tenant.businessId}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().slug, tenant.slug);
    });

    it('answers the settings as the business changed them, so a widget needs no other call', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez Public' });
      const changed = await manage(tenant, 'PATCH', '/v1/manage/settings', {
        timezone: 'Europe/Berlin',
        min_capacity: 2,
        max_capacity: 8,
        booking_window_days: 30,
        default_slot_interval_minutes: 15,
        default_deposit_amount_cents: 250,
        min_notice_hours: 3,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const body = (await get(`/v1/public/business/${tenant.slug}`)).json();
      assert.equal(body.timezone, 'Europe/Berlin');
      assert.equal(body.min_capacity, 2);
      assert.equal(body.max_capacity, 8);
      assert.equal(body.booking_window_days, 30);
      assert.equal(body.default_slot_interval_minutes, 15);
      assert.equal(body.default_deposit_amount_cents, 250);
      assert.equal(body.min_notice_hours, undefined, 'only what a widget needs is public');
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown slug', async () => {
      const response = await get('/v1/public/business/no-such-place');
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
      assert.equal(response.headers['cache-control'], undefined);
    });

    it('answers not_found for the id of no business', async () => {
      const response = await get(`/v1/public/business/${MISSING_ID}`);
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
    });
  });
});

for (const base of ['/v1/public/hours', '/v1/availability/hours']) {
  describe(`GET ${base}/{business_id}`, () => {
    describe('200', () => {
      it('answers the seven rows of the business, closed days included', async () => {
        const tenant = await createTenant(ctx.app);
        assert.equal((await manage(tenant, 'PUT', '/v1/manage/hours', WEEK)).statusCode, 200);
        const response = await get(`${base}/${tenant.businessId}`);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), WEEK);
      });

      it('answers seven closed days for a business that set no hours', async () => {
        const tenant = await createTenant(ctx.app);
        const response = await get(`${base}/${tenant.businessId}`);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().length, 7);
        assert.ok(response.json().every((row: { is_open: boolean }) => !row.is_open));
      });
    });

    describe('404', () => {
      it('answers not_found for an unknown business and for an id that is not a UUID', async () => {
        for (const id of [MISSING_ID, 'chez-test']) {
          const response = await get(`${base}/${id}`);
          assert.equal(response.statusCode, 404, response.body);
          assert.equal(response.json().error.code, 'not_found');
        }
      });
    });
  });
}

describe('GET /v1/public/blackout-dates/{business_id}', () => {
  describe('200', () => {
    it("answers ranges ending today or later in the business's zone, by start date, without ids", async () => {
      // UTC+14: at noon UTC its date is already tomorrow's.
      const timezone = 'Pacific/Kiritimati';
      const now = Date.parse('2030-06-15T12:00:00Z');
      ctx.app.clock.now = () => now;
      const tenant = await createTenant(ctx.app);
      assert.equal((await manage(tenant, 'PATCH', '/v1/manage/settings', { timezone })).statusCode, 200);
      const today = todayIn(timezone, now);
      assert.equal(today, '2030-06-16');
      const ranges = [
        { start_date: shiftDate(today, 10), end_date: shiftDate(today, 12), reason: 'Holidays' },
        { start_date: shiftDate(today, -5), end_date: shiftDate(today, -1), reason: 'Over' },
        { start_date: shiftDate(today, -3), end_date: today, reason: null },
        { start_date: shiftDate(today, 1), end_date: shiftDate(today, 1), reason: 'Private event' },
      ];
      for (const range of ranges) {
        assert.equal((await manage(tenant, 'POST', '/v1/manage/blackout-dates', range)).statusCode, 201);
      }
      const response = await get(`/v1/public/blackout-dates/${tenant.businessId}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), [ranges[2], ranges[3], ranges[0]]);
    });

    it("shows nothing of another business's blackouts", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const range = { start_date: '2099-01-01', end_date: '2099-01-02' };
      assert.equal((await manage(other, 'POST', '/v1/manage/blackout-dates', range)).statusCode, 201);
      assert.deepEqual((await get(`/v1/public/blackout-dates/${tenant.businessId}`)).json(), []);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown business', async () => {
      const response = await get(`/v1/public/blackout-dates/${MISSING_ID}`);
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
    });
  });
});

describe('credentials on public reads', () => {
  describe('200', () => {
    it('accepts a valid credential', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await get(`/v1/public/hours/${tenant.businessId}`, tenant.headers);
      assert.equal(response.statusCode, 200, response.body);
    });
  });

  describe('401', () => {
    it('refuses a credential that is sent but not valid', async () => {
      const tenant = await createTenant(ctx.app);
      for (const url of [
        `/v1/public/business/${tenant.slug}`,
        `/v1/public/hours/${tenant.businessId}`,
        `/v1/availability/hours/${tenant.businessId}`,
        `/v1/public/blackout-dates/${tenant.businessId}`,
      ]) {
        const response = await get(url, bearer('svc_live_notakey'));
        assert.equal(response.statusCode, 401, `${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });
});

describe('caching of public reads', () => {
  describe('200', () => {
    it('sends Cache-Control and a strong ETag that follows the content', async () => {
      const tenant = await createTenant(ctx.app);
      const url = `/v1/public/hours/${tenant.businessId}`;
      const first = await get(url);
      assert.equal(first.headers['cache-control'], 'public, max-age=60');
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[\w-]+"$/);
      assert.equal((await get(url)).headers.etag, etag);
      await manage(tenant, 'PUT', '/v1/manage/hours', WEEK);
      const changed = await get(url, { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.deepEqual(changed.json(), WEEK);
    });
  });

  describe('304', () => {
    it('answers 304 without a body to a matching If-None-Match, weak or in a list', async () => {
      const tenant = await createTenant(ctx.app);
      for (const url of [
        `/v1/public/business/${tenant.slug}`,
        `/v1/public/hours/${tenant.businessId}`,
        `/v1/availability/hours/${tenant.businessId}`,
        `/v1/public/blackout-dates/${tenant.businessId}`,
      ]) {
        const etag = String((await get(url)).headers.etag);
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const response = await get(url, { 'if-none-match': ifNoneMatch });
          assert.equal(response.statusCode, 304, `${url} ${ifNoneMatch}`);
          assert.equal(response.body, '');
          assert.equal(response.headers.etag, etag);
          assert.equal(response.headers['cache-control'], 'public, max-age=60');
        }
        assert.equal((await get(url, { 'if-none-match': '"stale"' })).statusCode, 200);
      }
    });
  });
});

describe('OpenAPI', () => {
  it('documents the public reads as needing no credentials', async () => {
    const spec = (await get('/openapi.json')).json();
    for (const path of [
      '/v1/public/business/{slug}',
      '/v1/public/hours/{business_id}',
      '/v1/availability/hours/{business_id}',
      '/v1/public/blackout-dates/{business_id}',
    ]) {
      assert.deepEqual(spec.paths[path]?.get?.security, [], path);
    }
  });
});
