import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { BOOKING_DAY, type BookableBusiness, bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, createPublishableKey, createTestApp, RACE, type TestContext } from '../../test/helpers.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp({ webhookAllowPrivateUrls: true });
});
after(() => ctx.close());
beforeEach(async () => {
  await ctx.reset();
  ctx.app.clock.now = Date.now;
});

const SHOP = 'https://shop.example';
const GUEST = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: 'Grace@Example.com',
  phone: '+49 30 555 0101',
};

let ip = 0;
/** Each call from an IP of its own, so the tight per-IP limit of these routes does not interfere. */
const call = (method: InjectOptions['method'], url: string, payload?: unknown, headers = {}) =>
  ctx.app.inject({
    method,
    url,
    payload: payload as InjectOptions['payload'],
    headers,
    remoteAddress: `198.51.100.${(ip++ % 250) + 1}`,
  });
const view = (code: string, query: string, headers = {}) =>
  call('GET', `/v1/public/bookings/${code}?${query}`, undefined, headers);
const cancel = (code: string, body: unknown, headers = {}) =>
  call('POST', `/v1/public/bookings/${code}/cancel`, body, headers);

async function booked(biz?: BookableBusiness, body: Record<string, unknown> = {}) {
  const business = biz ?? (await setupBookable(ctx.app));
  const booking = await bookOk(ctx.app, business, { ...GUEST, customer_notes: 'window seat', ...body });
  await ctx.app.db
    .updateTable('bookings')
    .set({ staff_notes: 'VIP, knows the owner' })
    .where('id', '=', booking.id)
    .execute();
  return { biz: business, booking, code: booking.confirmation_code as string };
}

describe('GET /v1/public/bookings/{confirmation_code}', () => {
  describe('200', () => {
    it('shows the guest their booking by email or by phone, in any case or spelling, without staff notes', async () => {
      const { biz, booking, code } = await booked();
      for (const query of [
        'email=grace%40example.com',
        'phone=%2B49%20(30)%20555-0101',
        `email=GRACE%40EXAMPLE.COM&phone=${encodeURIComponent(GUEST.phone)}`,
      ]) {
        const response = await view(code.toLowerCase(), query);
        assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
        assert.equal(response.headers['cache-control'], 'no-store');
        const body = response.json();
        assert.equal(body.confirmation_code, code);
        assert.equal(body.status, 'confirmed');
        assert.deepEqual(body.business, {
          id: biz.tenant.businessId,
          name: 'Bistro Race',
          slug: biz.tenant.slug,
          timezone: 'UTC',
        });
        assert.equal(body.booking_date, BOOKING_DAY);
        assert.equal(body.start_time, '12:00');
        assert.equal(body.capacity, 2);
        assert.deepEqual(body.guest, {
          first_name: 'Grace',
          last_name: 'Hopper',
          email: 'Grace@Example.com',
        });
        assert.equal(body.customer_notes, 'window seat');
        assert.equal(body.starts_at, booking.starts_at);
        assert.equal(body.cancellable_until, booking.starts_at);
        assert.equal(body.can_cancel, true);
        for (const hidden of ['staff_notes', 'resource', 'resource_id', 'customer', 'customer_id', 'id']) {
          assert.equal(body[hidden], undefined, hidden);
        }
        assert.ok(!response.body.includes('VIP'));
      }
    });

    it('works with a publishable key of the business, from its origin', async () => {
      const { biz, code } = await booked();
      const { key } = await createPublishableKey(ctx.app, biz.tenant, [SHOP]);
      const response = await view(code, 'email=grace%40example.com', { ...bearer(key), origin: SHOP });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['access-control-allow-origin'], SHOP);
    });

    it('says when the cut-off has passed', async () => {
      const { biz, booking, code } = await booked();
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { cancellation_cutoff_hours: 24 },
      });
      ctx.app.clock.now = () => Date.parse(booking.starts_at) - 23 * 3_600_000;
      const body = (await view(code, 'email=grace%40example.com')).json();
      assert.equal(
        body.cancellable_until,
        new Date(Date.parse(booking.starts_at) - 24 * 3_600_000).toISOString(),
      );
      assert.equal(body.can_cancel, false);
    });
  });

  describe('404', () => {
    it('answers the same not_found to a wrong code, email or phone', async () => {
      const { code } = await booked();
      const answers: unknown[] = [];
      for (const [c, query] of [
        ['ZZZZZZZZ', 'email=grace%40example.com'],
        [code, 'email=mallory%40example.com'],
        [code, 'phone=%2B49%2030%20555%200102'],
        [code, 'email=grace%40example.com&phone=%2B49%2030%20555%200102'],
      ]) {
        const response = await view(c!, query!);
        assert.equal(response.statusCode, 404, `${c} ${query}: ${response.body}`);
        answers.push(response.json().error);
      }
      assert.ok(answers.every((error) => JSON.stringify(error) === JSON.stringify(answers[0])));
    });

    it("finds nothing of another business with a business's key, publishable or secret", async () => {
      const { code } = await booked();
      const other = await setupBookable(ctx.app);
      const { key } = await createPublishableKey(ctx.app, other.tenant, [SHOP]);
      for (const headers of [{ ...bearer(key), origin: SHOP }, other.tenant.headers]) {
        const response = await view(code, 'email=grace%40example.com', headers);
        assert.equal(response.statusCode, 404, response.body);
      }
    });
  });

  describe('422', () => {
    it('refuses a call with neither email nor phone, and unknown fields', async () => {
      const { code } = await booked();
      for (const query of ['', 'name=Grace', 'email=not-an-email']) {
        const response = await view(code, query);
        assert.equal(response.statusCode, 422, `${query}: ${response.body}`);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });
  });

  describe('429', () => {
    it('allows 10 lookups a minute per client IP, whatever the credential', async () => {
      const { code } = await booked();
      const from = (remoteAddress: string) =>
        ctx.app.inject({
          method: 'GET',
          url: `/v1/public/bookings/${code}?email=wrong%40example.com`,
          remoteAddress,
        });
      for (let i = 0; i < 10; i++) assert.equal((await from('203.0.113.50')).statusCode, 404);
      const over = await from('203.0.113.50');
      assert.equal(over.statusCode, 429);
      assert.equal(over.json().error.code, 'rate_limit_exceeded');
      assert.equal((await from('203.0.113.51')).statusCode, 404);
    });
  });
});

describe('POST /v1/public/bookings/{confirmation_code}/cancel', () => {
  describe('200', () => {
    it('cancels the booking, audits it with the guest as actor and fires booking.cancelled', async () => {
      const biz = await setupBookable(ctx.app);
      const hook = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/webhooks',
        headers: biz.tenant.headers,
        payload: { url: 'http://127.0.0.1:1024/hook', events: ['booking.cancelled'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const { booking, code } = await booked(biz);
      const response = await cancel(code, { phone: GUEST.phone });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'cancelled');
      assert.equal(response.json().can_cancel, false);
      assert.equal(response.json().cancellable_until, null);

      const stored = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
      });
      assert.equal(stored.json().status, 'cancelled');
      const audit = await ctx.app.db
        .selectFrom('audit_logs')
        .select(['user_email', 'before_state', 'after_state'])
        .where('action', '=', 'booking.status_changed')
        .where('entity_id', '=', booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(audit.user_email, 'guest');
      assert.deepEqual(audit.after_state, { status: 'cancelled' });
      const events = await ctx.app.db.selectFrom('webhook_events').select(['type', 'data']).execute();
      assert.deepEqual(
        events.map((event) => event.type),
        ['booking.cancelled'],
      );
      assert.equal((events[0]!.data as { id: string }).id, booking.id);
      const free = await ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=2`,
      });
      const noon = free.json().slots.find((slot: { time: string }) => slot.time === '12:00');
      assert.equal(noon.remaining_resources, 3, 'the slot is free again');
    });

    it('cancels with a publishable key of the business, until the cut-off', async () => {
      const { biz, booking, code } = await booked();
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { cancellation_cutoff_hours: 24 },
      });
      ctx.app.clock.now = () => Date.parse(booking.starts_at) - 25 * 3_600_000;
      const { key } = await createPublishableKey(ctx.app, biz.tenant, [SHOP]);
      const response = await cancel(code, { email: 'grace@example.com' }, { ...bearer(key), origin: SHOP });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'cancelled');
    });
  });

  describe('404', () => {
    it('answers not_found to a wrong email or phone, or a key of another business, and changes nothing', async () => {
      const { booking, code } = await booked();
      const other = await setupBookable(ctx.app);
      const { key } = await createPublishableKey(ctx.app, other.tenant, [SHOP]);
      for (const [body, headers] of [
        [{ email: 'mallory@example.com' }, {}],
        [{ phone: '+49 30 555 0199' }, {}],
        [{ email: 'grace@example.com' }, { ...bearer(key), origin: SHOP }],
      ] as const) {
        const response = await cancel(code, body, headers);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      const row = await ctx.app.db
        .selectFrom('bookings')
        .select('status')
        .where('id', '=', booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'confirmed');
    });
  });

  describe('409', () => {
    it('answers cancellation_cutoff_passed inside the cut-off, and once the booking has started', async () => {
      const { biz, booking, code } = await booked();
      ctx.app.clock.now = () => Date.parse(booking.starts_at) + 60_000;
      const started = await cancel(code, { email: 'grace@example.com' });
      assert.equal(started.statusCode, 409, started.body);
      assert.equal(started.json().error.code, 'cancellation_cutoff_passed');

      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { cancellation_cutoff_hours: 48 },
      });
      ctx.app.clock.now = () => Date.parse(booking.starts_at) - 47 * 3_600_000;
      const late = await cancel(code, { email: 'grace@example.com' });
      assert.equal(late.statusCode, 409, late.body);
      assert.equal(late.json().error.code, 'cancellation_cutoff_passed');
      assert.match(late.json().error.message, /48 h/);
      const row = await ctx.app.db
        .selectFrom('bookings')
        .select('status')
        .where('id', '=', booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'confirmed');
    });

    it('answers conflict for a booking already cancelled or checked in', async () => {
      const { biz, booking, code } = await booked();
      assert.equal((await cancel(code, { email: 'grace@example.com' })).statusCode, 200);
      const again = await cancel(code, { email: 'grace@example.com' });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().error.code, 'conflict');

      const second = await booked(biz, { start_time: '14:00', phone: '+49 30 555 0177' });
      const checkIn = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${second.booking.id}`,
        headers: biz.tenant.headers,
        payload: { status: 'checked_in' },
      });
      assert.equal(checkIn.statusCode, 200, checkIn.body);
      const checkedIn = await cancel(second.code, { phone: '+49 30 555 0177' });
      assert.equal(checkedIn.statusCode, 409);
      assert.equal(checkedIn.json().error.code, 'conflict');
      assert.notEqual(booking.id, second.booking.id);
    });
  });

  describe('422', () => {
    it('refuses a body with neither email nor phone', async () => {
      const { code } = await booked();
      for (const body of [{}, undefined, { name: 'Grace' }]) {
        const response = await cancel(code, body);
        assert.equal(response.statusCode, 422, `${JSON.stringify(body)}: ${response.body}`);
      }
    });
  });
});

describe('POST /v1/public/bookings/{confirmation_code}/change', () => {
  const change = (code: string, body: unknown, headers = {}) =>
    call('POST', `/v1/public/bookings/${code}/change`, body, headers);
  const stored = (id: string) =>
    ctx.app.db
      .selectFrom('bookings')
      .select(['start_time', 'capacity', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  describe('200', () => {
    it('moves the booking to another time and a bigger party, audited as the guest, and frees the old time', async () => {
      const { biz, booking, code } = await booked();
      const before = (await view(code, 'email=grace%40example.com')).json();
      assert.equal(before.can_change, true);
      assert.equal(
        before.changeable_until,
        new Date(Date.parse(booking.starts_at) - 2 * 3_600_000).toISOString(),
      );
      const response = await change(code, { email: 'grace@example.com', start_time: '14:00', capacity: 4 });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.start_time, '14:00');
      assert.equal(body.capacity, 4);
      assert.equal(body.confirmation_code, code);
      assert.ok(!response.body.includes('VIP'), 'no staff notes');
      assert.deepEqual(await stored(booking.id), {
        start_time: '14:00:00',
        capacity: 4,
        status: 'confirmed',
      });
      const audit = await ctx.app.db
        .selectFrom('audit_logs')
        .select(['action', 'user_email'])
        .where('entity_id', '=', booking.id)
        .where('action', '=', 'booking.rescheduled')
        .execute();
      assert.deepEqual(audit, [{ action: 'booking.rescheduled', user_email: 'guest' }]);
      // The old time is free again: its table takes another party.
      await bookOk(ctx.app, biz, { start_time: '12:00', capacity: 2, phone: '+49 30 555 0188' });
    });

    it('changes only the party, at the same time', async () => {
      const { booking, code } = await booked();
      const response = await change(code, { phone: GUEST.phone, capacity: 3 });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(await stored(booking.id), {
        start_time: '12:00:00',
        capacity: 3,
        status: 'confirmed',
      });
    });
  });

  describe('409', () => {
    it('keeps the booking as it was when the new time is taken', async () => {
      const { biz, booking, code } = await booked();
      for (const [capacity, phone] of [
        [2, '+49 30 555 0190'],
        [4, '+49 30 555 0191'],
        [6, '+49 30 555 0192'],
      ] as const) {
        await bookOk(ctx.app, biz, { start_time: '14:00', capacity, phone });
      }
      const response = await change(code, { email: 'grace@example.com', start_time: '14:00' });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().error.code, 'slot_unavailable');
      assert.deepEqual(await stored(booking.id), {
        start_time: '12:00:00',
        capacity: 2,
        status: 'confirmed',
      });
    });

    it("answers change_cutoff_passed inside the business's change cut-off", async () => {
      const { biz, booking, code } = await booked();
      ctx.app.clock.now = () => Date.parse(booking.starts_at) - 3_600_000;
      const late = await change(code, { email: 'grace@example.com', start_time: '14:00' });
      assert.equal(late.statusCode, 409, late.body);
      assert.equal(late.json().error.code, 'change_cutoff_passed');
      assert.match(late.json().error.message, /2 h before/);
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { guest_change_cutoff_hours: 0 },
      });
      const allowed = await change(code, { email: 'grace@example.com', start_time: '14:00' });
      assert.equal(allowed.statusCode, 200, allowed.body);
    });

    it('leaves a deposit to the business: a new party is refused, a new time of a paid charge is not', async () => {
      const { biz, booking, code } = await booked();
      await ctx.app.db
        .insertInto('deposits')
        .values({
          business_id: biz.tenant.businessId,
          booking_id: booking.id,
          type: 'charge',
          status: 'paid',
          amount_cents: 2000,
          currency: 'eur',
          processor: 'simulated',
        })
        .execute();
      const party = await change(code, { email: 'grace@example.com', capacity: 4 });
      assert.equal(party.statusCode, 409, party.body);
      assert.equal(party.json().error.code, 'deposit_would_change');
      const time = await change(code, { email: 'grace@example.com', start_time: '15:00' });
      assert.equal(time.statusCode, 200, time.body);
    });

    it('answers conflict for a cancelled booking', async () => {
      const { code } = await booked();
      assert.equal((await cancel(code, { email: 'grace@example.com' })).statusCode, 200);
      const response = await change(code, { email: 'grace@example.com', start_time: '14:00' });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
    });
  });

  describe('4xx under the online rules', () => {
    it('refuses a party over the online limit, a time off the grid, no change at all, and a wrong contact', async () => {
      const { biz, booking, code } = await booked();
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { max_online_party_size: 4 },
      });
      const big = await change(code, { email: 'grace@example.com', capacity: 6 });
      assert.equal(big.json().error.code, 'party_too_large_online', big.body);
      const offGrid = await change(code, { email: 'grace@example.com', start_time: '14:07' });
      assert.equal(offGrid.statusCode, 422, offGrid.body);
      const nothing = await change(code, { email: 'grace@example.com' });
      assert.equal(nothing.statusCode, 422, nothing.body);
      const stranger = await change(code, { email: 'someone@example.com', start_time: '14:00' });
      assert.equal(stranger.statusCode, 404, stranger.body);
      assert.deepEqual(await stored(booking.id), {
        start_time: '12:00:00',
        capacity: 2,
        status: 'confirmed',
      });
    });
  });

  it(
    'lets exactly one of a guest moving to a time and a new booking of it win; the loser keeps what it had',
    RACE,
    async () => {
      for (let round = 0; round < 8; round++) {
        await ctx.reset();
        const biz = await setupBookable(ctx.app, {
          resources: [{ name: 'T1', capacity_min: 1, capacity_max: 4 }],
        });
        const { booking, code } = await booked(biz);
        const [moved, other] = await Promise.all([
          change(code, { email: 'grace@example.com', start_time: '14:00' }),
          ctx.app.inject({
            method: 'POST',
            url: '/v1/bookings',
            headers: biz.tenant.headers,
            payload: {
              business_id: biz.tenant.businessId,
              booking_date: BOOKING_DAY,
              start_time: '14:00',
              capacity: 2,
              first_name: 'Ada',
              last_name: 'Lovelace',
              email: 'ada@example.com',
              phone: '+49 30 555 0199',
            },
          }),
        ]);
        const winners = [moved.statusCode === 200, other.statusCode === 201].filter(Boolean).length;
        assert.equal(
          winners,
          1,
          `round ${round}: ${moved.statusCode} ${moved.body} / ${other.statusCode} ${other.body}`,
        );
        const row = await stored(booking.id);
        assert.equal(row.start_time, moved.statusCode === 200 ? '14:00:00' : '12:00:00');
        assert.equal(row.status, 'confirmed');
      }
    },
  );
});
