import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import {
  BOOKING_DAY,
  bookOk,
  daysFromNow,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import {
  auditTrail,
  bookingView,
  confirmPayment,
  type DepositBusiness,
  depositRow,
  intentIdOf,
  saveCard,
  setupDepositBusiness,
} from '../../test/deposit-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';
import { sendProcessorEvent } from '../../test/processor-events.ts';
import { setSubscription } from '../billing/subscription.service.ts';
import type { PaymentProcessor } from '../payments/processor.adapter.ts';
import { DECLINING_PAYMENT_METHOD } from '../payments/simulated-processor.adapter.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Within 6 days: a hold is placed at booking. */
const SOON = daysFromNow(2);
/** Beyond 6 days: a hold saves the card and is placed later. */
const FAR = daysFromNow(10);

const simulated = () => ctx.app.payments.simulated;
/** Moves the service's clock to `ms` from now. */
const later = (ms: number) => {
  const at = Date.now() + ms;
  ctx.app.clock.now = () => at;
};
/** Runs every job; answers what the deposit and email jobs handled. */
const runJobs = async () =>
  Object.fromEntries(
    Object.entries(await ctx.app.jobs.runAll()).filter(
      ([name]) => name.startsWith('deposits.') || name === 'email',
    ),
  );
const deliver = async (type: string, objectId: string) => {
  const object = await simulated().find(objectId);
  assert.ok(object, objectId);
  return ctx.app.inboundEvents.deliver(simulated().event(type, object));
};
const processorObjects = async (type: string) =>
  (await ctx.database.db.selectFrom('simulated_processor_objects').select('object').execute())
    .map((row) => row.object)
    .filter((object) => object.object === type);

/** A booking with a deposit: the created booking and its client secret. */
async function bookWithDeposit(biz: DepositBusiness, body: Record<string, unknown> = {}) {
  const booking = await bookOk(ctx.app, biz, body);
  assert.equal(booking.status, 'pending');
  return { booking, secret: booking.payment_client_secret as string };
}

const withoutCreator = (trail: string[]) => trail.slice(1);

describe('POST /v1/bookings with a deposit', () => {
  describe('201', () => {
    it('takes a charge of the deposit per person times the party, pending until it is paid', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'charge');
      const response = await postBooking(ctx.app, biz, { capacity: 3 });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const booking = response.json().booking;
      const secret: string = booking.payment_client_secret;
      assert.match(secret, /^pi_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]+$/);
      assert.equal(booking.status, 'pending');
      assert.equal(booking.deposit_type, 'charge');
      assert.deepEqual(booking.deposit, {
        status: 'requires_payment',
        type: 'charge',
        amount_cents: 1500,
        processor_payment_id: intentIdOf(secret),
      });
      const intent = await simulated().find(intentIdOf(secret));
      assert.equal(intent?.amount, 1500);
      assert.equal(intent?.currency, 'eur');
      assert.equal(intent?.capture_method, 'automatic');
      assert.deepEqual(intent?.metadata, { booking_id: booking.id, business_id: biz.tenant.businessId });
      assert.deepEqual(intent?.transfer_data, { destination: biz.accountId });
      const row = await depositRow(ctx.app, booking.id);
      assert.ok(Math.abs(row.expires_at!.getTime() - (Date.now() + 30 * MINUTE)) < MINUTE);

      const shown = await bookingView(ctx.app, biz, booking.id);
      assert.deepEqual(shown.deposit, booking.deposit);
      assert.equal(shown.payment_client_secret, undefined);
      const list = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: biz.tenant.headers,
      });
      assert.deepEqual(list.json().items[0].deposit, booking.deposit);

      await confirmPayment(ctx.app, secret);
      const paid = await bookingView(ctx.app, biz, booking.id);
      assert.equal(paid.status, 'confirmed');
      assert.equal(paid.deposit.status, 'paid');
      assert.equal((await depositRow(ctx.app, booking.id)).expires_at, null);
      assert.deepEqual(withoutCreator(await auditTrail(ctx.app, booking.id)), [
        'booking.status_changed by system',
        'deposit.paid by system',
      ]);
    });

    it('places a EUR 20 hold captured only on a no-show; the placed hold confirms the booking', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
      const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON, capacity: 4 });
      assert.equal(booking.deposit_type, 'authorization_hold');
      assert.deepEqual(booking.deposit, {
        status: 'requires_payment',
        type: 'authorization_hold',
        amount_cents: 2000,
        processor_payment_id: intentIdOf(secret),
      });
      const intent = await simulated().find(intentIdOf(secret));
      assert.equal(intent?.capture_method, 'manual');
      assert.equal(intent?.amount, 2000);
      await confirmPayment(ctx.app, secret);
      const held = await bookingView(ctx.app, biz, booking.id);
      assert.equal(held.status, 'confirmed');
      assert.equal(held.deposit.status, 'held');
      assert.deepEqual(withoutCreator(await auditTrail(ctx.app, booking.id)), [
        'booking.status_changed by system',
        'deposit.held by system',
      ]);
    });

    it('books without a deposit as before: confirmed, `deposit` null, no secret', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await bookOk(ctx.app, biz);
      assert.equal(booking.status, 'confirmed');
      assert.equal(booking.deposit, null);
      assert.equal('payment_client_secret' in booking, false);
      assert.equal('deposit_type' in booking, false);
    });

    it('takes deposits on dynamic bookings too', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'charge', { settings: { booking_mode: 'dynamic' } });
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/dynamic/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: BOOKING_DAY,
          start_time: '12:10',
          duration_minutes: 45,
          capacity: 2,
          ...guest(),
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const booking = response.json().booking;
      assert.equal(booking.status, 'pending');
      assert.equal(booking.deposit_type, 'charge');
      assert.equal(booking.deposit.amount_cents, 1000);
      await confirmPayment(ctx.app, booking.payment_client_secret);
      assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'confirmed');
    });

    it('needs no payment account on a sandbox business, which has holds on any plan', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'authorization_hold', { sandbox: true });
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'free',
      });
      const { secret } = await bookWithDeposit(biz, { booking_date: SOON });
      assert.equal((await simulated().find(intentIdOf(secret)))?.transfer_data, null);
    });

    it('replays an idempotent booking with the same secret, stored sealed', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'charge');
      const headers = { ...biz.tenant.headers, 'idempotency-key': 'deposit-once' };
      const body = guest();
      const first = await postBooking(ctx.app, biz, body, headers);
      const again = await postBooking(ctx.app, biz, body, headers);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().booking.payment_client_secret, first.json().booking.payment_client_secret);
      const stored = await ctx.database.db
        .selectFrom('idempotency_keys')
        .select(['sealed', 'response_body'])
        .execute();
      assert.deepEqual(
        stored.map((row) => [row.sealed, row.response_body?.includes('_secret_')]),
        [[true, false]],
      );
      assert.equal((await processorObjects('payment_intent')).length, 1);
    });
  });

  describe('402', () => {
    it('refuses a hold once the plan no longer carries holds, before asking the processor', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
      await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
        status: 'active',
        planId: 'starter',
      });
      const response = await postBooking(ctx.app, biz, { booking_date: SOON });
      assert.equal(response.statusCode, 402, response.body);
      assert.equal(response.json().error.code, 'plan_upgrade_required');
      assert.deepEqual(await processorObjects('payment_intent'), []);
    });
  });

  describe('422', () => {
    it('refuses a deposit booking while the business has no payment account that can take charges', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'charge');
      await ctx.app.db.updateTable('connected_accounts').set({ charges_enabled: false }).execute();
      const response = await postBooking(ctx.app, biz);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.code, 'deposits_not_enabled');
      assert.match(response.json().error.message, /POST \/v1\/billing\/connect\/onboard/);
      assert.deepEqual(await processorObjects('payment_intent'), []);
      const list = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: biz.tenant.headers,
      });
      assert.deepEqual(list.json().items, []);
    });
  });

  describe('409', () => {
    it('cancels the payment prepared for a booking that could not be placed', async () => {
      const biz = await setupDepositBusiness(ctx.app, 'charge', {
        resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
      });
      const { booking } = await bookWithDeposit(biz);
      const taken = await postBooking(ctx.app, biz);
      assert.equal(taken.statusCode, 409, taken.body);
      assert.equal(taken.json().error.code, 'slot_unavailable');
      const statuses = (await processorObjects('payment_intent')).map((intent) => [
        intent.id === booking.deposit.processor_payment_id,
        intent.status,
      ]);
      assert.deepEqual(
        statuses.sort(([a], [b]) => Number(b) - Number(a)),
        [
          [true, 'requires_payment_method'],
          [false, 'canceled'],
        ],
      );
    });
  });
});

describe("the processor's deposit events", () => {
  it('fail a deposit on a declined card, and a later success with another card still pays it', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking, secret } = await bookWithDeposit(biz);
    await confirmPayment(ctx.app, secret, 'decline');
    const declined = await bookingView(ctx.app, biz, booking.id);
    assert.equal(declined.status, 'pending');
    assert.equal(declined.deposit.status, 'failed');
    await confirmPayment(ctx.app, secret);
    const paid = await bookingView(ctx.app, biz, booking.id);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.deposit.status, 'paid');
    assert.deepEqual(withoutCreator(await auditTrail(ctx.app, booking.id)), [
      'deposit.failed by system',
      'booking.status_changed by system',
      'deposit.paid by system',
    ]);
  });

  it('never move a deposit backwards: stale, repeated and out-of-order events change nothing', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking, secret } = await bookWithDeposit(biz);
    const paidEvent = simulated().event('payment_intent.succeeded', await confirmPayment(ctx.app, secret));
    const trail = await auditTrail(ctx.app, booking.id);
    assert.equal(await ctx.app.inboundEvents.deliver(paidEvent), 'applied');
    assert.equal(await ctx.app.inboundEvents.deliver(paidEvent), 'duplicate');
    assert.equal(await deliver('payment_intent.payment_failed', intentIdOf(secret)), 'applied');
    assert.equal(await deliver('payment_intent.canceled', intentIdOf(secret)), 'applied');
    assert.equal(await deliver('payment_intent.succeeded', intentIdOf(secret)), 'applied');
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.status, 'confirmed');
    assert.equal(shown.deposit.status, 'paid');
    assert.deepEqual(await auditTrail(ctx.app, booking.id), trail);
  });

  it('keep a hold held when an older failure arrives after it; a cancellation at the processor releases it', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON });
    await confirmPayment(ctx.app, secret);
    await deliver('payment_intent.payment_failed', intentIdOf(secret));
    assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'held');
    await simulated().update(intentIdOf(secret), { status: 'canceled' });
    await deliver('payment_intent.canceled', intentIdOf(secret));
    const released = await bookingView(ctx.app, biz, booking.id);
    assert.equal(released.deposit.status, 'released');
    assert.equal(released.status, 'confirmed');
  });

  it('settle a deposit only for its own amount and currency: a mismatch leaves it, is audited, and fails nothing', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking, secret } = await bookWithDeposit(biz, { capacity: 2 });
    const intent = (await simulated().find(intentIdOf(secret)))!;
    const amount = intent.amount as number;
    assert.equal(amount, (await depositRow(ctx.app, booking.id)).amount_cents);
    const paid = { ...intent, status: 'succeeded', amount_received: amount, currency: 'eur' };
    for (const wrong of [
      { amount_received: 1 },
      { amount_received: amount + 100 },
      { currency: 'usd' },
      { amount_received: null },
    ]) {
      const response = await sendProcessorEvent(ctx.app, 'payment_intent.succeeded', { ...paid, ...wrong });
      assert.equal(response.statusCode, 200, response.body);
    }
    const waiting = await bookingView(ctx.app, biz, booking.id);
    assert.equal(waiting.status, 'pending');
    assert.equal(waiting.deposit.status, 'requires_payment');
    const trail = withoutCreator(await auditTrail(ctx.app, booking.id));
    assert.deepEqual(trail, Array(4).fill('deposit.amount_mismatch by system'));
    const [audit] = await ctx.app.db
      .selectFrom('audit_logs')
      .select(['meta'])
      .where('entity_id', '=', booking.id)
      .where('action', '=', 'deposit.amount_mismatch')
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      { ...(audit!.meta as Record<string, unknown>), event_id: undefined },
      {
        event_id: undefined,
        event_type: 'payment_intent.succeeded',
        expected: { amount_cents: amount, currency: 'eur' },
        received: { amount_cents: 1, currency: 'eur' },
      },
    );

    const right = await sendProcessorEvent(ctx.app, 'payment_intent.succeeded', { ...paid, currency: 'EUR' });
    assert.equal(right.statusCode, 200, right.body);
    const settled = await bookingView(ctx.app, biz, booking.id);
    assert.equal(settled.status, 'confirmed');
    assert.equal(settled.deposit.status, 'paid');
  });

  it('place a hold only for its own amount: amount_capturable decides', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON });
    const intent = (await simulated().find(intentIdOf(secret)))!;
    const held = { ...intent, status: 'requires_capture', amount_capturable: 2000, currency: 'eur' };
    await sendProcessorEvent(ctx.app, 'payment_intent.amount_capturable_updated', {
      ...held,
      amount_capturable: 50,
    });
    assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'requires_payment');
    assert.deepEqual(withoutCreator(await auditTrail(ctx.app, booking.id)), [
      'deposit.amount_mismatch by system',
    ]);
    await sendProcessorEvent(ctx.app, 'payment_intent.amount_capturable_updated', held);
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.deposit.status, 'held');
    assert.equal(shown.status, 'confirmed');
  });

  it('ignore payments that are no deposit of ours', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking } = await bookWithDeposit(biz);
    for (const metadata of [
      { booking_id: randomUUID(), business_id: biz.tenant.businessId },
      { booking_id: booking.id, business_id: randomUUID() },
      { booking_id: 'not-a-uuid', business_id: '' },
      {},
    ] as Record<string, string>[]) {
      const intent = await simulated().createPaymentIntent({
        amountCents: 700,
        currency: 'eur',
        captureMethod: 'automatic',
        destinationAccountId: null,
        metadata,
        idempotencyKey: `other:${randomUUID()}`,
      });
      assert.equal(await deliver('payment_intent.succeeded', intent.id), 'applied');
    }
    // The booking's own metadata on another payment than its deposit's is not its deposit either.
    const stray = await simulated().createPaymentIntent({
      amountCents: 700,
      currency: 'eur',
      captureMethod: 'automatic',
      destinationAccountId: null,
      metadata: { booking_id: booking.id, business_id: biz.tenant.businessId },
      idempotencyKey: `other:${randomUUID()}`,
    });
    await deliver('payment_intent.succeeded', stray.id);
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.status, 'pending');
    assert.equal(shown.deposit.status, 'requires_payment');
  });
});

describe('the deadline of an unpaid deposit', () => {
  it('cancels the booking after payment_hold_minutes, frees its slot at once and cancels the payment', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge', {
      settings: { payment_hold_minutes: 10 },
      resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
    });
    const { booking, secret } = await bookWithDeposit(biz);
    later(9 * MINUTE);
    assert.equal((await runJobs())['deposits.expire'], 0);
    assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'pending');
    later(11 * MINUTE);
    assert.equal((await runJobs())['deposits.expire'], 1);
    const cancelled = await bookingView(ctx.app, biz, booking.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.deposit.status, 'failed');
    assert.equal((await simulated().find(intentIdOf(secret)))?.status, 'canceled');
    assert.deepEqual(withoutCreator(await auditTrail(ctx.app, booking.id)), [
      'booking.cancelled_unpaid by system',
      'deposit.failed by system',
    ]);
    assert.equal((await runJobs())['deposits.expire'], 0);
    ctx.app.clock.now = () => Date.now();
    assert.equal((await postBooking(ctx.app, biz)).statusCode, 201);
  });

  it('cancels a booking whose card was declined once the deadline passes', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking, secret } = await bookWithDeposit(biz);
    await confirmPayment(ctx.app, secret, 'decline');
    later(31 * MINUTE);
    await runJobs();
    const cancelled = await bookingView(ctx.app, biz, booking.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.deposit.status, 'failed');
    assert.equal((await simulated().find(intentIdOf(secret)))?.status, 'canceled');
  });

  it('leaves a booking the staff confirmed without the money confirmed', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking } = await bookWithDeposit(biz);
    const confirmed = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { status: 'confirmed' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    later(31 * MINUTE);
    await runJobs();
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.status, 'confirmed');
    assert.equal(shown.deposit.status, 'failed');
  });

  it('refunds a payment that succeeds after the booking was cancelled, never keeping it', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge');
    const { booking, secret } = await bookWithDeposit(biz);
    later(31 * MINUTE);
    await runJobs();
    // The guest's payment crossed the cancellation at the processor.
    await simulated().update(intentIdOf(secret), { status: 'succeeded', amount_received: 1000 });
    await deliver('payment_intent.succeeded', intentIdOf(secret));
    const paidLate = await bookingView(ctx.app, biz, booking.id);
    assert.equal(paidLate.status, 'cancelled');
    assert.equal(paidLate.deposit.status, 'paid');
    assert.equal((await runJobs())['deposits.reverse'], 1);
    const refunded = await bookingView(ctx.app, biz, booking.id);
    assert.equal(refunded.status, 'cancelled');
    assert.equal(refunded.deposit.status, 'refunded');
    const refunds = await processorObjects('refund');
    assert.deepEqual(
      refunds.map((refund) => [refund.payment_intent, refund.amount]),
      [[intentIdOf(secret), 1000]],
    );
    assert.equal((await runJobs())['deposits.reverse'], 0);
    assert.deepEqual((await auditTrail(ctx.app, booking.id)).slice(-2), [
      'deposit.paid by system',
      'deposit.refunded by system',
    ]);
  });

  it('releases a hold placed after the booking was cancelled', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON });
    later(31 * MINUTE);
    await runJobs();
    await simulated().update(intentIdOf(secret), { status: 'requires_capture', amount_capturable: 2000 });
    await deliver('payment_intent.amount_capturable_updated', intentIdOf(secret));
    await runJobs();
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.status, 'cancelled');
    assert.equal(shown.deposit.status, 'released');
    assert.equal((await simulated().find(intentIdOf(secret)))?.status, 'canceled');
  });

  it('releases a hold for a cancelled booking once, when the processor reports the release before the write', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON });
    later(31 * MINUTE);
    await runJobs();
    await simulated().update(intentIdOf(secret), { status: 'requires_capture', amount_capturable: 2000 });
    await deliver('payment_intent.amount_capturable_updated', intentIdOf(secret));
    const processor = simulated();
    const cancel: PaymentProcessor['cancelPaymentIntent'] = processor.cancelPaymentIntent.bind(processor);
    // The processor's event about the release overtakes the job's own write.
    (processor as PaymentProcessor).cancelPaymentIntent = async (id, key) => {
      const answer = await cancel(id, key);
      await deliver('payment_intent.canceled', id);
      return answer;
    };
    try {
      assert.equal((await runJobs())['deposits.reverse'], 1);
    } finally {
      (processor as PaymentProcessor).cancelPaymentIntent = cancel;
    }
    assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'released');
    assert.equal((await runJobs())['deposits.reverse'], 0);
    const trail = await auditTrail(ctx.app, booking.id);
    assert.ok(!trail.includes('deposit.reversal_refused by system'), trail.join('\n'));
  });

  it('refunds, once, a hold captured after its booking was cancelled', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: SOON });
    await confirmPayment(ctx.app, secret);
    const cancelled = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { status: 'cancelled' },
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    // Captured at the processor all the same (its dashboard, or a no-show crossing the cancellation).
    await simulated().capturePaymentIntent(intentIdOf(secret));
    await deliver('payment_intent.succeeded', intentIdOf(secret));
    assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'captured');
    assert.equal((await runJobs())['deposits.reverse'], 1);
    const shown = await bookingView(ctx.app, biz, booking.id);
    assert.equal(shown.deposit.status, 'refunded');
    assert.equal((await processorObjects('refund')).length, 1);
    assert.equal((await runJobs())['deposits.reverse'], 0);
  });
});

describe('a hold for a booking more than 6 days ahead', () => {
  const startOf = (date: string) => Date.parse(`${date}T12:00:00Z`);

  async function farHold(biz: DepositBusiness) {
    const { booking, secret } = await bookWithDeposit(biz, { booking_date: FAR });
    assert.match(secret, /^seti_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]+$/);
    return { booking, secret };
  }

  it('saves the card at booking and places the hold 6 days before the start', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await farHold(biz);
    assert.deepEqual(booking.deposit, {
      status: 'requires_payment',
      type: 'authorization_hold',
      amount_cents: 2000,
      processor_payment_id: null,
    });
    const row = await depositRow(ctx.app, booking.id);
    assert.equal(row.hold_due_at?.getTime(), startOf(FAR) - 6 * DAY);
    await saveCard(ctx.app, secret);
    const saved = await depositRow(ctx.app, booking.id);
    assert.equal(saved.expires_at, null);
    assert.equal(saved.processor_payment_method_id, 'pm_card_visa');
    assert.equal(saved.processor_customer_id, row.processor_customer_id);

    // The guest has done their part: the payment deadline no longer cancels it.
    ctx.app.clock.now = () => row.hold_due_at!.getTime() - MINUTE;
    assert.deepEqual(await runJobs(), {
      'deposits.expire': 0,
      'deposits.place_holds': 0,
      'deposits.reverse': 0,
      email: 0,
    });
    assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'pending');

    ctx.app.clock.now = () => row.hold_due_at!.getTime() + MINUTE;
    assert.equal((await runJobs())['deposits.place_holds'], 1);
    const held = await bookingView(ctx.app, biz, booking.id);
    assert.equal(held.status, 'confirmed');
    assert.equal(held.deposit.status, 'held');
    const intent = await simulated().find(held.deposit.processor_payment_id);
    assert.equal(intent?.status, 'requires_capture');
    assert.equal(intent?.capture_method, 'manual');
    assert.equal(intent?.customer, row.processor_customer_id);
    assert.equal(intent?.payment_method, 'pm_card_visa');
    assert.deepEqual(intent?.transfer_data, { destination: biz.accountId });
    assert.equal((await runJobs())['deposits.place_holds'], 0);
  });

  it('fails the deposit on a declined saved card and leaves the booking pending for the staff', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await farHold(biz);
    await saveCard(ctx.app, secret, DECLINING_PAYMENT_METHOD);
    ctx.app.clock.now = () => startOf(FAR) - 6 * DAY + MINUTE;
    await runJobs();
    const failed = await bookingView(ctx.app, biz, booking.id);
    assert.equal(failed.status, 'pending');
    assert.equal(failed.deposit.status, 'failed');
    const entry = await ctx.app.db
      .selectFrom('audit_logs')
      .select(['user_email', 'meta'])
      .where('entity_id', '=', booking.id)
      .where('action', '=', 'deposit.failed')
      .executeTakeFirstOrThrow();
    assert.equal(entry.user_email, 'system');
    assert.match(String((entry.meta as { reason: string }).reason), /declined/);
    ctx.app.clock.now = () => startOf(FAR) - DAY;
    assert.equal((await runJobs())['deposits.place_holds'], 0);
    assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'pending');
  });

  it('moves the hold with its booking when the booking is rescheduled', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking } = await farHold(biz);
    const moved = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { booking_date: daysFromNow(12), start_time: '15:00' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    const row = await depositRow(ctx.app, booking.id);
    assert.equal(row.hold_due_at?.getTime(), Date.parse(`${daysFromNow(12)}T15:00:00Z`) - 6 * DAY);
  });

  it('cancels the booking when no card is saved by the deadline', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking } = await farHold(biz);
    later(31 * MINUTE);
    await runJobs();
    const cancelled = await bookingView(ctx.app, biz, booking.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.deposit.status, 'failed');
  });

  it('places one hold when the processor placed it but the service did not record it', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'authorization_hold');
    const { booking, secret } = await farHold(biz);
    await saveCard(ctx.app, secret);
    const row = await depositRow(ctx.app, booking.id);
    ctx.app.clock.now = () => row.hold_due_at!.getTime() + MINUTE;
    // A process placed the hold and died before writing it down; the processor's event arrives.
    const placed = await simulated().createPaymentIntent({
      amountCents: 2000,
      currency: 'eur',
      captureMethod: 'manual',
      destinationAccountId: biz.accountId,
      metadata: { booking_id: booking.id, business_id: biz.tenant.businessId },
      idempotencyKey: `deposit:${booking.id}:hold`,
      savedCard: { customerId: row.processor_customer_id!, paymentMethodId: 'pm_card_visa' },
    });
    await deliver('payment_intent.amount_capturable_updated', placed.id);
    assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.processor_payment_id, placed.id);
    await runJobs();
    const held = await bookingView(ctx.app, biz, booking.id);
    assert.equal(held.status, 'confirmed');
    assert.equal(held.deposit.status, 'held');
    assert.equal((await processorObjects('payment_intent')).length, 1);
  });
});
