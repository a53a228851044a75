import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bookOk, daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import {
  auditTrail,
  bookingView,
  confirmPayment,
  type DepositBusiness,
  intentIdOf,
  setupDepositBusiness,
} from '../../test/deposit-fixtures.ts';
import { bearer, dashboardToken, itChecksAuth, useTestApp } from '../../test/helpers.ts';
import type { PaymentProcessor } from '../payments/processor.adapter.ts';

const ctx = useTestApp();

const SOON = daysFromNow(2);
const simulated = () => ctx.app.payments.simulated;

/**
 * Staff act on a booking. A no-show is marked once the booking has started, so the app's clock
 * stands at its start for that call, unless `early`.
 */
const act = async (
  biz: DepositBusiness,
  bookingId: string,
  action: 'no-show' | 'release-hold',
  headers = biz.tenant.headers,
  { early = false } = {},
) => {
  const booking = await ctx.app.db
    .selectFrom('bookings')
    .select('starts_at')
    .where('id', '=', bookingId)
    .executeTakeFirst();
  const clock = ctx.app.clock.now;
  if (action === 'no-show' && booking && !early) ctx.app.clock.now = () => booking.starts_at.getTime();
  try {
    return await ctx.app.inject({
      method: 'POST',
      url: `/v1/manage/bookings/${bookingId}/${action}`,
      headers,
    });
  } finally {
    ctx.app.clock.now = clock;
  }
};

const patchStatus = async (biz: DepositBusiness, bookingId: string, status: string) => {
  const response = await ctx.app.inject({
    method: 'PATCH',
    url: `/v1/manage/bookings/${bookingId}`,
    headers: biz.tenant.headers,
    payload: { status },
  });
  assert.equal(response.statusCode, 200, response.body);
};

/** A confirmed booking whose EUR 20 hold is placed. */
async function heldBooking(biz?: DepositBusiness) {
  const business = biz ?? (await setupDepositBusiness(ctx.app, 'authorization_hold'));
  const booking = await bookOk(ctx.app, business, { booking_date: SOON });
  await confirmPayment(ctx.app, booking.payment_client_secret);
  const intentId = intentIdOf(booking.payment_client_secret);
  return { biz: business, booking, intentId };
}

async function assertRefused(response: Awaited<ReturnType<typeof act>>, detail: RegExp) {
  assert.equal(response.statusCode, 409, response.body);
  const body = response.json();
  assert.match(body.detail, detail);
  assert.equal(body.error.code, 'conflict');
  assert.equal(body.error.message, body.detail);
}

/** The route of `action` on a booking of a fresh tenant, for the auth checks. */
const routeOn = (action: string) => async () => {
  const biz = await setupBookable(ctx.app);
  const booking = await bookOk(ctx.app, biz);
  return {
    tenant: biz.tenant,
    route: {
      method: 'POST' as const,
      url: `/v1/manage/bookings/${booking.id}/${action}`,
      scope: 'write' as const,
      staff: true,
    },
  };
};

describe('POST /v1/manage/bookings/{id}/no-show', () => {
  describe('200', () => {
    it('captures the hold of a confirmed booking: booking no_show, deposit captured', async () => {
      const { biz, booking, intentId } = await heldBooking();
      const response = await act(biz, booking.id, 'no-show');
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.match(body.detail, /captured/);
      assert.equal(body.booking.status, 'no_show');
      assert.equal(body.booking.deposit.status, 'captured');
      const intent = await simulated().find(intentId);
      assert.equal(intent?.status, 'succeeded');
      assert.equal(intent?.amount_received, 2000);
      const trail = await auditTrail(ctx.app, booking.id);
      assert.ok(
        trail.some((line) => /^booking\.hold_captured by api_key:/.test(line)),
        trail.join('\n'),
      );
      assert.ok(
        trail.some((line) => /^deposit\.captured by api_key:/.test(line)),
        trail.join('\n'),
      );
    });

    it('captures a checked-in guest’s hold too, for a staff member', async () => {
      const { biz, booking } = await heldBooking();
      await patchStatus(biz, booking.id, 'checked_in');
      const token = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
      const response = await act(biz, booking.id, 'no-show', bearer(token));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().booking.status, 'no_show');
    });

    it('captures once when the write after the capture failed, and the retry records it', async () => {
      const { biz, booking, intentId } = await heldBooking();
      const processor = simulated();
      const capture: PaymentProcessor['capturePaymentIntent'] =
        processor.capturePaymentIntent.bind(processor);
      const calls: { key: string; statusBefore: unknown }[] = [];
      const counting: PaymentProcessor['capturePaymentIntent'] = async (id, key) => {
        calls.push({ key, statusBefore: (await processor.find(id))?.status });
        return capture(id, key);
      };
      // Through the interface's type: the simulated processor's own signature leaves the key out.
      (processor as PaymentProcessor).capturePaymentIntent = counting;
      const script = (text: string) =>
        ctx.database.db.connection().execute(() => ctx.database.runScript(text));
      await script(`
        CREATE FUNCTION refuse_capture() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the database went away'; END $$;
        CREATE TRIGGER refuse_capture BEFORE UPDATE ON deposits FOR EACH ROW
          WHEN (NEW.status = 'captured') EXECUTE FUNCTION refuse_capture();`);
      try {
        const crashed = await act(biz, booking.id, 'no-show');
        assert.equal(crashed.statusCode, 500, crashed.body);
        assert.equal((await simulated().find(intentId))?.status, 'succeeded');
        const between = await bookingView(ctx.app, biz, booking.id);
        assert.equal(between.status, 'confirmed');
        assert.equal(between.deposit.status, 'held');
        await script('DROP TRIGGER refuse_capture ON deposits; DROP FUNCTION refuse_capture();');

        const retried = await act(biz, booking.id, 'no-show');
        assert.equal(retried.statusCode, 200, retried.body);
        assert.equal(retried.json().booking.status, 'no_show');
        assert.equal(retried.json().booking.deposit.status, 'captured');
      } finally {
        (processor as PaymentProcessor).capturePaymentIntent = capture;
        await script(
          'DROP TRIGGER IF EXISTS refuse_capture ON deposits; DROP FUNCTION IF EXISTS refuse_capture();',
        );
      }
      assert.deepEqual(calls, [
        { key: `deposit:${booking.id}:capture`, statusBefore: 'requires_capture' },
        { key: `deposit:${booking.id}:capture`, statusBefore: 'succeeded' },
      ]);
      const intent = await simulated().find(intentId);
      assert.equal(intent?.amount_received, 2000);
      assert.equal(
        (await auditTrail(ctx.app, booking.id)).filter((line) => line.startsWith('booking.hold_captured'))
          .length,
        1,
      );
    });

    it('records the no-show of a hold the processor reports captured before the staff’s write', async () => {
      const { biz, booking, intentId } = await heldBooking();
      await simulated().capturePaymentIntent(intentId);
      await ctx.app.inboundEvents.deliver(
        simulated().event('payment_intent.succeeded', (await simulated().find(intentId))!),
      );
      assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'captured');
      const response = await act(biz, booking.id, 'no-show');
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().booking.status, 'no_show');
    });
  });

  describe('409', () => {
    it('answers {detail} before the booking has started, capturing nothing, and takes it from the start on', async () => {
      const { biz, booking, intentId } = await heldBooking();
      const start = Date.parse(booking.starts_at);
      const clock = ctx.app.clock.now;
      ctx.app.clock.now = () => start - 16 * 3_600_000;
      try {
        await assertRefused(
          await act(biz, booking.id, 'no-show', undefined, { early: true }),
          /^the booking has not started yet$/,
        );
        ctx.app.clock.now = () => start - 1000;
        await assertRefused(
          await act(biz, booking.id, 'no-show', undefined, { early: true }),
          /has not started yet/,
        );
      } finally {
        ctx.app.clock.now = clock;
      }
      assert.equal((await simulated().find(intentId))?.status, 'requires_capture');
      const view = await bookingView(ctx.app, biz, booking.id);
      assert.equal(view.status, 'confirmed');
      assert.equal(view.deposit.status, 'held');
      const taken = await act(biz, booking.id, 'no-show');
      assert.equal(taken.statusCode, 200, taken.body);
      assert.equal(taken.json().booking.deposit.status, 'captured');
    });

    it('refuses a no-show by PATCH before the booking has started, with {detail}', async () => {
      const { biz, booking } = await heldBooking();
      const patch = () =>
        ctx.app.inject({
          method: 'PATCH',
          url: `/v1/manage/bookings/${booking.id}`,
          headers: biz.tenant.headers,
          payload: { status: 'no_show' },
        });
      await assertRefused(await patch(), /^the booking has not started yet$/);
      assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'confirmed');
      const clock = ctx.app.clock.now;
      ctx.app.clock.now = () => Date.parse(booking.starts_at);
      try {
        const marked = await patch();
        assert.equal(marked.statusCode, 200, marked.body);
        assert.equal(marked.json().status, 'no_show');
      } finally {
        ctx.app.clock.now = clock;
      }
    });

    it('answers {detail} when the booking cannot be a no-show or has no placed hold, capturing nothing', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
      const unpaid = await bookOk(ctx.app, biz, { booking_date: SOON, start_time: '10:00' });
      await assertRefused(
        await act(biz, unpaid.id, 'no-show'),
        /a pending booking cannot be marked a no-show/,
      );

      const cancelled = await heldBooking(biz);
      await patchStatus(biz, cancelled.booking.id, 'cancelled');
      await assertRefused(await act(biz, cancelled.booking.id, 'no-show'), /a cancelled booking/);
      assert.equal((await simulated().find(cancelled.intentId))?.status, 'requires_capture');

      const twice = await heldBooking(biz);
      assert.equal((await act(biz, twice.booking.id, 'no-show')).statusCode, 200);
      await assertRefused(await act(biz, twice.booking.id, 'no-show'), /a no_show booking/);

      const plain = await setupBookable(ctx.app);
      const noDeposit = await bookOk(ctx.app, plain);
      await assertRefused(
        await act({ ...plain, accountId: null }, noDeposit.id, 'no-show'),
        /has no deposit hold to capture/,
      );

      const charged = await setupDepositBusiness(ctx.app, 'charge');
      const paid = await bookOk(ctx.app, charged);
      await confirmPayment(ctx.app, paid.payment_client_secret);
      await assertRefused(await act(charged, paid.id, 'no-show'), /deposit is paid; only a held deposit/);
    });
  });

  describe('404', () => {
    it('answers not_found for a booking that does not exist', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await act(
        { ...biz, accountId: null },
        '00000000-0000-4000-8000-000000000000',
        'no-show',
      );
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, routeOn('no-show'));
  });
});

describe('POST /v1/manage/bookings/{id}/release-hold', () => {
  describe('200', () => {
    it('releases the hold without charging; the booking keeps its status', async () => {
      const { biz, booking, intentId } = await heldBooking();
      const response = await act(biz, booking.id, 'release-hold');
      assert.equal(response.statusCode, 200, response.body);
      assert.match(response.json().detail, /released/);
      assert.equal(response.json().booking.status, 'confirmed');
      assert.equal(response.json().booking.deposit.status, 'released');
      const intent = await simulated().find(intentId);
      assert.equal(intent?.status, 'canceled');
      assert.equal(intent?.amount_received, 0);
      const trail = await auditTrail(ctx.app, booking.id);
      assert.ok(
        trail.some((line) => /^booking\.hold_released by api_key:/.test(line)),
        trail.join('\n'),
      );
    });

    it('records the release when the processor reported it before the write', async () => {
      const { biz, booking } = await heldBooking();
      const processor = simulated();
      const cancel: PaymentProcessor['cancelPaymentIntent'] = processor.cancelPaymentIntent.bind(processor);
      // The processor's event about the release overtakes the service's own write.
      (processor as PaymentProcessor).cancelPaymentIntent = async (id, key) => {
        const answer = await cancel(id, key);
        await ctx.app.inboundEvents.deliver(
          processor.event('payment_intent.canceled', (await processor.find(id))!),
        );
        return answer;
      };
      try {
        const response = await act(biz, booking.id, 'release-hold');
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().booking.deposit.status, 'released');
      } finally {
        (processor as PaymentProcessor).cancelPaymentIntent = cancel;
      }
      const trail = await auditTrail(ctx.app, booking.id);
      assert.ok(trail.includes('deposit.released by system'), trail.join('\n'));
      assert.ok(
        trail.some((line) => line.startsWith('booking.hold_released by api_key:')),
        trail.join('\n'),
      );
    });
  });

  describe('409', () => {
    it('answers {detail} when there is no held deposit to release', async () => {
      const { biz, booking } = await heldBooking();
      assert.equal((await act(biz, booking.id, 'release-hold')).statusCode, 200);
      await assertRefused(
        await act(biz, booking.id, 'release-hold'),
        /deposit is released; only a held deposit/,
      );

      const captured = await heldBooking(biz);
      assert.equal((await act(biz, captured.booking.id, 'no-show')).statusCode, 200);
      await assertRefused(await act(biz, captured.booking.id, 'release-hold'), /deposit is captured/);

      const plain = await setupBookable(ctx.app);
      const noDeposit = await bookOk(ctx.app, plain);
      await assertRefused(
        await act({ ...plain, accountId: null }, noDeposit.id, 'release-hold'),
        /has no deposit hold to release/,
      );
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, routeOn('release-hold'));
  });
});
