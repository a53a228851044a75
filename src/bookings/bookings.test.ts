import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BookableBusiness,
  daysFromNow,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { bearer, createKey, createTenant, itChecksAuth, RACE, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const DAY = daysFromNow(7);

const book = (biz: BookableBusiness, body: Record<string, unknown> = {}, headers = biz.tenant.headers) =>
  postBooking(ctx.app, biz, body, headers);

describe('POST /v1/bookings', () => {
  describe('201', () => {
    it('books the best-fitting free resource, confirmed, with a code, its customer and an audit row', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await book(biz, { capacity: 3, customer_notes: 'window seat' });
      assert.equal(response.statusCode, 201, response.body);
      const { booking } = response.json();
      assert.equal(booking.status, 'confirmed');
      assert.equal(booking.resource_id, biz.resources.T4);
      assert.match(booking.confirmation_code, /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
      assert.equal(booking.booking_date, DAY);
      assert.equal(booking.start_time, '12:00');
      assert.equal(booking.end_time, '13:00');
      assert.equal(booking.source, 'online');
      assert.equal(booking.customer_notes, 'window seat');
      const stored = await ctx.database.db
        .selectFrom('bookings')
        .selectAll()
        .where('id', '=', booking.id)
        .executeTakeFirst();
      assert.ok(stored);
      const customer = await ctx.database.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', stored.customer_id)
        .executeTakeFirst();
      assert.equal(customer?.first_name, 'Grace');
      const audit = await ctx.database.db
        .selectFrom('audit_logs')
        .selectAll()
        .where('entity_id', '=', booking.id)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['booking.created'],
      );
    });

    it('accepts the customer nested in `customer`', async () => {
      const biz = await setupBookable(ctx.app);
      const { first_name, last_name, email, phone } = guest();
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: DAY,
          start_time: '10:30',
          customer: { first_name, last_name, email, phone },
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().booking.customer.phone, phone);
      assert.equal(response.json().booking.capacity, 1);
    });

    it('is pending when the business does not auto-confirm', async () => {
      const biz = await setupBookable(ctx.app, { settings: { auto_confirm_bookings: false } });
      const response = await book(biz);
      assert.equal(response.json().booking.status, 'pending');
    });

    it('matches a returning customer by phone and takes the latest name', async () => {
      const biz = await setupBookable(ctx.app);
      const first = await book(biz, { phone: '+49 (30) 777-1234', start_time: '10:00' });
      const second = await book(biz, { phone: '+4930 7771234', first_name: 'Greta', start_time: '14:00' });
      assert.equal(first.json().booking.customer_id, second.json().booking.customer_id);
      assert.equal(second.json().booking.customer.first_name, 'Greta');
      assert.deepEqual(first.json().booking.guest, {
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.com',
      });
      assert.equal(second.json().booking.guest.first_name, 'Greta');
    });

    it('uses the service length and the requested resource', async () => {
      const biz = await setupBookable(ctx.app);
      const service = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Tasting menu', duration_minutes: 150 },
      });
      assert.equal(service.statusCode, 201, service.body);
      const response = await book(biz, { service_id: service.json().id, resource_id: biz.resources.T6 });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().booking.end_time, '14:30');
      assert.equal(response.json().booking.resource_id, biz.resources.T6);
    });
  });

  describe('409', () => {
    it('answers slot_unavailable when every fitting resource is taken, then uses the next best fit', async () => {
      const biz = await setupBookable(ctx.app);
      assert.equal((await book(biz, { capacity: 2 })).json().booking.resource_id, biz.resources.T2);
      assert.equal((await book(biz, { capacity: 2 })).json().booking.resource_id, biz.resources.T4);
      assert.equal((await book(biz, { capacity: 2 })).json().booking.resource_id, biz.resources.T6);
      const full = await book(biz, { capacity: 2 });
      assert.equal(full.statusCode, 409);
      assert.equal(full.json().error.code, 'slot_unavailable');
      const overlapping = await book(biz, { capacity: 2, start_time: '12:30' });
      assert.equal(overlapping.statusCode, 409);
      assert.equal((await book(biz, { capacity: 2, start_time: '13:00' })).statusCode, 201);
    });

    it('lets exactly one of 60 simultaneous bookings of the last resource win', RACE, async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
      });
      const key = await createKey(ctx.app, biz.tenant, ['write'], { rate_limit_per_minute: 1000 });
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          book(biz, { start_time: '15:00', phone: `+1 555 000 ${1000 + i}` }, bearer(key)),
        ),
      );
      const statuses = responses.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 409).length, 59);
      for (const r of responses.filter((x) => x.statusCode === 409))
        assert.equal(r.json().error.code, 'slot_unavailable');
      const stored = await ctx.database.db
        .selectFrom('bookings')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('business_id', '=', biz.tenant.businessId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), 1);
    });

    it('spreads simultaneous bookings over free resources without overlap', RACE, async () => {
      const biz = await setupBookable(ctx.app, {
        resources: Array.from({ length: 5 }, (_, i) => ({ name: `R${i}`, capacity_min: 1, capacity_max: 4 })),
      });
      const key = await createKey(ctx.app, biz.tenant, ['write'], { rate_limit_per_minute: 1000 });
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          book(biz, { start_time: '11:00', phone: `+1 555 100 ${1000 + i}` }, bearer(key)),
        ),
      );
      const winners = responses.filter((r) => r.statusCode === 201).map((r) => r.json().booking.resource_id);
      const outcomes = responses.map((r) => (r.statusCode === 201 ? 201 : `${r.statusCode} ${r.body}`));
      assert.equal(winners.length, 5, JSON.stringify(outcomes));
      assert.equal(new Set(winners).size, 5);
      assert.ok(responses.every((r) => r.statusCode === 201 || r.statusCode === 409));
    });
  });

  describe('422', () => {
    it('refuses a start off the slot grid with validation_error', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await book(biz, { start_time: '12:10' });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.code, 'validation_error');
    });

    it('refuses starts outside hours, after the last start, on a blackout and on a closed day', async () => {
      const biz = await setupBookable(ctx.app);
      for (const time of ['08:00', '16:30', '17:00']) {
        const response = await book(biz, { start_time: time });
        assert.equal(response.statusCode, 422, time);
        assert.equal(response.json().error.code, 'outside_operating_hours', time);
      }
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/blackout-dates',
        headers: biz.tenant.headers,
        payload: { start_date: DAY, end_date: DAY, reason: 'Private event' },
      });
      const blackout = await book(biz);
      assert.equal(blackout.json().error.code, 'outside_operating_hours');
    });

    it('refuses dates beyond the booking window and starts inside minimum notice', async () => {
      const biz = await setupBookable(ctx.app, {
        settings: { booking_window_days: 3, min_notice_hours: 48 },
      });
      const far = await book(biz);
      assert.equal(far.statusCode, 422);
      assert.equal(far.json().error.code, 'outside_booking_window');
      const soon = await book(biz, { booking_date: daysFromNow(1) });
      assert.equal(soon.json().error.code, 'outside_booking_window');
    });

    it("refuses a party outside the business's limits and names missing customer fields", async () => {
      const biz = await setupBookable(ctx.app, { settings: { max_capacity: 4 } });
      const big = await book(biz, { capacity: 5 });
      assert.equal(big.statusCode, 422);
      assert.equal(big.json().error.fields[0].field, 'capacity');
      const missing = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: DAY,
          start_time: '12:00',
          first_name: 'A',
        },
      });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(
        missing
          .json()
          .error.fields.map((f: { field: string }) => f.field)
          .sort(),
        ['email', 'last_name', 'phone'],
      );
      const everything = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: biz.tenant.headers,
        payload: { business_id: biz.tenant.businessId, booking_date: DAY, start_time: '25:00' },
      });
      assert.deepEqual(
        everything
          .json()
          .error.fields.map((f: { field: string }) => f.field)
          .sort(),
        ['email', 'first_name', 'last_name', 'phone', 'start_time'],
      );
      const nested = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: DAY,
          start_time: '12:00',
          customer: { first_name: 'A', last_name: 'B', email: 'a@example.com' },
        },
      });
      assert.equal(nested.statusCode, 422);
      assert.deepEqual(
        nested.json().error.fields.map((f: { field: string }) => f.field),
        ['phone'],
      );
      const unknown = await book(biz, { table: 'by the window', capacity: 0 });
      assert.deepEqual(
        unknown
          .json()
          .error.fields.map((f: { field: string }) => f.field)
          .sort(),
        ['capacity', 'table'],
      );
    });

    it('writes nothing when a booking is refused', async () => {
      const biz = await setupBookable(ctx.app);
      await book(biz, { start_time: '08:00', phone: '+1 999 999 9999' });
      const customers = await ctx.database.db.selectFrom('customers').selectAll().execute();
      assert.equal(customers.length, 0);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's id", async () => {
      const biz = await setupBookable(ctx.app);
      const other = await createTenant(ctx.app);
      const response = await book(biz, { business_id: other.businessId });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.code, 'not_found');
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: {
            method: 'POST',
            url: '/v1/bookings',
            payload: {
              business_id: biz.tenant.businessId,
              booking_date: DAY,
              start_time: '12:00',
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

describe('POST /v1/manage/bookings/staff', () => {
  const staffBook = (biz: BookableBusiness, body: Record<string, unknown> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff',
      headers: biz.tenant.headers,
      payload: {
        date: DAY,
        time: '12:10',
        capacity: 2,
        first_name: 'Walk',
        last_name: 'In',
        phone: '0301234567',
        ...body,
      },
    });

  describe('201', () => {
    it('books any minute inside hours, ignoring notice, confirmed, source staff, audited', async () => {
      const biz = await setupBookable(ctx.app, { settings: { min_notice_hours: 168 } });
      const response = await staffBook(biz, {
        date: daysFromNow(1),
        email: 'not-an-email',
        notes: 'birthday',
      });
      assert.equal(response.statusCode, 201, response.body);
      const { booking } = response.json();
      assert.equal(booking.start_time, '12:10');
      assert.equal(booking.status, 'confirmed');
      assert.equal(booking.source, 'staff');
      assert.equal(booking.customer.email, 'not-an-email');
      const audit = await ctx.database.db
        .selectFrom('audit_logs')
        .select('action')
        .where('entity_id', '=', booking.id)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['booking.created_by_staff'],
      );
    });
  });

  describe('409', () => {
    it('answers slot_unavailable when nothing is free', async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Bar', capacity_min: 1, capacity_max: 2 }],
      });
      assert.equal((await staffBook(biz)).statusCode, 201);
      const second = await staffBook(biz, { time: '12:40' });
      assert.equal(second.statusCode, 409);
      assert.equal(second.json().error.code, 'slot_unavailable');
    });
  });

  describe('422', () => {
    it('names both date and time when neither comes, under either name', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: biz.tenant.headers,
        payload: { first_name: 'Walk', last_name: 'In', phone: '0301234567' },
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(
        response
          .json()
          .error.fields.map((f: { field: string }) => f.field)
          .sort(),
        ['date', 'time'],
      );
      const aliased = await staffBook(biz, {
        date: undefined,
        time: undefined,
        booking_date: DAY,
        start_time: '13:20',
      });
      assert.equal(aliased.statusCode, 201, aliased.body);
      assert.equal(aliased.json().booking.start_time, '13:20');
    });

    it('refuses a date more than 30 days back or more than two years ahead, in the business zone', async () => {
      const biz = await setupBookable(ctx.app, { settings: { timezone: 'Pacific/Auckland' } });
      const realClock = ctx.app.clock.now;
      // 2030-06-15 in Auckland (UTC+12) while it is still 2030-06-14 in UTC.
      ctx.app.clock.now = () => Date.parse('2030-06-14T20:00:00Z');
      try {
        for (const date of ['2030-05-15', '2032-06-16']) {
          const response = await staffBook(biz, { date });
          assert.equal(response.statusCode, 422, `${date}: ${response.body}`);
          assert.equal(response.json().error.code, 'outside_booking_window');
        }
        for (const date of ['2030-05-16', '2032-06-15']) {
          const response = await staffBook(biz, { date });
          assert.equal(response.statusCode, 201, `${date}: ${response.body}`);
        }
        const booking = (await staffBook(biz, { date: '2030-06-20' })).json().booking;
        const moved = await ctx.app.inject({
          method: 'PATCH',
          url: `/v1/manage/bookings/${booking.id}`,
          headers: biz.tenant.headers,
          payload: { booking_date: '2032-06-16' },
        });
        assert.equal(moved.statusCode, 422, moved.body);
        assert.equal(moved.json().error.code, 'outside_booking_window');
      } finally {
        ctx.app.clock.now = realClock;
      }
    });

    it('refuses a time outside hours and a short phone', async () => {
      const biz = await setupBookable(ctx.app);
      assert.equal((await staffBook(biz, { time: '18:00' })).json().error.code, 'outside_operating_hours');
      const phone = await staffBook(biz, { phone: '123' });
      assert.equal(phone.statusCode, 422);
      assert.equal(phone.json().error.fields[0].field, 'phone');
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: {
            method: 'POST',
            url: '/v1/manage/bookings/staff',
            payload: { date: DAY, time: '12:00', first_name: 'A', last_name: 'B', phone: '0301234567' },
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});
