import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { BOOKING_DAY, type BookableBusiness, bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';
import { AppError } from '../platform/errors.ts';
import { viewGuestBooking } from '../public/guest-bookings.service.ts';

const ctx = useTestApp();

/** No digits, a lone `+`, too few digits, too many. */
const BAD_PHONES = ['-------', '+', '12345', '1234567890123456', '+49 30 555 0101 99999'];
const GOOD_PHONES = ['1234567', '+123456789012345', '(030) 555-01.23', '+49 (30) 555 0101'];
const NAMES = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' };

interface Call {
  method: InjectOptions['method'];
  url: string;
  payload?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Every route that takes a phone, with `phone` in it, and the field a refusal names. */
function routesTaking(biz: BookableBusiness, phone: string): [string, Call, string][] {
  const headers = biz.tenant.headers;
  const id = biz.tenant.businessId;
  const online = { business_id: id, booking_date: BOOKING_DAY, start_time: '12:00', capacity: 2 };
  const staff = { date: BOOKING_DAY, time: '12:00', capacity: 2 };
  const query = new URLSearchParams({ phone }).toString();
  return [
    [
      'public booking, flat',
      { method: 'POST', url: '/v1/bookings', headers, payload: { ...online, ...NAMES, phone } },
      'phone',
    ],
    [
      'public booking, nested',
      { method: 'POST', url: '/v1/bookings', headers, payload: { ...online, customer: { ...NAMES, phone } } },
      'phone',
    ],
    [
      'dynamic booking',
      { method: 'POST', url: '/v1/dynamic/bookings', headers, payload: { ...online, ...NAMES, phone } },
      'phone',
    ],
    [
      'staff booking',
      { method: 'POST', url: '/v1/manage/bookings/staff', headers, payload: { ...staff, ...NAMES, phone } },
      'phone',
    ],
    [
      'staff deposit booking',
      {
        method: 'POST',
        url: '/v1/manage/bookings/staff-deposit',
        headers,
        payload: { ...staff, ...NAMES, phone },
      },
      'phone',
    ],
    [
      'waitlist',
      {
        method: 'POST',
        url: `/v1/waitlist/${id}`,
        payload: { customer: { ...NAMES, phone }, preferred_date: BOOKING_DAY },
      },
      'customer.phone',
    ],
    [
      'sandbox booking',
      {
        method: 'POST',
        url: '/v1/sandbox/bookings',
        payload: { start_time: `${BOOKING_DAY}T12:00:00+01:00`, customer: { ...NAMES, phone } },
      },
      'customer.phone',
    ],
    ['guest view', { method: 'GET', url: `/v1/public/bookings/ABCD2345?${query}` }, 'phone'],
    [
      'guest cancel',
      { method: 'POST', url: '/v1/public/bookings/ABCD2345/cancel', payload: { phone } },
      'phone',
    ],
  ];
}

let ip = 0;
const send = (call: Call) =>
  ctx.app.inject({
    method: call.method,
    url: call.url,
    headers: call.headers,
    payload: call.payload,
    remoteAddress: `192.0.2.${(ip++ % 250) + 1}`,
  });

describe('a phone number: 7 to 15 digits, spaces, dashes, dots, brackets and a leading + aside', () => {
  describe('422', () => {
    it('is refused without enough digits, or with too many, on every route that takes one, naming the field', async () => {
      const biz = await setupBookable(ctx.app);
      for (const phone of BAD_PHONES) {
        for (const [name, call, field] of routesTaking(biz, phone)) {
          const response = await send(call);
          assert.equal(response.statusCode, 422, `${name} with ${phone}: ${response.body}`);
          const error = response.json().error;
          assert.equal(error.code, 'validation_error');
          const fields = error.fields as { field: string; message: string }[];
          assert.ok(
            fields.every((f) => f.field === field) && fields.some((f) => /7 to 15 digits/.test(f.message)),
            `${name} with ${phone}: ${response.body}`,
          );
        }
      }
    });
  });

  describe('201', () => {
    it('is taken in any common spelling', async () => {
      const biz = await setupBookable(ctx.app);
      for (const [i, phone] of GOOD_PHONES.entries()) {
        await bookOk(ctx.app, biz, { phone, start_time: `1${i}:00` });
      }
    });
  });
});

describe("a guest's contact", () => {
  describe('404', () => {
    it('never matches an empty or digitless phone or email stored before phones were checked', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await bookOk(ctx.app, biz);
      await ctx.app.db
        .updateTable('customers')
        .set({ phone: '-------', phone_normalized: '' })
        .where('id', '=', booking.customer_id)
        .execute();
      await ctx.app.db
        .updateTable('bookings')
        .set({ guest_email: ' ' })
        .where('id', '=', booking.id)
        .execute();
      for (const contact of [{ phone: '-------' }, { phone: '' }, { email: ' ' }, { email: '' }]) {
        await assert.rejects(
          viewGuestBooking(ctx.app.db, booking.confirmation_code, contact, undefined, Date.now()),
          (error: unknown) => error instanceof AppError && error.code === 'not_found',
          JSON.stringify(contact),
        );
      }
      const response = await send({
        method: 'GET',
        url: `/v1/public/bookings/${booking.confirmation_code}?phone=-------`,
      });
      assert.equal(response.statusCode, 422, response.body);
    });
  });
});
