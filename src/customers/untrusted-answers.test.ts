import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  BOOKING_DAY,
  type BookableBusiness,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { bearer, useTestApp } from '../../test/helpers.ts';
import { defaultPublishableKey } from '../developers/api-keys.service.ts';

// A stranger who knows a returning customer's phone number books with it: whatever the answer
// says, it must not be the stored customer's name, email or phone, nor the customer's id.

const ctx = useTestApp();

/** The stored phone, spelled one way; the stranger sends the same number spelled another. */
const OWNER_PHONE = '+49 30 5550 7777';
const OWNER = {
  first_name: 'Real Owner',
  last_name: 'Ownerson',
  email: 'real@x.example',
  phone: OWNER_PHONE,
};
const MALLORY = {
  first_name: 'Mallory',
  last_name: 'Evil',
  email: 'mallory@evil.example',
  phone: '+49-30-5550-7777',
};

/** What the staff keep about the owner (docs/api-behaviour.md, "Guest profiles and privacy"). */
const OWNER_PROFILE = {
  tags: ['vip-owner-tag'],
  allergies: 'owner-allergy-sesame',
  staff_notes: 'owner-staff-remark',
};

/** Nothing of the stored customer, profile included, in an answer's text. */
function assertNothingOfTheOwner(body: string) {
  for (const secret of [
    'Real Owner',
    'Ownerson',
    'real@x.example',
    OWNER_PHONE,
    'customer_id',
    ...OWNER_PROFILE.tags,
    OWNER_PROFILE.allergies,
    OWNER_PROFILE.staff_notes,
    '"allergies"',
    '"tags"',
    '"visits"',
    '"no_shows"',
    '"marketing_opt_in"',
  ]) {
    assert.ok(!body.includes(secret), `the answer shows "${secret}": ${body}`);
  }
}

let ip = 0;
/** A call from the hosted page's origin with the business's default publishable key, from an IP of its own. */
async function fromHostedPage(
  biz: BookableBusiness,
  method: InjectOptions['method'],
  url: string,
  payload: unknown,
  extra: Record<string, string> = {},
) {
  const key = await defaultPublishableKey(ctx.app.db, biz.tenant.businessId);
  return ctx.app.inject({
    method,
    url,
    payload: payload as InjectOptions['payload'],
    headers: { ...bearer(key), origin: new URL(ctx.config.publicBaseUrl).origin, ...extra },
    remoteAddress: `198.51.100.${(ip++ % 250) + 1}`,
  });
}

/** A business whose returning customer (OWNER) was booked with its secret key. */
async function withReturningCustomer(settings?: Record<string, unknown>) {
  const biz = await setupBookable(ctx.app, settings ? { settings } : {});
  const own = await postBooking(ctx.app, biz, { ...OWNER, start_time: '10:00' });
  assert.equal(own.statusCode, 201, own.body);
  const profiled = await ctx.app.inject({
    method: 'PATCH',
    url: `/v1/manage/customers/${own.json().booking.customer_id}`,
    headers: biz.tenant.headers,
    payload: OWNER_PROFILE,
  });
  assert.equal(profiled.statusCode, 200, profiled.body);
  return { biz, owner: own.json().booking };
}

const bookingBody = (biz: BookableBusiness, extra: Record<string, unknown> = {}) => ({
  business_id: biz.tenant.businessId,
  booking_date: BOOKING_DAY,
  start_time: '12:00',
  capacity: 2,
  ...extra,
});

describe('a booking answered to a caller not trusted with customers', () => {
  describe('201', () => {
    it('POST /v1/bookings (flat body, hosted page key) answers the guest sent, never the customer', async () => {
      const { biz, owner } = await withReturningCustomer();
      const response = await fromHostedPage(biz, 'POST', '/v1/bookings', bookingBody(biz, MALLORY));
      assert.equal(response.statusCode, 201, response.body);
      assertNothingOfTheOwner(response.body);
      const booking = response.json().booking;
      assert.equal(booking.customer, undefined);
      assert.deepEqual(booking.guest, MALLORY);
      // Attached to the returning customer all the same, who keeps their record.
      const stored = await ctx.app.db
        .selectFrom('bookings')
        .select('customer_id')
        .where('id', '=', booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.customer_id, owner.customer_id);
    });

    it('POST /v1/bookings (nested customer body) answers the guest sent, never the customer', async () => {
      const { biz } = await withReturningCustomer();
      const response = await fromHostedPage(
        biz,
        'POST',
        '/v1/bookings',
        bookingBody(biz, { customer: MALLORY }),
      );
      assert.equal(response.statusCode, 201, response.body);
      assertNothingOfTheOwner(response.body);
      assert.deepEqual(response.json().booking.guest, MALLORY);
    });

    it('POST /v1/bookings replays a stored Idempotency-Key answer without the customer either', async () => {
      const { biz } = await withReturningCustomer();
      const key = await defaultPublishableKey(ctx.app.db, biz.tenant.businessId);
      const call = () =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/bookings',
          payload: bookingBody(biz, MALLORY),
          remoteAddress: '203.0.113.9',
          headers: {
            ...bearer(key),
            origin: new URL(ctx.config.publicBaseUrl).origin,
            'idempotency-key': 'mallory-1',
          },
        });
      const first = await call();
      assert.equal(first.statusCode, 201, first.body);
      const replay = await call();
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.statusCode, 201, replay.body);
      assertNothingOfTheOwner(replay.body);
      assert.deepEqual(replay.json().booking.guest, MALLORY);
    });

    it('keeps the full answer for a secret key: the customer and their id', async () => {
      const { biz, owner } = await withReturningCustomer();
      const response = await postBooking(ctx.app, biz, MALLORY);
      assert.equal(response.statusCode, 201, response.body);
      const booking = response.json().booking;
      assert.equal(booking.customer_id, owner.customer_id);
      assert.equal(booking.customer.id, owner.customer_id);
      assert.equal(booking.customer.phone, MALLORY.phone);
    });

    it('POST /v1/dynamic/bookings answers the guest sent, never the customer', async () => {
      const { biz } = await withReturningCustomer({ booking_mode: 'dynamic' });
      const response = await fromHostedPage(
        biz,
        'POST',
        '/v1/dynamic/bookings',
        bookingBody(biz, { start_time: '12:07', ...MALLORY }),
      );
      assert.equal(response.statusCode, 201, response.body);
      assertNothingOfTheOwner(response.body);
      assert.equal(response.json().booking.customer, undefined);
      assert.deepEqual(response.json().booking.guest, MALLORY);
    });

    it('POST /v1/waitlist/{business_id} answers its entry alone, with or without a key', async () => {
      const { biz } = await withReturningCustomer();
      const url = `/v1/waitlist/${biz.tenant.businessId}`;
      const body = { customer: MALLORY, preferred_date: BOOKING_DAY };
      const withKey = await fromHostedPage(biz, 'POST', url, body);
      const without = await ctx.app.inject({ method: 'POST', url, payload: body });
      for (const response of [withKey, without]) {
        assert.equal(response.statusCode, 201, response.body);
        assertNothingOfTheOwner(response.body);
        assert.deepEqual(Object.keys(response.json()).sort(), ['position', 'waitlist_id']);
      }
    });
  });
});

describe("a guest's own booking (/v1/public/bookings/{code})", () => {
  describe('200', () => {
    it('shows and cancels the booking made with a returning phone with the guest given, not the customer', async () => {
      const { biz } = await withReturningCustomer();
      const made = await fromHostedPage(biz, 'POST', '/v1/bookings', bookingBody(biz, MALLORY));
      assert.equal(made.statusCode, 201, made.body);
      const code = made.json().booking.confirmation_code;
      const phone = encodeURIComponent(MALLORY.phone);
      const viewed = await fromHostedPage(
        biz,
        'GET',
        `/v1/public/bookings/${code}?phone=${phone}`,
        undefined,
      );
      assert.equal(viewed.statusCode, 200, viewed.body);
      assertNothingOfTheOwner(viewed.body);
      assert.deepEqual(viewed.json().guest, {
        first_name: 'Mallory',
        last_name: 'Evil',
        email: 'mallory@evil.example',
      });
      const cancelled = await fromHostedPage(biz, 'POST', `/v1/public/bookings/${code}/cancel`, {
        phone: MALLORY.phone,
      });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assertNothingOfTheOwner(cancelled.body);
      assert.equal(cancelled.json().status, 'cancelled');
    });

    it('shows no guest for a booking made before the names given were kept, never the customer instead', async () => {
      const { biz, owner } = await withReturningCustomer();
      await ctx.app.db
        .updateTable('bookings')
        .set({ guest_first_name: null, guest_last_name: null, guest_email: null })
        .where('id', '=', owner.id)
        .execute();
      const code = owner.confirmation_code;
      const phone = encodeURIComponent(OWNER_PHONE);
      const viewed = await fromHostedPage(
        biz,
        'GET',
        `/v1/public/bookings/${code}?phone=${phone}`,
        undefined,
      );
      assert.equal(viewed.statusCode, 200, viewed.body);
      assertNothingOfTheOwner(viewed.body);
      assert.equal(viewed.json().guest, null);
    });
  });

  describe('404', () => {
    it("does not prove a stranger's booking with the returning customer's email, nor theirs without its code", async () => {
      const { biz, owner } = await withReturningCustomer();
      const made = await fromHostedPage(biz, 'POST', '/v1/bookings', bookingBody(biz, MALLORY));
      const code = made.json().booking.confirmation_code;
      const email = encodeURIComponent(OWNER.email);
      const byOwnerEmail = await fromHostedPage(
        biz,
        'GET',
        `/v1/public/bookings/${code}?email=${email}`,
        undefined,
      );
      assert.equal(byOwnerEmail.statusCode, 404, byOwnerEmail.body);
      const cancelOwner = await fromHostedPage(biz, 'POST', `/v1/public/bookings/${code}X/cancel`, {
        phone: OWNER_PHONE,
      });
      assert.equal(cancelOwner.statusCode, 404, cancelOwner.body);
      const stillThere = await ctx.app.db
        .selectFrom('bookings')
        .select('status')
        .where('id', '=', owner.id)
        .executeTakeFirstOrThrow();
      assert.equal(stillThere.status, 'confirmed');
    });
  });
});

describe('the sandbox', () => {
  describe('201 and 200', () => {
    it('answers a booking made with a returning phone, and reads it back, with the guest sent only', async () => {
      const start = await ctx.app.inject({
        method: 'GET',
        url: `/v1/sandbox/availability?date=${BOOKING_DAY}`,
      });
      assert.equal(start.statusCode, 200, start.body);
      const [first, second] = start.json().slots as { start_time: string }[];
      const book = (customer: typeof OWNER, start_time: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/sandbox/bookings',
          payload: { start_time, capacity: 2, customer },
        });
      const own = await book(OWNER, first!.start_time);
      assert.equal(own.statusCode, 201, own.body);
      const made = await book(MALLORY, second!.start_time);
      assert.equal(made.statusCode, 201, made.body);
      assertNothingOfTheOwner(made.body);
      assert.deepEqual(made.json().customer, MALLORY);
      const read = await ctx.app.inject({ method: 'GET', url: `/v1/sandbox/bookings/${made.json().id}` });
      assert.equal(read.statusCode, 200, read.body);
      assertNothingOfTheOwner(read.body);
      assert.deepEqual(read.json().customer, {
        first_name: 'Mallory',
        last_name: 'Evil',
        email: 'mallory@evil.example',
        phone: '+493055507777',
      });
    });
  });
});
