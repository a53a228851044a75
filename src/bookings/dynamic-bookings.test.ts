import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { daysFromNow, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { DAY, dynamicFixtures, ONE_TABLE } from '../../test/dynamic-fixtures.ts';
import {
  assertError,
  assertNamesFields,
  bearer,
  bookingsCounted,
  createKey,
  itChecksAuth,
  RACE,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const { setupDynamic, checkOk, book, bookOk, blackOut, moveToPro, setupSandbox } = dynamicFixtures(
  () => ctx.app,
);

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
