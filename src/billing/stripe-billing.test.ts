import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type FakeStripe, startFakeStripe } from '../../test/fake-stripe.ts';
import { bearer, createTenant, createTestApp, type TestContext } from '../../test/helpers.ts';
import { sendProcessorEvent } from '../../test/processor-events.ts';

/** The app configured for Stripe, its SDK pointed at a local fake of Stripe's API. */
let ctx: TestContext;
let fake: FakeStripe;
before(async () => {
  fake = await startFakeStripe();
  ctx = await createTestApp({
    stripeSecretKey: 'sk_test_fake',
    stripeApiBase: fake.url,
    paymentsWebhookSecret: 'whsec_test_endpoint',
  });
});
after(async () => {
  await ctx.close();
  await fake.stop();
});
beforeEach(async () => {
  fake.reset();
  await ctx.reset();
});

const checkout = (token: string, plan = 'pro') =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/developer/billing/checkout',
    headers: bearer(token),
    payload: { plan },
  });

const sessionsAtStripe = () => [...fake.objects.values()].filter((o) => o.object === 'checkout.session');

describe('with STRIPE_SECRET_KEY', () => {
  it('keeps one open plan checkout per developer: a new one expires the open one at Stripe', async () => {
    const tenant = await createTenant(ctx.app);
    assert.equal((await checkout(tenant.developer.token, 'pro')).statusCode, 200);
    assert.equal((await checkout(tenant.developer.token, 'premium')).statusCode, 200);
    const [first, second] = sessionsAtStripe();
    assert.equal(first!.status, 'expired');
    assert.equal(second!.status, 'open');
    assert.deepEqual(
      fake.requestsTo('POST', /^\/v1\/checkout\/sessions\/.+\/expire$/).map((r) => r.path),
      [`/v1/checkout/sessions/${first!.id}/expire`],
    );
    assert.throws(() => fake.completeSubscriptionCheckout(first!.id as string));
  });

  it('cancels at Stripe the subscription a second paid checkout replaces: one plan is billed', async () => {
    const tenant = await createTenant(ctx.app);
    await checkout(tenant.developer.token, 'pro');
    const [first] = sessionsAtStripe();
    // Paid in the instant before the second checkout was opened, its events not yet arrived.
    const pro = fake.completeSubscriptionCheckout(first!.id as string);
    assert.equal((await checkout(tenant.developer.token, 'premium')).statusCode, 200);
    const [, second] = sessionsAtStripe();
    const premium = fake.completeSubscriptionCheckout(second!.id as string);
    for (const [type, object] of [
      ['checkout.session.completed', pro.session],
      ['customer.subscription.updated', pro.subscription],
      ['checkout.session.completed', premium.session],
    ] as const) {
      const response = await sendProcessorEvent(ctx.app, type, object as { id: string });
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.equal(pro.subscription.status, 'active', 'cancelled by a job, outside the event');
    await ctx.app.jobs.runAll();
    assert.equal(pro.subscription.status, 'canceled');
    assert.equal(premium.subscription.status, 'active');
    const cancels = fake.requestsTo('DELETE', /^\/v1\/subscriptions\//);
    assert.deepEqual(
      cancels.map((r) => [r.path, r.idempotencyKey]),
      [[`/v1/subscriptions/${pro.subscription.id}`, `billing:${pro.subscription.id}:cancel`]],
    );
    await sendProcessorEvent(ctx.app, 'customer.subscription.deleted', pro.subscription as { id: string });
    const read = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/subscription',
      headers: tenant.headers,
    });
    assert.equal(read.json().subscription_status, 'active');
    assert.equal(read.json().subscription_plan_id, 'premium');
    await ctx.app.jobs.runAll();
    assert.equal(fake.requestsTo('DELETE', /^\/v1\/subscriptions\//).length, 1, 'cancelled once');
  });

  it('sells a plan through a Stripe checkout, which its event then activates', async () => {
    const tenant = await createTenant(ctx.app);
    const developerId = tenant.developer.id;
    const response = await checkout(tenant.developer.token);
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.json().checkout_url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const [customer] = fake.requestsTo('POST', /^\/v1\/customers$/);
    assert.equal(customer!.idempotencyKey, `developer:${developerId}:customer`);
    assert.deepEqual(customer!.body.metadata, { developer_id: developerId });
    assert.equal(customer!.body.email, tenant.developer.email);
    const [session] = fake.requestsTo('POST', /^\/v1\/checkout\/sessions$/);
    const customerId = [...fake.objects.values()].find((o) => o.object === 'customer')!.id as string;
    assert.equal(session!.body.mode, 'subscription');
    assert.equal(session!.body.customer, customerId);
    assert.deepEqual(session!.body.metadata, { developer_id: developerId, plan: 'pro' });
    assert.deepEqual(session!.body.subscription_data, {
      metadata: { developer_id: developerId, plan: 'pro' },
    });

    await checkout(tenant.developer.token, 'premium');
    assert.equal(fake.requestsTo('POST', /^\/v1\/customers$/).length, 1, 'the customer is made once');

    const sessionId = [...fake.objects.values()].find((o) => o.object === 'checkout.session')!.id as string;
    const event = await sendProcessorEvent(ctx.app, 'checkout.session.completed', {
      id: sessionId,
      object: 'checkout.session',
      mode: 'subscription',
      customer: customerId,
      subscription: 'sub_stripe_1',
      metadata: { developer_id: developerId, plan: 'pro' },
    });
    assert.equal(event.statusCode, 200, event.body);
    const subscription = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/subscription',
      headers: tenant.headers,
    });
    assert.equal(subscription.json().subscription_status, 'active');
    assert.equal(subscription.json().subscription_plan_id, 'pro');

    const portal = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/portal',
      headers: bearer(tenant.developer.token),
    });
    assert.equal(portal.statusCode, 200, portal.body);
    assert.match(portal.json().portal_url, /^https:\/\/billing\.stripe\.com\//);
  });

  it("verifies Stripe's events with PAYMENTS_WEBHOOK_SECRET only", async () => {
    const body = JSON.stringify({
      id: 'evt_x',
      type: 'customer.created',
      created: 0,
      data: { object: { id: 'cus_x' } },
    });
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/webhooks/payments',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: body,
    });
    assert.equal(response.statusCode, 400);
    assert.equal(ctx.app.payments.webhookSecret, 'whsec_test_endpoint');
  });

  it("onboards a live business's Express account on Stripe, and deposits follow its completion", async () => {
    const tenant = await createTenant(ctx.app);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/billing/connect/onboard',
      headers: tenant.headers,
      payload: { return_url: 'https://dashboard.example.com/connected' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { onboarding_url, connect_id } = response.json();
    assert.match(onboarding_url, /^https:\/\/connect\.stripe\.com\/setup\//);
    assert.match(connect_id, /^acct_/);
    const [account] = fake.requestsTo('POST', /^\/v1\/accounts$/);
    assert.equal(account!.body.type, 'express');
    assert.equal(account!.idempotencyKey, `business:${tenant.businessId}:connected-account:stripe`);
    const [link] = fake.requestsTo('POST', /^\/v1\/account_links$/);
    assert.deepEqual(link!.body, {
      account: connect_id,
      refresh_url: ctx.config.publicBaseUrl,
      return_url: 'https://dashboard.example.com/connected',
      type: 'account_onboarding',
    });

    const again = await ctx.app.inject({
      method: 'POST',
      url: '/v1/billing/connect/onboard',
      headers: tenant.headers,
    });
    assert.equal(again.json().connect_id, connect_id);
    assert.equal(fake.requestsTo('POST', /^\/v1\/accounts$/).length, 1, 'the account is reused');

    const shown = async () =>
      (
        await ctx.app.inject({ method: 'GET', url: '/v1/manage/subscription', headers: tenant.headers })
      ).json().deposits_enabled;
    assert.equal(await shown(), false);
    fake.completeOnboarding(connect_id);
    const status = await ctx.app.inject({
      method: 'GET',
      url: '/v1/billing/connect/status',
      headers: tenant.headers,
    });
    assert.deepEqual(status.json(), {
      connected: true,
      details_submitted: true,
      charges_enabled: true,
      payouts_enabled: true,
      connect_id,
    });
    assert.equal(fake.requestsTo('GET', new RegExp(`^/v1/accounts/${connect_id}$`)).length, 1);
    assert.equal(await shown(), true);
  });

  it('keeps sandbox businesses on the simulated processor', async () => {
    const tenant = await createTenant(ctx.app, { is_dev: true });
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/billing/connect/onboard',
      headers: tenant.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(new URL(response.json().onboarding_url).pathname, /^\/simulated-processor\/connect\//);
    assert.deepEqual(fake.requests, []);
  });

  it("answers 409 when Stripe refuses, and a plain failure when Stripe can't be reached", async () => {
    const tenant = await createTenant(ctx.app);
    await ctx.database.db
      .updateTable('developers')
      .set({ processor_customer_id: 'cus_unknown_to_stripe' })
      .where('id', '=', tenant.developer.id)
      .execute();
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/portal',
      headers: bearer(tenant.developer.token),
    });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json().error.message, /payment processor refused/);
    fake.failNext(3);
    const failed = await checkout(tenant.developer.token);
    assert.equal(failed.statusCode, 500, failed.body);
    assert.equal(failed.json().error.code, 'internal_error');
    assert.equal(
      fake.requestsTo('POST', /^\/v1\/checkout\/sessions$/).length,
      3,
      'the SDK tried three times',
    );
  });
});
