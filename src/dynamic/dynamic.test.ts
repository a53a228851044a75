import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  type BookableBusiness,
  type BookableOptions,
  daysFromNow,
  guest,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import {
  bearer,
  bookingsCounted,
  createKey,
  createTenant,
  createTestApp,
  eventually,
  itChecksAuth,
  RACE,
  type TestContext,
} from '../../test/helpers.ts';
import { setSubscription } from '../billing/subscription.service.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());
beforeEach(() => ctx.reset());

const DAY = daysFromNow(7);

/** A business open 09:00-17:00 every day with tables T2, T4, T6, booking in dynamic mode. */
const setupDynamic = (options: BookableOptions = {}) =>
  setupBookable(ctx.app, { ...options, settings: { booking_mode: 'dynamic', ...options.settings } });

const ONE_TABLE = { resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }] };

type Query = Record<string, string | number | undefined>;

/** `GET /v1/dynamic/availability` for 10:07 on DAY; `query` overrides, `undefined` leaves a field out. */
const startCheck = (biz: BookableBusiness, query: Query = {}, headers = biz.tenant.headers) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ booking_date: DAY, start_time: '10:07', ...query })) {
    if (value !== undefined) params.set(name, String(value));
  }
  return ctx.app.inject({
    method: 'GET',
    url: `/v1/dynamic/availability/${biz.tenant.businessId}?${params}`,
    headers,
  });
};

/** The answer of a start check that must succeed. */
async function checkOk(biz: BookableBusiness, query: Query = {}) {
  const response = await startCheck(biz, query);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const book = (biz: BookableBusiness, body: Record<string, unknown> = {}, headers = biz.tenant.headers) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/dynamic/bookings',
    headers,
    payload: {
      business_id: biz.tenant.businessId,
      booking_date: DAY,
      start_time: '10:07',
      capacity: 2,
      ...guest(),
      ...body,
    },
  });

async function bookOk(biz: BookableBusiness, body: Record<string, unknown> = {}) {
  const response = await book(biz, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().booking;
}

async function call(biz: BookableBusiness, method: 'POST' | 'PATCH' | 'PUT', url: string, payload: unknown) {
  const response = await ctx.app.inject({
    method,
    url,
    headers: biz.tenant.headers,
    payload: payload as object,
  });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

const blackOut = (biz: BookableBusiness, date: string) =>
  call(biz, 'POST', '/v1/manage/blackout-dates', {
    start_date: date,
    end_date: date,
    reason: 'Private event',
  });

/** The business's developer moves to the pro plan (no dynamic mode). */
async function moveToPro(biz: BookableBusiness) {
  await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
    status: 'active',
    planId: 'pro',
  });
  // A key verified before learns of the change from the change feed, a moment after the commit.
  await eventually(
    async () => (await startCheck(biz)).statusCode === 402,
    'the plan change to reach the key',
  );
}

interface Answer {
  statusCode: number;
  body: string;
  json(): { error: { code: string; fields?: { field: string }[] } };
}

/** The response is the error `code` with its `status`. */
function assertError(response: Answer, status: number, code: string, label = '') {
  assert.equal(response.statusCode, status, `${label} ${response.body}`);
  assert.equal(response.json().error.code, code, label);
}

/** Each input is refused with a validation error naming its field. */
async function assertNamesFields<T>(cases: [T, string][], send: (input: T) => Promise<Answer>) {
  for (const [input, field] of cases) {
    const response = await send(input);
    assertError(response, 422, 'validation_error', JSON.stringify(input));
    const named = response.json().error.fields?.map((f) => f.field) ?? [];
    assert.ok(named.includes(field), `${JSON.stringify(input)}: ${response.body}`);
  }
}

/** A sandbox (`is_dev`) business in dynamic mode with one table, its developer on the free plan. */
async function setupSandbox(): Promise<BookableBusiness> {
  const tenant = await createTenant(ctx.app, { name: 'Sandbox Bistro', is_dev: true });
  await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
    status: 'active',
    planId: 'free',
  });
  const biz: BookableBusiness = { tenant, resources: {} };
  await call(biz, 'PATCH', '/v1/manage/settings', { booking_mode: 'dynamic' });
  await call(
    biz,
    'PUT',
    '/v1/manage/hours',
    [0, 1, 2, 3, 4, 5, 6].map((day) => ({
      day_of_week: day,
      is_open: true,
      open_time: '09:00',
      close_time: '17:00',
    })),
  );
  biz.resources.Only = (
    await call(biz, 'POST', '/v1/manage/resources', { name: 'Only', capacity_min: 1, capacity_max: 4 })
  ).id;
  return biz;
}

/** The next last Sunday of March (Europe's spring-forward night) at least two days ahead. */
function nextSpringForward(): string {
  const year = new Date().getUTCFullYear();
  for (const y of [year, year + 1]) {
    const last = new Date(Date.UTC(y, 2, 31));
    last.setUTCDate(31 - last.getUTCDay());
    if (last.getTime() > Date.now() + 2 * 86_400_000) return last.toISOString().slice(0, 10);
  }
  throw new Error('no spring-forward date ahead');
}

describe('GET /v1/dynamic/availability/{business_id}', () => {
  describe('200', () => {
    it('checks any minute and lists the free fitting resources by display order', async () => {
      const biz = await setupDynamic();
      await call(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T6}`, { display_order: 0 });
      const body = await checkOk(biz, { start_time: '10:07', duration_minutes: 95, capacity: 2 });
      assert.deepEqual(body, {
        business_id: biz.tenant.businessId,
        booking_date: DAY,
        start_time: '10:07',
        duration_minutes: 95,
        capacity: 2,
        available: true,
        remaining_resources: 3,
        free_resources: ['T6', 'T2', 'T4'],
        reason: null,
      });
      const defaults = await checkOk(biz, { booking_date: undefined, date: DAY, start_time: '16:00' });
      assert.equal(defaults.duration_minutes, 60);
      assert.equal(defaults.capacity, 1);
      assert.deepEqual(defaults.free_resources, ['T2', 'T4'], 'T6 takes parties of 2 to 6');
      assert.deepEqual((await checkOk(biz, { capacity: 5 })).free_resources, ['T6']);
    });

    it('answers available:false with the reason for a start that cannot be booked', async () => {
      const biz = await setupDynamic({
        ...ONE_TABLE,
        settings: { booking_window_days: 10, min_notice_hours: 48 },
      });
      await blackOut(biz, daysFromNow(8));
      const refused = async (query: Query) => {
        const body = await checkOk(biz, query);
        assert.equal(body.available, false, JSON.stringify(query));
        assert.equal(body.remaining_resources, 0);
        assert.deepEqual(body.free_resources, []);
        return body.reason;
      };
      assert.equal(await refused({ start_time: '08:59' }), 'outside_operating_hours');
      assert.equal(await refused({ start_time: '16:01' }), 'outside_operating_hours', 'ends after closing');
      assert.equal(await refused({ booking_date: daysFromNow(8) }), 'outside_operating_hours', 'blackout');
      assert.equal(await refused({ booking_date: daysFromNow(11) }), 'outside_booking_window');
      assert.equal(await refused({ booking_date: daysFromNow(1) }), 'outside_booking_window', 'notice');
      assert.equal(await refused({ booking_date: daysFromNow(-1) }), 'outside_booking_window', 'past');
      assert.equal((await checkOk(biz, { start_time: '16:01', duration_minutes: 59 })).available, true);
      await bookOk(biz, { start_time: '10:00' });
      assert.equal(await refused({ start_time: '10:59', duration_minutes: 5 }), 'slot_unavailable');
    });

    it('keeps the buffer after a booking, and a new booking counts at once', async () => {
      const biz = await setupDynamic({ ...ONE_TABLE, settings: { buffer_minutes: 15 } });
      assert.equal((await checkOk(biz, { start_time: '11:10' })).available, true, 'asked before the booking');
      await bookOk(biz, { start_time: '10:00', duration_minutes: 60 });
      assert.equal((await checkOk(biz, { start_time: '11:10' })).reason, 'slot_unavailable');
      assert.deepEqual((await checkOk(biz, { start_time: '11:15' })).free_resources, ['Only']);
      assert.equal(
        (await checkOk(biz, { start_time: '09:00', duration_minutes: 50 })).available,
        false,
        "the new booking's own buffer would run into 10:00",
      );
      assert.equal((await checkOk(biz, { start_time: '09:00', duration_minutes: 45 })).available, true);
    });

    it('leaves out a resource while an external block covers it', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      await call(biz, 'POST', `/v1/manage/resources/${biz.resources.Only}/blocks`, {
        start_at: `${DAY}T12:00:00Z`,
        end_at: `${DAY}T14:00:00Z`,
        reason: 'maintenance',
        source: 'calendar',
      });
      assert.equal((await checkOk(biz, { start_time: '11:30', duration_minutes: 30 })).available, true);
      assert.equal(
        (await checkOk(biz, { start_time: '11:31', duration_minutes: 30 })).reason,
        'slot_unavailable',
      );
      assert.equal((await checkOk(biz, { start_time: '13:59', duration_minutes: 5 })).available, false);
      assert.equal((await checkOk(biz, { start_time: '14:00' })).available, true);
    });

    it('takes overnight hours and the last booking time', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      await call(
        biz,
        'PUT',
        '/v1/manage/hours',
        [0, 1, 2, 3, 4, 5, 6].map((day) => ({
          day_of_week: day,
          is_open: true,
          open_time: '18:00',
          close_time: '02:00',
          last_booking_time: '01:00',
        })),
      );
      assert.equal((await checkOk(biz, { start_time: '23:47' })).available, true);
      assert.equal((await checkOk(biz, { start_time: '01:00' })).available, true, 'ends at closing');
      assert.equal(
        (await checkOk(biz, { start_time: '01:01', duration_minutes: 5 })).reason,
        'outside_operating_hours',
      );
      assert.equal(
        (await checkOk(biz, { start_time: '00:31', duration_minutes: 90 })).reason,
        'outside_operating_hours',
      );
      assert.equal((await checkOk(biz, { start_time: '17:59' })).reason, 'outside_operating_hours');
      const booking = await bookOk(biz, { start_time: '00:15', duration_minutes: 100 });
      assert.equal(booking.booking_date, DAY, 'the night belongs to the day it opens');
      assert.equal(booking.end_time, '01:55');
      assert.equal(Date.parse(booking.starts_at) - Date.parse(`${DAY}T00:15:00Z`), 86_400_000);
    });

    it('refuses a time the clocks skip on the spring-forward night, and counts real minutes across it', async () => {
      const night = nextSpringForward();
      const biz = await setupDynamic({
        ...ONE_TABLE,
        settings: { timezone: 'Europe/Berlin', booking_window_days: 365 },
        open: '00:00',
        close: '06:00',
      });
      const gap = await checkOk(biz, { booking_date: night, start_time: '02:30', duration_minutes: 30 });
      assert.equal(gap.available, false);
      assert.equal(gap.reason, 'outside_operating_hours');
      const refused = await book(biz, { booking_date: night, start_time: '02:30', duration_minutes: 30 });
      assertError(refused, 422, 'outside_operating_hours');
      assert.equal((await checkOk(biz, { booking_date: night, start_time: '03:00' })).available, true);
      const across = await bookOk(biz, { booking_date: night, start_time: '01:30', duration_minutes: 60 });
      assert.equal(across.end_time, '03:30', '60 real minutes from 01:30 CET end at 03:30 CEST');
      assert.equal(Date.parse(across.ends_at) - Date.parse(across.starts_at), 3_600_000);
    });

    it('drops a deactivated resource at once', async () => {
      const biz = await setupDynamic();
      assert.deepEqual((await checkOk(biz, { capacity: 2 })).free_resources, ['T2', 'T4', 'T6']);
      await call(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T4}`, { is_active: false });
      const after = await checkOk(biz, { capacity: 2 });
      assert.deepEqual(after.free_resources, ['T2', 'T6']);
      assert.equal(after.remaining_resources, 2);
    });

    it('is open to a sandbox business on the free plan', async () => {
      const biz = await setupSandbox();
      assert.deepEqual((await checkOk(biz)).free_resources, ['Only']);
    });
  });

  describe('400', () => {
    it('refuses a business that books on its slot grid', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await startCheck(biz);
      assertError(response, 400, 'bad_request');
      assert.match(response.json().error.message, /slot grid.*\/v1\/availability/);
    });
  });

  describe('402', () => {
    it('refuses a plan without dynamic mode, before looking at the booking mode', async () => {
      const biz = await setupDynamic();
      const scheduled = await setupBookable(ctx.app);
      await moveToPro(biz);
      await moveToPro(scheduled);
      for (const business of [biz, scheduled]) {
        const response = await startCheck(business);
        assertError(response, 402, 'plan_upgrade_required');
      }
    });
  });

  describe('404', () => {
    it("answers not_found for another business's id", async () => {
      const biz = await setupDynamic();
      const other = await setupDynamic();
      const response = await startCheck(other, {}, biz.tenant.headers);
      assertError(response, 404, 'not_found');
    });
  });

  describe('422', () => {
    it('refuses bad lengths, times, dates, party sizes and unknown fields, naming each', async () => {
      const biz = await setupDynamic({ settings: { max_capacity: 4 } });
      const cases: [Query, string][] = [
        [{ duration_minutes: 4 }, 'duration_minutes'],
        [{ duration_minutes: 481 }, 'duration_minutes'],
        [{ duration_minutes: 30.5 }, 'duration_minutes'],
        [{ start_time: '10:7' }, 'start_time'],
        [{ start_time: '24:00' }, 'start_time'],
        [{ start_time: '' }, 'start_time'],
        [{ booking_date: '2030-02-30' }, 'booking_date'],
        [{ booking_date: '' }, 'booking_date'],
        [{ capacity: 51 }, 'capacity'],
        [{ capacity: 5 }, 'capacity'],
        [{ view: 'resources' }, 'view'],
      ];
      await assertNamesFields(cases, (query) => startCheck(biz, query));
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupDynamic();
        return {
          tenant: biz.tenant,
          route: {
            method: 'GET',
            url: `/v1/dynamic/availability/${biz.tenant.businessId}?booking_date=${DAY}&start_time=10:07`,
            scope: 'read',
            staff: true,
          },
        };
      },
    );
  });
});

describe('POST /v1/dynamic/bookings', () => {
  describe('201', () => {
    it('books any minute for its own length on the best fit, confirmed, online, audited and counted', async () => {
      const biz = await setupDynamic();
      const response = await book(biz, {
        start_time: '10:07',
        duration_minutes: 95,
        customer_notes: 'quiet',
      });
      assert.equal(response.statusCode, 201, response.body);
      const { booking } = response.json();
      assert.equal(booking.start_time, '10:07');
      assert.equal(booking.end_time, '11:42');
      assert.equal(booking.duration_minutes, 95);
      assert.equal(booking.resource_id, biz.resources.T2);
      assert.equal(booking.status, 'confirmed');
      assert.equal(booking.source, 'online');
      assert.equal(booking.capacity, 2);
      assert.equal(booking.customer_notes, 'quiet');
      assert.match(booking.confirmation_code, /^[A-Z2-9]{8}$/);
      const audit = await ctx.database.db
        .selectFrom('audit_logs')
        .select('action')
        .where('entity_id', '=', booking.id)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['booking.created'],
      );
      assert.equal(
        await bookingsCounted(ctx.database.db, biz.tenant.developer.id),
        1,
        'counted against the monthly quota',
      );
    });

    it('takes the customer nested, 60 minutes by default, and is pending without auto-confirm', async () => {
      const biz = await setupDynamic({ settings: { auto_confirm_bookings: false } });
      const { first_name, last_name, email, phone } = guest();
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/dynamic/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: DAY,
          start_time: '13:13',
          capacity: 4,
          customer: { first_name, last_name, email, phone },
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      const { booking } = response.json();
      assert.equal(booking.end_time, '14:13');
      assert.equal(booking.duration_minutes, 60);
      assert.equal(booking.status, 'pending');
      assert.equal(booking.customer.phone, phone);
      assert.equal(booking.resource_id, biz.resources.T4);
    });

    it('is open to a sandbox business on the free plan', async () => {
      const biz = await setupSandbox();
      assert.equal((await bookOk(biz)).resource_id, biz.resources.Only);
    });
  });

  describe('400', () => {
    it('refuses a business that books on its slot grid and writes nothing', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await book(biz);
      assertError(response, 400, 'bad_request');
      assert.match(response.json().error.message, /\/v1\/bookings/);
      const bookings = await ctx.database.db.selectFrom('bookings').select('id').execute();
      assert.equal(bookings.length, 0);
    });
  });

  describe('402', () => {
    it('refuses a plan without dynamic mode', async () => {
      const biz = await setupDynamic();
      await moveToPro(biz);
      const response = await book(biz);
      assertError(response, 402, 'plan_upgrade_required');
    });
  });

  describe('404', () => {
    it("answers not_found for another business's id", async () => {
      const biz = await setupDynamic();
      const other = await setupDynamic();
      const response = await book(biz, { business_id: other.tenant.businessId });
      assertError(response, 404, 'not_found');
    });
  });

  describe('409', () => {
    it('answers slot_unavailable with detail beside error when no resource is free', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      await bookOk(biz, { start_time: '10:00' });
      const response = await book(biz, { start_time: '10:59', duration_minutes: 5 });
      assert.equal(response.statusCode, 409, response.body);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['detail', 'error']);
      assert.equal(body.error.code, 'slot_unavailable');
      assert.equal(typeof body.detail, 'string');
      assert.equal(body.error.message, body.detail);
      assert.equal((await book(biz, { start_time: '11:00' })).statusCode, 201);
    });

    it(
      'lets simultaneous overlapping bookings on two resources through only where they fit',
      RACE,
      async () => {
        const biz = await setupDynamic({
          settings: { buffer_minutes: 10 },
          resources: [
            { name: 'A', capacity_min: 1, capacity_max: 4 },
            { name: 'B', capacity_min: 1, capacity_max: 4 },
          ],
        });
        const key = await createKey(ctx.app, biz.tenant, ['write'], { rate_limit_per_minute: 1000 });
        const requests = Array.from({ length: 30 }, (_, i) => {
          const minute = 9 * 60 + ((i * 37) % 180);
          const time = `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
          return {
            start_time: time,
            duration_minutes: 20 + ((i * 23) % 90),
            phone: `+1 555 200 ${1000 + i}`,
          };
        });
        const responses = await Promise.all(requests.map((body) => book(biz, body, bearer(key))));
        const outcomes = responses.map((r) => (r.statusCode === 201 ? 201 : `${r.statusCode} ${r.body}`));
        assert.ok(
          responses.every((r) => r.statusCode === 201 || r.statusCode === 409),
          JSON.stringify(outcomes),
        );
        const won = responses.filter((r) => r.statusCode === 201).length;
        assert.ok(won > 0 && won < 30, JSON.stringify(outcomes));
        const held = await ctx.database.db
          .selectFrom('bookings')
          .select([
            'resource_id',
            sql<number>`extract(epoch from lower(during))`.as('from'),
            sql<number>`extract(epoch from upper(during))`.as('to'),
          ])
          .where('business_id', '=', biz.tenant.businessId)
          .where('status', 'in', ['pending', 'confirmed', 'checked_in'])
          .orderBy('resource_id')
          .orderBy('from')
          .execute();
        assert.equal(held.length, won, 'every 201 is a stored booking and nothing else is');
        for (let i = 1; i < held.length; i++) {
          const [before, next] = [held[i - 1]!, held[i]!];
          if (before.resource_id !== next.resource_id) continue;
          assert.ok(
            Number(before.to) <= Number(next.from),
            `overlap on one resource: ${JSON.stringify(held)}`,
          );
        }
      },
    );
  });

  describe('422', () => {
    it('refuses bad lengths and times, a missing party and unknown fields, naming each', async () => {
      const biz = await setupDynamic();
      const cases: [Record<string, unknown>, string][] = [
        [{ duration_minutes: 4 }, 'duration_minutes'],
        [{ duration_minutes: 481 }, 'duration_minutes'],
        [{ duration_minutes: '60' }, 'duration_minutes'],
        [{ start_time: '9:30' }, 'start_time'],
        [{ start_time: '10:60' }, 'start_time'],
        [{ capacity: undefined }, 'capacity'],
        [{ capacity: 51 }, 'capacity'],
        [{ customer_notes: 'x'.repeat(1001) }, 'customer_notes'],
        [{ service_id: biz.resources.T2 }, 'service_id'],
        [{ table: 'by the window' }, 'table'],
      ];
      await assertNamesFields(cases, (body) => book(biz, body));
    });

    it('refuses starts outside hours, ending after closing, on a blackout and outside notice or window', async () => {
      const biz = await setupDynamic({ settings: { booking_window_days: 10, min_notice_hours: 48 } });
      await blackOut(biz, daysFromNow(8));
      const cases: [Record<string, unknown>, string][] = [
        [{ start_time: '08:59' }, 'outside_operating_hours'],
        [{ start_time: '17:00', duration_minutes: 5 }, 'outside_operating_hours'],
        [{ start_time: '16:31', duration_minutes: 30 }, 'outside_operating_hours'],
        [{ booking_date: daysFromNow(8) }, 'outside_operating_hours'],
        [{ booking_date: daysFromNow(11) }, 'outside_booking_window'],
        [{ booking_date: daysFromNow(1) }, 'outside_booking_window'],
      ];
      for (const [body, code] of cases) {
        const response = await book(biz, body);
        assertError(response, 422, code, JSON.stringify(body));
      }
      assert.equal((await book(biz, { start_time: '16:31', duration_minutes: 29 })).statusCode, 201);
    });

    it("refuses a party outside the business's limits", async () => {
      const biz = await setupDynamic({ settings: { min_capacity: 2, max_capacity: 4 } });
      for (const capacity of [1, 5]) {
        const response = await book(biz, { capacity });
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.fields[0].field, 'capacity');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupDynamic();
        return {
          tenant: biz.tenant,
          route: {
            method: 'POST',
            url: '/v1/dynamic/bookings',
            payload: {
              business_id: biz.tenant.businessId,
              booking_date: DAY,
              start_time: '10:07',
              capacity: 2,
              ...guest(),
            },
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});

describe('PATCH /v1/manage/bookings/{id} of a dynamic booking', () => {
  describe('200', () => {
    it('moves it to any minute and keeps its own length', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      const booking = await bookOk(biz, { start_time: '10:07', duration_minutes: 95 });
      const moved = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
        payload: { start_time: '13:11' },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(moved.json().start_time, '13:11');
      assert.equal(moved.json().end_time, '14:46');
      assert.equal(moved.json().duration_minutes, 95);
      assert.equal((await checkOk(biz, { start_time: '14:45', duration_minutes: 5 })).available, false);
      assert.equal((await checkOk(biz, { start_time: '10:07' })).available, true);
    });
  });

  describe('422', () => {
    it('refuses a move whose own length would run past closing time', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      const booking = await bookOk(biz, { start_time: '10:07', duration_minutes: 95 });
      const moved = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
        payload: { start_time: '15:30' },
      });
      assert.equal(moved.statusCode, 422, moved.body);
      assert.equal(moved.json().error.code, 'outside_operating_hours');
    });
  });
});
