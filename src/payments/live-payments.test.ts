import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, guest, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import {
  bookingView,
  confirmPayment,
  connectPaymentAccount,
  intentIdOf,
  setupDepositBusiness,
} from '../../test/deposit-fixtures.ts';
import { bearer, createTenant, useTestApp } from '../../test/helpers.ts';
import { paymentsWarning } from './processors.adapter.ts';

/**
 * A deployment without Stripe and without SIMULATED_PAYMENTS (compose.yaml as shipped): the
 * simulated processor serves sandbox businesses only, so nothing of a live business or of a
 * developer's plan can be paid on its pages.
 */
const ctx = useTestApp({ simulatedPayments: false });

const simulated = () => ctx.app.payments.simulated;
const post = (url: string, payload?: object) =>
  ctx.app.inject({ method: 'POST', url, ...(payload && { payload }) });
const get = (url: string) => ctx.app.inject({ method: 'GET', url });

function assertError(response: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(JSON.parse(response.body).error.code, code);
}

/** A live business with a finished payment account, taking charges (as set while payments were simulated). */
async function liveChargingBusiness() {
  const biz = await setupBookable(ctx.app);
  await connectPaymentAccount(ctx.app, biz.tenant.businessId);
  await ctx.app.db
    .updateTable('businesses')
    .set({ deposit_type: 'charge' })
    .where('id', '=', biz.tenant.businessId)
    .execute();
  return biz;
}

describe('the start without a payment processor for live businesses', () => {
  it('says so in one warning line, and only then', () => {
    const warning = paymentsWarning(ctx.config);
    assert.ok(warning);
    assert.doesNotMatch(warning, /\n/);
    assert.match(warning, /STRIPE_SECRET_KEY/);
    assert.match(warning, /SIMULATED_PAYMENTS/);
    assert.equal(paymentsWarning({ ...ctx.config, simulatedPayments: true }), undefined);
    assert.equal(paymentsWarning({ ...ctx.config, stripeSecretKey: 'sk_test_1' }), undefined);
  });
});

describe('live deposits without a payment processor', () => {
  it('answer 422 deposits_not_enabled, writing nothing and asking the processor nothing', async () => {
    const biz = await liveChargingBusiness();
    const booking = await postBooking(ctx.app, biz);
    assertError(booking, 422, 'deposits_not_enabled');
    const staffDeposit = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff-deposit',
      headers: biz.tenant.headers,
      payload: { date: BOOKING_DAY, time: '12:00', ...guest() },
    });
    assertError(staffDeposit, 422, 'deposits_not_enabled');
    const settings = await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/manage/settings',
      headers: biz.tenant.headers,
      payload: { deposit_type: 'authorization_hold' },
    });
    assertError(settings, 422, 'deposits_not_enabled');
    const onboard = await ctx.app.inject({
      method: 'POST',
      url: '/v1/billing/connect/onboard',
      headers: biz.tenant.headers,
    });
    assertError(onboard, 422, 'deposits_not_enabled');
    const subscription = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/subscription',
      headers: biz.tenant.headers,
    });
    assert.equal(subscription.json().deposits_enabled, false);
    assert.equal((await ctx.app.db.selectFrom('bookings').select('id').execute()).length, 0);
    assert.equal(
      (await ctx.app.db.selectFrom('simulated_processor_objects').select('id').execute()).length,
      0,
    );
  });

  it('leave sandbox businesses paying through the simulated processor', async () => {
    const biz = await setupDepositBusiness(ctx.app, 'charge', { sandbox: true });
    const booking = (await postBooking(ctx.app, biz)).json().booking;
    assert.equal(booking.status, 'pending');
    await confirmPayment(ctx.app, booking.payment_client_secret);
    const paid = await bookingView(ctx.app, biz, booking.id);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.deposit.status, 'paid');
  });
});

describe('developer billing without a payment processor', () => {
  it('answers 503 billing_not_configured for a checkout and for the portal', async () => {
    const tenant = await createTenant(ctx.app);
    const headers = bearer(tenant.developer.token);
    const checkout = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/checkout',
      headers,
      payload: { plan: 'premium' },
    });
    assertError(checkout, 503, 'billing_not_configured');
    const portal = await ctx.app.inject({ method: 'POST', url: '/v1/developer/billing/portal', headers });
    assertError(portal, 503, 'billing_not_configured');
  });
});

describe("the simulated processor's pages, for objects of live businesses and plans left from before", () => {
  it('answer 404 and move nothing: payments, payment links, plans, portals and onboarding', async () => {
    const live = await setupBookable(ctx.app);
    const businessId = live.tenant.businessId;
    const metadata = { booking_id: crypto.randomUUID(), business_id: businessId };
    const intent = await simulated().createPaymentIntent({
      amountCents: 1000,
      currency: 'eur',
      captureMethod: 'automatic',
      destinationAccountId: null,
      metadata,
      idempotencyKey: 'left:intent',
    });
    const secret = intent.clientSecret;
    assertError(
      await get(`/simulated-processor/payment_intents/${intent.id}?client_secret=${secret}`),
      404,
      'not_found',
    );
    assertError(
      await post(`/simulated-processor/payment_intents/${intent.id}/confirm`, {
        client_secret: secret,
        outcome: 'succeed',
      }),
      404,
      'not_found',
    );
    assert.equal((await simulated().find(intentIdOf(secret)))?.status, 'requires_payment_method');

    const link = await simulated().createPaymentCheckout({
      amountCents: 1000,
      currency: 'eur',
      description: 'Deposit',
      customerEmail: 'guest@example.com',
      expiresAt: new Date(Date.now() + 3_600_000),
      successUrl: 'https://example.com',
      cancelUrl: 'https://example.com',
      destinationAccountId: null,
      metadata,
      idempotencyKey: 'left:link',
    });
    const plan = await simulated().createSubscriptionCheckout({
      plan: { id: 'premium', name: 'Premium', priceCents: 12900 },
      customerId: 'cus_left',
      successUrl: 'https://example.com',
      cancelUrl: 'https://example.com',
      metadata: { developer_id: live.tenant.developer.id },
      idempotencyKey: 'left:plan',
    });
    for (const session of [link, plan]) {
      assertError(await get(`/simulated-processor/checkout/${session.id}`), 404, 'not_found');
      assertError(await post(`/simulated-processor/checkout/${session.id}/complete`), 404, 'not_found');
      assertError(await post(`/simulated-processor/checkout/${session.id}/expire`), 404, 'not_found');
      assert.equal((await simulated().find(session.id))?.status, 'open');
    }

    const portal = new URL(
      (await simulated().createPortalSession({ customerId: 'cus_left', returnUrl: 'https://example.com' }))
        .url,
    ).pathname;
    assertError(await get(portal), 404, 'not_found');
    assertError(await post(`${portal}/cancel_now`), 404, 'not_found');

    const account = await simulated().createConnectedAccount({
      email: null,
      metadata: { business_id: businessId },
      idempotencyKey: 'left:account',
    });
    const onboarding = new URL(
      (
        await simulated().createOnboardingLink({
          accountId: account.id,
          refreshUrl: 'https://example.com',
          returnUrl: 'https://example.com',
        })
      ).url,
    ).pathname;
    assertError(await get(onboarding), 404, 'not_found');
    assertError(await post(`${onboarding}/complete`), 404, 'not_found');
    assert.equal((await simulated().retrieveConnectedAccount(account.id)).chargesEnabled, false);

    const developer = await ctx.app.db
      .selectFrom('developers')
      .select('subscription_status')
      .where('id', '=', live.tenant.developer.id)
      .executeTakeFirstOrThrow();
    assert.equal(developer.subscription_status, 'trial');
  });

  it("still serve a sandbox business's payment link and onboarding", async () => {
    const sandbox = await setupBookable(ctx.app, { sandbox: true });
    const link = await simulated().createPaymentCheckout({
      amountCents: 1000,
      currency: 'eur',
      description: 'Deposit',
      customerEmail: 'guest@example.com',
      expiresAt: new Date(Date.now() + 3_600_000),
      successUrl: 'https://example.com',
      cancelUrl: 'https://example.com',
      destinationAccountId: null,
      metadata: { booking_id: crypto.randomUUID(), business_id: sandbox.tenant.businessId },
      idempotencyKey: 'sandbox:link',
    });
    assert.equal((await get(`/simulated-processor/checkout/${link.id}`)).statusCode, 200);
    const completed = await post(`/simulated-processor/checkout/${link.id}/complete`);
    assert.equal(completed.statusCode, 200, completed.body);
    const onboard = await ctx.app.inject({
      method: 'POST',
      url: '/v1/billing/connect/onboard',
      headers: sandbox.tenant.headers,
    });
    assert.equal(onboard.statusCode, 200, onboard.body);
    const page = await get(new URL(onboard.json().onboarding_url).pathname);
    assert.equal(page.statusCode, 200, page.body);
  });
});
