import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { connectPaymentAccount } from '../../test/deposit-fixtures.ts';
import {
  bearer,
  createTenant,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import { loadSettings } from './settings.queries.ts';
import { canonicalTimeZone } from './timezone.service.ts';

const ctx = useTestApp();

const DEFAULTS = {
  timezone: 'UTC',
  country: null,
  default_slot_interval_minutes: 30,
  default_slot_duration_minutes: 60,
  booking_window_days: 60,
  min_notice_hours: 0,
  min_capacity: 1,
  max_capacity: 50,
  auto_confirm_bookings: true,
  default_deposit_amount_cents: 500,
  booking_mode: 'scheduled',
  buffer_minutes: 0,
  deposit_type: 'none',
  payment_hold_minutes: 30,
  cancellation_cutoff_hours: 0,
  guest_change_cutoff_hours: 2,
  time_format: null,
  public_bookings_per_ip_per_hour: 10,
  max_online_party_size: null,
  guest_data_retention_months: null,
  description: null,
  address: null,
  phone: null,
  public_email: null,
  website: null,
  logo_url: null,
  booking_policy: null,
  turn_times: [],
  notification_language: 'en',
  guest_emails_enabled: true,
  sms_enabled: false,
  reminder_hours_before: 24,
  venue_notification_email: null,
  waitlist_offer_minutes: 30,
  sms_countries: [],
  sms_per_day: 100,
};

const PROFILE = {
  description: 'A small bistro by the river.',
  address: '1 Quai des Fleurs, 75004 Paris',
  phone: '+33 1 23 45 67 89',
  public_email: 'hello@bistro.example',
  website: 'https://bistro.example/menu?lang=fr',
  logo_url: 'https://cdn.bistro.example:8443/logo.png',
  booking_policy: 'Cancel up to 24 hours before; we hold a table 15 minutes.',
  max_online_party_size: 8,
};

const call = (tenant: Tenant, method: InjectOptions['method'], payload?: unknown) =>
  ctx.app.inject({
    method,
    url: '/v1/manage/settings',
    headers: tenant.headers,
    payload: payload as InjectOptions['payload'],
  });

async function audits(tenant: Tenant) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/v1/manage/audit-logs',
    headers: tenant.headers,
  });
  return response.json().items as {
    action: string;
    before_state: Record<string, unknown>;
    after_state: Record<string, unknown>;
  }[];
}

describe('GET /v1/manage/settings', () => {
  describe('200', () => {
    it('answers the defaults of a new business', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'GET');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), DEFAULTS);
    });

    it('lets a staff member read', async () => {
      const tenant = await createTenant(ctx.app);
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/settings',
        headers: bearer(token),
      });
      assert.equal(response.statusCode, 200, response.body);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/settings', scope: 'read', staff: true }),
    });
  });
});

describe('PATCH /v1/manage/settings', () => {
  describe('200', () => {
    it('changes the given fields, answers all of them and audits settings.updated', async () => {
      const tenant = await createTenant(ctx.app);
      await connectPaymentAccount(ctx.app, tenant.businessId);
      const change = {
        timezone: 'Europe/Berlin',
        default_slot_interval_minutes: 15,
        default_slot_duration_minutes: 90,
        booking_mode: 'dynamic',
        deposit_type: 'charge',
        auto_confirm_bookings: false,
      };
      // The country follows the new time zone, and the SMS countries the country.
      const answered = { ...DEFAULTS, ...change, country: 'DE', sms_countries: ['DE'] };
      const response = await call(tenant, 'PATCH', change);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), answered);
      assert.deepEqual((await call(tenant, 'GET')).json(), answered);
      const [entry] = await audits(tenant);
      assert.equal(entry!.action, 'settings.updated');
      assert.deepEqual(entry!.before_state, DEFAULTS);
      assert.deepEqual(entry!.after_state, answered);
    });

    it("follows the time zone's country until a country is set, and again once it is set to null", async () => {
      const tenant = await createTenant(ctx.app);
      const answer = async (patch: Record<string, unknown>) => {
        const response = await call(tenant, 'PATCH', patch);
        assert.equal(response.statusCode, 200, response.body);
        const { country, sms_countries, sms_per_day } = response.json();
        return { country, sms_countries, sms_per_day };
      };
      assert.deepEqual(await answer({ timezone: 'Europe/Paris' }), {
        country: 'FR',
        sms_countries: ['FR'],
        sms_per_day: 100,
      });
      assert.deepEqual(await answer({ timezone: 'Europe/Zurich' }), {
        country: 'CH',
        sms_countries: ['CH'],
        sms_per_day: 100,
      });
      assert.deepEqual(
        await answer({ country: 'li', sms_countries: ['li', 'CH', 'LI'], sms_per_day: 1000 }),
        {
          country: 'LI',
          sms_countries: ['LI', 'CH'],
          sms_per_day: 1000,
        },
      );
      assert.deepEqual(await answer({ timezone: 'Europe/Vienna' }), {
        country: 'LI',
        sms_countries: ['LI', 'CH'],
        sms_per_day: 1000,
      });
      assert.deepEqual(await answer({ country: null, sms_countries: null }), {
        country: 'AT',
        sms_countries: ['AT'],
        sms_per_day: 1000,
      });
      assert.deepEqual(await answer({ sms_countries: [] }), {
        country: 'AT',
        sms_countries: [],
        sms_per_day: 1000,
      });
    });

    it('accepts both ends of every range', async () => {
      const tenant = await createTenant(ctx.app);
      const low = {
        default_slot_interval_minutes: 15,
        default_slot_duration_minutes: 15,
        booking_window_days: 1,
        min_notice_hours: 0,
        min_capacity: 1,
        max_capacity: 1,
        default_deposit_amount_cents: 5,
        buffer_minutes: 0,
        payment_hold_minutes: 5,
        cancellation_cutoff_hours: 0,
        guest_change_cutoff_hours: 0,
        public_bookings_per_ip_per_hour: 1,
        max_online_party_size: 1,
        description: 'x',
        address: 'x',
        phone: '1234567',
        public_email: 'a@b.co',
        website: 'https://a.co',
        logo_url: 'https://a.co',
        booking_policy: 'x',
        turn_times: [{ min_party: 1, max_party: 1, duration_minutes: 15 }],
        notification_language: 'de',
        time_format: '12h',
        guest_emails_enabled: false,
        sms_enabled: true,
        reminder_hours_before: 0,
        venue_notification_email: 'a@b.co',
        waitlist_offer_minutes: 5,
      };
      const high = {
        default_slot_interval_minutes: 120,
        default_slot_duration_minutes: 360,
        booking_window_days: 365,
        min_notice_hours: 168,
        min_capacity: 20,
        max_capacity: 50,
        default_deposit_amount_cents: 500,
        buffer_minutes: 240,
        payment_hold_minutes: 1440,
        cancellation_cutoff_hours: 720,
        guest_change_cutoff_hours: 720,
        public_bookings_per_ip_per_hour: 1000,
        max_online_party_size: 50,
        description: 'd'.repeat(2000),
        address: 'a'.repeat(300),
        phone: '+(49) 30-1234.5678',
        public_email: 'bookings@venue.example',
        website: `https://venue.example/${'p'.repeat(1970)}`,
        logo_url: `https://venue.example/${'l'.repeat(1970)}`,
        booking_policy: 'b'.repeat(2000),
        turn_times: [{ min_party: 50, max_party: 50, duration_minutes: 360 }],
        notification_language: 'es',
        time_format: '24h',
        guest_emails_enabled: true,
        sms_enabled: false,
        reminder_hours_before: 168,
        venue_notification_email: `${'v'.repeat(240)}@venue.co`,
        waitlist_offer_minutes: 1440,
      };
      for (const change of [low, high]) {
        const response = await call(tenant, 'PATCH', change);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { ...DEFAULTS, ...change });
      }
    });

    it('sets and clears the profile, audited, and stores blank text as none', async () => {
      const tenant = await createTenant(ctx.app);
      const set = await call(tenant, 'PATCH', PROFILE);
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json(), { ...DEFAULTS, ...PROFILE });
      const [entry] = await audits(tenant);
      assert.equal(entry!.action, 'settings.updated');
      assert.deepEqual(entry!.after_state, { ...DEFAULTS, ...PROFILE });
      const blank = await call(tenant, 'PATCH', { description: '  ', address: '', booking_policy: '\n' });
      assert.equal(blank.statusCode, 200, blank.body);
      assert.deepEqual(blank.json(), {
        ...DEFAULTS,
        ...PROFILE,
        description: null,
        address: null,
        booking_policy: null,
      });
      const cleared = await call(
        tenant,
        'PATCH',
        Object.fromEntries(Object.keys(PROFILE).map((field) => [field, null])),
      );
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.deepEqual(cleared.json(), DEFAULTS);
    });

    it('keeps turn times sorted by party size, audits them and takes the same ranges reordered as no change', async () => {
      const tenant = await createTenant(ctx.app);
      const sent = [
        { min_party: 5, max_party: 50, duration_minutes: 120 },
        { min_party: 1, max_party: 2, duration_minutes: 60 },
        { min_party: 3, max_party: 4, duration_minutes: 90 },
      ];
      const sorted = [sent[1], sent[2], sent[0]];
      const response = await call(tenant, 'PATCH', { turn_times: sent });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().turn_times, sorted);
      assert.deepEqual((await call(tenant, 'GET')).json(), { ...DEFAULTS, turn_times: sorted });
      const [entry] = await audits(tenant);
      assert.equal(entry!.action, 'settings.updated');
      assert.deepEqual(entry!.before_state.turn_times, []);
      assert.deepEqual(entry!.after_state.turn_times, sorted);
      assert.equal((await call(tenant, 'PATCH', { turn_times: [...sorted].reverse() })).statusCode, 200);
      assert.equal((await audits(tenant)).length, 1);
      const cleared = await call(tenant, 'PATCH', { turn_times: [] });
      assert.deepEqual(cleared.json(), DEFAULTS);
    });

    it('keeps turn times per business', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const turn_times = [{ min_party: 5, max_party: 8, duration_minutes: 120 }];
      assert.equal((await call(tenant, 'PATCH', { turn_times })).statusCode, 200);
      assert.deepEqual((await call(other, 'GET')).json().turn_times, []);
      assert.deepEqual((await loadSettings(ctx.database.db, tenant.businessId))?.turn_times, turn_times);
    });

    it('answers the unchanged settings to an empty body without an audit entry', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'PATCH', {});
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), DEFAULTS);
      assert.deepEqual(await audits(tenant), []);
    });

    it('keeps settings per business', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await call(tenant, 'PATCH', { timezone: 'America/New_York' });
      assert.equal((await call(other, 'GET')).json().timezone, 'UTC');
      assert.equal((await loadSettings(ctx.database.db, tenant.businessId))?.timezone, 'America/New_York');
    });

    it('stores a time zone in the spelling of the zone data, an alias as the alias', async () => {
      const tenant = await createTenant(ctx.app);
      for (const [given, stored] of [
        ['europe/berlin', 'Europe/Berlin'],
        ['AMERICA/ARGENTINA/BUENOS_AIRES', 'America/Argentina/Buenos_Aires'],
        ['us/pacific', 'US/Pacific'],
        ['europe/kyiv', 'Europe/Kyiv'],
        ['etc/gmt+5', 'Etc/GMT+5'],
        ['utc', 'UTC'],
      ]) {
        const response = await call(tenant, 'PATCH', { timezone: given });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().timezone, stored, given);
        assert.equal((await loadSettings(ctx.database.db, tenant.businessId))?.timezone, stored, given);
      }
    });

    it('takes another spelling of the stored zone as no change', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'PATCH', { timezone: 'utc' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), DEFAULTS);
      assert.deepEqual(await audits(tenant), []);
    });
  });

  describe('422', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ timezone: 'US/Pacific-New' }, 'timezone'],
      [{ timezone: 'US/Pacific-New', min_capacity: 10, max_capacity: 5 }, 'timezone'],
      [{ timezone: '' }, 'timezone'],
      [{ default_slot_interval_minutes: 14 }, 'default_slot_interval_minutes'],
      [{ default_slot_interval_minutes: 121 }, 'default_slot_interval_minutes'],
      [{ default_slot_duration_minutes: 361 }, 'default_slot_duration_minutes'],
      [{ booking_window_days: 0 }, 'booking_window_days'],
      [{ booking_window_days: 366 }, 'booking_window_days'],
      [{ min_notice_hours: -1 }, 'min_notice_hours'],
      [{ min_notice_hours: 169 }, 'min_notice_hours'],
      [{ min_capacity: 21 }, 'min_capacity'],
      [{ max_capacity: 51 }, 'max_capacity'],
      [{ max_capacity: 0 }, 'max_capacity'],
      [{ default_deposit_amount_cents: 4 }, 'default_deposit_amount_cents'],
      [{ default_deposit_amount_cents: 501 }, 'default_deposit_amount_cents'],
      [{ buffer_minutes: 241 }, 'buffer_minutes'],
      [{ booking_mode: 'freeform' }, 'booking_mode'],
      [{ deposit_type: 'cash' }, 'deposit_type'],
      [{ payment_hold_minutes: 4 }, 'payment_hold_minutes'],
      [{ payment_hold_minutes: 1441 }, 'payment_hold_minutes'],
      [{ cancellation_cutoff_hours: -1 }, 'cancellation_cutoff_hours'],
      [{ cancellation_cutoff_hours: 721 }, 'cancellation_cutoff_hours'],
      [{ guest_change_cutoff_hours: -1 }, 'guest_change_cutoff_hours'],
      [{ guest_change_cutoff_hours: 721 }, 'guest_change_cutoff_hours'],
      [{ public_bookings_per_ip_per_hour: 0 }, 'public_bookings_per_ip_per_hour'],
      [{ public_bookings_per_ip_per_hour: 1001 }, 'public_bookings_per_ip_per_hour'],
      [{ auto_confirm_bookings: 'sometimes' }, 'auto_confirm_bookings'],
      [{ booking_window_days: 'ten' }, 'booking_window_days'],
      [{ min_notice_hours: 1.5 }, 'min_notice_hours'],
      [{ slug: 'new-slug' }, 'slug'],
      [{ min_capacity: 10, max_capacity: 5 }, 'min_capacity'],
      [{ max_online_party_size: 0 }, 'max_online_party_size'],
      [{ max_online_party_size: 51 }, 'max_online_party_size'],
      [{ max_online_party_size: 2.5 }, 'max_online_party_size'],
      [{ max_online_party_size: 12, max_capacity: 10 }, 'max_online_party_size'],
      [{ max_online_party_size: 3, min_capacity: 4 }, 'max_online_party_size'],
      [{ description: 'd'.repeat(2001) }, 'description'],
      [{ address: 'a'.repeat(301) }, 'address'],
      [{ booking_policy: 'b'.repeat(2001) }, 'booking_policy'],
      [{ phone: 'call us' }, 'phone'],
      [{ phone: '123456' }, 'phone'],
      [{ phone: '' }, 'phone'],
      [{ public_email: 'not-an-email' }, 'public_email'],
      [{ public_email: `${'a'.repeat(250)}@b.co` }, 'public_email'],
      [{ notification_language: 'it' }, 'notification_language'],
      [{ notification_language: null }, 'notification_language'],
      [{ time_format: '24' }, 'time_format'],
      [{ guest_emails_enabled: 'maybe' }, 'guest_emails_enabled'],
      [{ sms_enabled: null }, 'sms_enabled'],
      [{ reminder_hours_before: -1 }, 'reminder_hours_before'],
      [{ reminder_hours_before: 169 }, 'reminder_hours_before'],
      [{ reminder_hours_before: 1.5 }, 'reminder_hours_before'],
      [{ venue_notification_email: 'venue' }, 'venue_notification_email'],
      [{ venue_notification_email: '' }, 'venue_notification_email'],
      [{ venue_notification_email: `${'a'.repeat(250)}@b.co` }, 'venue_notification_email'],
      [{ waitlist_offer_minutes: 4 }, 'waitlist_offer_minutes'],
      [{ country: 'XX' }, 'country'],
      [{ country: 'DEU' }, 'country'],
      [{ country: '' }, 'country'],
      [{ sms_countries: ['DE', 'ZZ'] }, 'sms_countries[1]'],
      [{ sms_countries: 'DE' }, 'sms_countries'],
      [{ sms_per_day: -1 }, 'sms_per_day'],
      [{ sms_per_day: 1001 }, 'sms_per_day'],
      [{ sms_per_day: null }, 'sms_per_day'],
      [{ waitlist_offer_minutes: 1441 }, 'waitlist_offer_minutes'],
      [{ website: 'http://venue.example' }, 'website'],
      [{ website: 'javascript:alert(1)' }, 'website'],
      [{ website: 'https://' }, 'website'],
      [{ website: 'https://venue.example/a b' }, 'website'],
      [{ website: `https://venue.example/${'p'.repeat(1980)}` }, 'website'],
      [{ logo_url: 'ftp://venue.example/logo.png' }, 'logo_url'],
      [{ logo_url: '//venue.example/logo.png' }, 'logo_url'],
      [{ logo_url: 42 }, 'logo_url'],
      [{ turn_times: [{ min_party: 0, max_party: 4, duration_minutes: 90 }] }, 'turn_times[0].min_party'],
      [{ turn_times: [{ min_party: 1, max_party: 51, duration_minutes: 90 }] }, 'turn_times[0].max_party'],
      [
        { turn_times: [{ min_party: 1, max_party: 4, duration_minutes: 14 }] },
        'turn_times[0].duration_minutes',
      ],
      [
        { turn_times: [{ min_party: 1, max_party: 4, duration_minutes: 361 }] },
        'turn_times[0].duration_minutes',
      ],
      [{ turn_times: [{ min_party: 1, max_party: 4 }] }, 'turn_times[0].duration_minutes'],
      [
        { turn_times: [{ min_party: 1, max_party: 4, duration_minutes: 90, service_id: null }] },
        'turn_times[0].service_id',
      ],
      [{ turn_times: { min_party: 1, max_party: 4, duration_minutes: 90 } }, 'turn_times'],
      [{ turn_times: [{ min_party: 5, max_party: 4, duration_minutes: 90 }] }, 'turn_times[0].min_party'],
      [
        {
          turn_times: [
            { min_party: 1, max_party: 4, duration_minutes: 90 },
            { min_party: 4, max_party: 8, duration_minutes: 120 },
          ],
        },
        'turn_times[1]',
      ],
      [
        {
          turn_times: [
            { min_party: 1, max_party: 10, duration_minutes: 90 },
            { min_party: 2, max_party: 3, duration_minutes: 60 },
            { min_party: 6, max_party: 12, duration_minutes: 120 },
          ],
        },
        'turn_times[2]',
      ],
      [
        {
          turn_times: [
            { min_party: 7, max_party: 8, duration_minutes: 120 },
            { min_party: 1, max_party: 8, duration_minutes: 90 },
          ],
        },
        'turn_times[0]',
      ],
    ];
    for (const [change, field] of cases) {
      it(`rejects ${JSON.stringify(change)}, naming ${field}, and changes nothing`, async () => {
        const tenant = await createTenant(ctx.app);
        const response = await call(tenant, 'PATCH', { buffer_minutes: 15, ...change });
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.code, 'validation_error');
        assert.ok(
          response.json().error.fields.some((f: { field: string }) => f.field === field),
          response.body,
        );
        assert.deepEqual((await call(tenant, 'GET')).json(), DEFAULTS);
      });
    }

    it('refuses deposits without a payment account that can take charges, except on a sandbox', async () => {
      const tenant = await createTenant(ctx.app);
      const sandbox = await createTenant(ctx.app, { is_dev: true });
      const onboarding = await createTenant(ctx.app);
      await connectPaymentAccount(ctx.app, onboarding.businessId, { ready: false });
      for (const deposit_type of ['charge', 'authorization_hold']) {
        for (const refused of [tenant, onboarding]) {
          const response = await call(refused, 'PATCH', { deposit_type, buffer_minutes: 15 });
          assert.equal(response.statusCode, 422, response.body);
          assert.equal(response.json().error.code, 'deposits_not_enabled');
          assert.match(response.json().error.message, /POST \/v1\/billing\/connect\/onboard/);
          assert.deepEqual((await call(refused, 'GET')).json(), DEFAULTS);
        }
        const response = await call(sandbox, 'PATCH', { deposit_type });
        assert.equal(response.statusCode, 200, response.body);
      }
      assert.equal((await call(tenant, 'PATCH', { deposit_type: 'none' })).statusCode, 200);
    });

    it('checks the capacity range against the stored values', async () => {
      const tenant = await createTenant(ctx.app);
      assert.equal((await call(tenant, 'PATCH', { min_capacity: 10 })).statusCode, 200);
      const lower = await call(tenant, 'PATCH', { max_capacity: 8 });
      assert.equal(lower.statusCode, 422, lower.body);
      assert.equal(lower.json().error.fields[0].field, 'max_capacity');
      assert.equal((await call(tenant, 'PATCH', { max_capacity: 10 })).statusCode, 200);
      const raise = await call(tenant, 'PATCH', { min_capacity: 11 });
      assert.equal(raise.statusCode, 422, raise.body);
      assert.equal(raise.json().error.fields[0].field, 'min_capacity');
    });
  });

  describe('max_online_party_size', () => {
    it('follows max_capacity while unset; a set limit stays inside the party range, or the change is refused', async () => {
      const tenant = await createTenant(ctx.app);
      assert.equal((await call(tenant, 'PATCH', { max_capacity: 6 })).statusCode, 200);
      assert.equal((await call(tenant, 'PATCH', { max_online_party_size: 4 })).statusCode, 200);
      const lower = await call(tenant, 'PATCH', { max_capacity: 3 });
      assert.equal(lower.statusCode, 422, lower.body);
      assert.deepEqual(
        lower.json().error.fields.map((f: { field: string }) => f.field),
        ['max_capacity'],
      );
      assert.match(lower.json().error.message, /max_online_party_size \(4\)/);
      const raise = await call(tenant, 'PATCH', { min_capacity: 5 });
      assert.equal(raise.statusCode, 422, raise.body);
      assert.deepEqual(
        raise.json().error.fields.map((f: { field: string }) => f.field),
        ['min_capacity'],
      );
      assert.equal((await call(tenant, 'GET')).json().max_capacity, 6);
      const both = await call(tenant, 'PATCH', { max_capacity: 3, max_online_party_size: 2 });
      assert.equal(both.statusCode, 200, both.body);
      const follow = await call(tenant, 'PATCH', { max_online_party_size: null, max_capacity: 2 });
      assert.equal(follow.statusCode, 200, follow.body);
      assert.equal(follow.json().max_online_party_size, null);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'PATCH',
        url: '/v1/manage/settings',
        payload: PROFILE,
        scope: 'write',
        staff: false,
      }),
    });

    it("changes only the caller's own business", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      assert.equal((await call(tenant, 'PATCH', PROFILE)).statusCode, 200);
      assert.deepEqual((await call(other, 'GET')).json(), DEFAULTS);
      const read = await ctx.app.inject({ method: 'GET', url: `/v1/public/business/${other.slug}` });
      assert.equal(read.json().phone, null);
      assert.equal(read.json().max_online_party_size, 50);
    });

    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'PATCH',
        url: '/v1/manage/settings',
        payload: { buffer_minutes: 10 },
        scope: 'write',
        staff: false,
      }),
    });
  });
});

describe('canonicalTimeZone', () => {
  it('answers the spelling of the zone data for names Intl and the database both know', async () => {
    for (const [name, spelled] of [
      ['UTC', 'UTC'],
      ['Europe/Berlin', 'Europe/Berlin'],
      ['europe/berlin', 'Europe/Berlin'],
      ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
      ['Etc/GMT+5', 'Etc/GMT+5'],
      ['US/Pacific', 'US/Pacific'],
      ['Asia/Kolkata', 'Asia/Kolkata'],
    ] as const) {
      assert.equal(await canonicalTimeZone(ctx.app.db, name), spelled, name);
    }
  });

  it('refuses offsets, inventions and names only one of Intl and the database knows', async () => {
    for (const name of [
      '',
      '+02:00',
      'Europe/Atlantis',
      'UTC; DROP TABLE',
      '../etc/passwd',
      'US/Pacific-New',
      'Foo+3',
      'PST',
    ]) {
      assert.equal(await canonicalTimeZone(ctx.app.db, name), undefined, name);
    }
  });
});
