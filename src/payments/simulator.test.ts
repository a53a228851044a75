import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTestApp, RACE, type TestContext } from '../../test/helpers.ts';
import { type ProcessorEvent, ProcessorRefusal } from './processor.adapter.ts';
import type { SimulatedProcessor } from './simulated-processor.adapter.ts';

let ctx: TestContext;
let sim: SimulatedProcessor;
/** Every event the simulator sent, in order. */
const sent: ProcessorEvent[] = [];

before(async () => {
  ctx = await createTestApp({}, (app) => {
    const deliver = app.inboundEvents.deliver.bind(app.inboundEvents);
    app.inboundEvents.deliver = (event) => {
      sent.push(event);
      return deliver(event);
    };
  });
  sim = ctx.app.payments.simulated;
});
after(() => ctx.close());
beforeEach(async () => {
  sent.length = 0;
  ctx.app.clock.now = () => Date.now();
  await ctx.reset();
});

const post = (url: string, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: `/simulated-processor${url}`, payload });
const postForm = (url: string, fields: Record<string, string>) =>
  ctx.app.inject({
    method: 'POST',
    url: `/simulated-processor${url}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const get = (url: string) => ctx.app.inject({ method: 'GET', url: `/simulated-processor${url}` });

const sentTypes = () => sent.map((event) => event.type);
const recordedTypes = async () =>
  (await ctx.database.db.selectFrom('processor_events').select('type').orderBy('received_at').execute()).map(
    (row) => row.type,
  );

let keys = 0;
const intent = (captureMethod: 'automatic' | 'manual' = 'automatic') =>
  sim.createPaymentIntent({
    amountCents: 4000,
    currency: 'eur',
    captureMethod,
    destinationAccountId: null,
    metadata: { booking_id: 'b-1' },
    idempotencyKey: `test:${++keys}`,
  });
const setupIntent = async () => {
  const customer = await sim.createCustomer({
    email: 'guest@example.com',
    name: 'Guest',
    metadata: {},
    idempotencyKey: `test:${++keys}`,
  });
  return sim.createSetupIntent({
    customerId: customer.id,
    metadata: { booking_id: 'b-2' },
    idempotencyKey: `test:${++keys}`,
  });
};
const paymentCheckout = (expiresAt = new Date(Date.now() + 7_200_000)) =>
  sim.createPaymentCheckout({
    amountCents: 2500,
    currency: 'eur',
    description: 'Deposit for Chez Test',
    customerEmail: 'guest@example.com',
    expiresAt,
    successUrl: 'https://example.com/paid',
    cancelUrl: 'https://example.com/cancelled',
    destinationAccountId: null,
    metadata: { booking_id: 'b-3', deposit_id: 'd-3' },
    idempotencyKey: `test:${++keys}`,
  });
const subscriptionCheckout = async () => {
  const customer = await sim.createCustomer({
    email: 'dev@example.com',
    name: 'Dev',
    metadata: {},
    idempotencyKey: `test:${++keys}`,
  });
  const session = await sim.createSubscriptionCheckout({
    plan: { id: 'pro', name: 'Pro', priceCents: 4900 },
    customerId: customer.id,
    successUrl: 'https://example.com/ok',
    cancelUrl: 'https://example.com/no',
    metadata: { developer_id: 'dev-1' },
    idempotencyKey: `test:${++keys}`,
  });
  return { customer, session };
};
/** A completed subscription and a portal session of its customer. */
const subscribed = async () => {
  const { customer, session } = await subscriptionCheckout();
  await post(`/checkout/${session.id}/complete`);
  const portal = await sim.createPortalSession({
    customerId: customer.id,
    returnUrl: 'https://example.com/back',
  });
  const portalId = portal.url.split('/').pop()!;
  sent.length = 0;
  return { customer, portalId, subscriptionId: (await sim.find(session.id))!.subscription as string };
};

describe('payment intents', () => {
  describe('200', () => {
    it('shows the amount and the Pay and Decline buttons to the holder of the client secret', async () => {
      const pi = await intent();
      const response = await get(`/payment_intents/${pi.id}?client_secret=${pi.clientSecret}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.match(response.body, /40\.00 EUR/);
      assert.match(response.body, />Pay</);
      assert.match(response.body, />Decline</);
    });

    it('pays an automatic intent: succeeded, payment_intent.succeeded', async () => {
      const pi = await intent();
      const response = await post(`/payment_intents/${pi.id}/confirm`, {
        client_secret: pi.clientSecret,
        outcome: 'succeed',
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.id, pi.id);
      assert.equal(body.object, 'payment_intent');
      assert.equal(body.status, 'succeeded');
      assert.equal(body.amount_received, 4000);
      assert.deepEqual(sentTypes(), ['payment_intent.succeeded']);
      assert.equal(sent[0]!.data.object.id, pi.id);
      assert.deepEqual(sent[0]!.data.object.metadata, { booking_id: 'b-1' });
      assert.match(sent[0]!.id, /^evt_/);
      assert.deepEqual(await recordedTypes(), ['payment_intent.succeeded']);
    });

    it('places a hold on a manual intent: requires_capture, payment_intent.amount_capturable_updated', async () => {
      const pi = await intent('manual');
      const body = (
        await post(`/payment_intents/${pi.id}/confirm`, {
          client_secret: pi.clientSecret,
          outcome: 'succeed',
        })
      ).json();
      assert.equal(body.status, 'requires_capture');
      assert.equal(body.amount_capturable, 4000);
      assert.deepEqual(sentTypes(), ['payment_intent.amount_capturable_updated']);
      assert.equal((await sim.find(pi.id))!.status, 'requires_capture');
    });

    it('declines with last_payment_error and lets the guest try another card', async () => {
      const pi = await intent();
      const declined = await post(`/payment_intents/${pi.id}/confirm`, {
        client_secret: pi.clientSecret,
        outcome: 'decline',
      });
      assert.equal(declined.statusCode, 200, declined.body);
      assert.equal(declined.json().status, 'requires_payment_method');
      assert.equal(declined.json().last_payment_error.code, 'card_declined');
      const paid = await post(`/payment_intents/${pi.id}/confirm`, {
        client_secret: pi.clientSecret,
        outcome: 'succeed',
      });
      assert.equal(paid.json().status, 'succeeded');
      assert.equal(paid.json().last_payment_error, null);
      assert.deepEqual(sentTypes(), ['payment_intent.payment_failed', 'payment_intent.succeeded']);
      assert.equal(
        (sent[0]!.data.object.last_payment_error as { code: string }).code,
        'card_declined',
        'the failed event carries the error',
      );
    });
  });

  describe('303', () => {
    it("answers the page's form with a redirect back to the page", async () => {
      const pi = await intent();
      const response = await postForm(`/payment_intents/${pi.id}/confirm`, {
        client_secret: pi.clientSecret,
        outcome: 'succeed',
      });
      assert.equal(response.statusCode, 303, response.body);
      const page = await ctx.app.inject({ method: 'GET', url: response.headers.location! });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /succeeded/);
      assert.doesNotMatch(page.body, />Pay</, 'nothing left to pay');
    });
  });

  describe('404', () => {
    it('refuses a wrong client secret, an unknown id and an object of another kind alike', async () => {
      const pi = await intent();
      const seti = await setupIntent();
      for (const [id, secret] of [
        [pi.id, `${pi.id}_secret_wrong`],
        ['pi_unknown', pi.clientSecret],
        [seti.id, seti.clientSecret],
      ]) {
        const page = await get(`/payment_intents/${id}?client_secret=${secret}`);
        assert.equal(page.statusCode, 404, page.body);
        const action = await post(`/payment_intents/${id}/confirm`, {
          client_secret: secret,
          outcome: 'succeed',
        });
        assert.equal(action.statusCode, 404, action.body);
        assert.equal(action.json().error.code, 'not_found');
      }
      assert.deepEqual(sent, []);
      assert.equal((await sim.find(pi.id))!.status, 'requires_payment_method');
    });
  });

  describe('409', () => {
    it('refuses to pay or decline an intent that no longer waits for a card, sending nothing', async () => {
      const pi = await intent('manual');
      await post(`/payment_intents/${pi.id}/confirm`, { client_secret: pi.clientSecret, outcome: 'succeed' });
      for (const outcome of ['succeed', 'decline']) {
        const response = await post(`/payment_intents/${pi.id}/confirm`, {
          client_secret: pi.clientSecret,
          outcome,
        });
        assert.equal(response.statusCode, 409, response.body);
        assert.equal(response.json().error.code, 'conflict');
        assert.match(response.json().error.message, /requires_capture/);
      }
      assert.deepEqual(sentTypes(), ['payment_intent.amount_capturable_updated']);
    });

    it('moves an intent once when two guests press Pay at once', RACE, async () => {
      const pi = await intent();
      const answers = await Promise.all(
        [1, 2].map(() =>
          post(`/payment_intents/${pi.id}/confirm`, { client_secret: pi.clientSecret, outcome: 'succeed' }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
      assert.deepEqual(sentTypes(), ['payment_intent.succeeded']);
    });
  });

  describe('422', () => {
    it('refuses an unknown outcome or a missing client secret', async () => {
      const pi = await intent();
      for (const payload of [{ client_secret: pi.clientSecret, outcome: 'maybe' }, { outcome: 'succeed' }]) {
        const response = await post(`/payment_intents/${pi.id}/confirm`, payload);
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });
  });
});

describe('setup intents', () => {
  describe('200', () => {
    it('saves pm_card_visa with its customer: setup_intent.succeeded', async () => {
      const seti = await setupIntent();
      const page = await get(`/setup_intents/${seti.id}?client_secret=${seti.clientSecret}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Save card/);
      const response = await post(`/setup_intents/${seti.id}/confirm`, {
        client_secret: seti.clientSecret,
        outcome: 'succeed',
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'succeeded');
      assert.equal(body.payment_method, 'pm_card_visa');
      assert.match(body.customer, /^cus_/);
      assert.deepEqual(sentTypes(), ['setup_intent.succeeded']);
      assert.deepEqual(sent[0]!.data.object.metadata, { booking_id: 'b-2' });
    });

    it('saves a card whose hold is later declined, when asked to', async () => {
      const seti = await setupIntent();
      const body = (
        await post(`/setup_intents/${seti.id}/confirm`, {
          client_secret: seti.clientSecret,
          outcome: 'succeed',
          payment_method: 'pm_card_chargeDeclined',
        })
      ).json();
      assert.equal(body.payment_method, 'pm_card_chargeDeclined');
    });

    it('declines: setup_intent.setup_failed with last_setup_error', async () => {
      const seti = await setupIntent();
      const body = (
        await post(`/setup_intents/${seti.id}/confirm`, {
          client_secret: seti.clientSecret,
          outcome: 'decline',
        })
      ).json();
      assert.equal(body.status, 'requires_payment_method');
      assert.equal(body.last_setup_error.code, 'card_declined');
      assert.deepEqual(sentTypes(), ['setup_intent.setup_failed']);
    });
  });

  describe('404', () => {
    it('refuses a wrong client secret', async () => {
      const seti = await setupIntent();
      const response = await post(`/setup_intents/${seti.id}/confirm`, {
        client_secret: 'seti_x_secret_y',
        outcome: 'succeed',
      });
      assert.equal(response.statusCode, 404);
      assert.equal((await get(`/setup_intents/${seti.id}?client_secret=nope`)).statusCode, 404);
    });
  });

  describe('409', () => {
    it('refuses a setup intent already confirmed', async () => {
      const seti = await setupIntent();
      await post(`/setup_intents/${seti.id}/confirm`, {
        client_secret: seti.clientSecret,
        outcome: 'succeed',
      });
      const again = await post(`/setup_intents/${seti.id}/confirm`, {
        client_secret: seti.clientSecret,
        outcome: 'decline',
      });
      assert.equal(again.statusCode, 409, again.body);
      assert.deepEqual(sentTypes(), ['setup_intent.succeeded']);
    });
  });
});

describe('checkout sessions', () => {
  describe('200', () => {
    it('shows a payment link with its amount, Pay and Let it expire', async () => {
      const session = await paymentCheckout();
      const page = await get(`/checkout/${session.id}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /25\.00 EUR/);
      assert.match(page.body, /Deposit for Chez Test/);
      assert.match(page.body, /Let it expire/);
    });

    it('pays a payment-mode session with a paid intent carrying its metadata: checkout.session.completed', async () => {
      const session = await paymentCheckout();
      const response = await post(`/checkout/${session.id}/complete`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'complete');
      assert.equal(body.payment_status, 'paid');
      assert.match(body.payment_intent, /^pi_/);
      const pi = (await sim.find(body.payment_intent))!;
      assert.equal(pi.status, 'succeeded');
      assert.equal(pi.amount_received, 2500);
      assert.deepEqual(pi.metadata, { booking_id: 'b-3', deposit_id: 'd-3' });
      assert.deepEqual(sentTypes(), ['checkout.session.completed']);
      const event = sent[0]!.data.object;
      assert.equal(event.id, session.id);
      assert.equal(event.mode, 'payment');
      assert.equal(event.payment_status, 'paid');
      assert.equal(event.payment_intent, body.payment_intent);
      assert.deepEqual(event.metadata, { booking_id: 'b-3', deposit_id: 'd-3' });
    });

    it('starts a subscription: checkout.session.completed, then customer.subscription.updated', async () => {
      const { customer, session } = await subscriptionCheckout();
      const now = Date.parse('2026-01-31T10:00:00Z');
      ctx.app.clock.now = () => now;
      const body = (await post(`/checkout/${session.id}/complete`)).json();
      assert.match(body.subscription, /^sub_/);
      assert.deepEqual(sentTypes(), ['checkout.session.completed', 'customer.subscription.updated']);
      const completed = sent[0]!.data.object;
      assert.equal(completed.mode, 'subscription');
      assert.equal(completed.customer, customer.id);
      assert.equal(completed.subscription, body.subscription);
      assert.deepEqual(completed.metadata, { developer_id: 'dev-1', plan: 'pro' });
      const subscription = sent[1]!.data.object;
      assert.equal(subscription.id, body.subscription);
      assert.equal(subscription.status, 'active');
      assert.equal(subscription.customer, customer.id);
      assert.equal(subscription.cancel_at_period_end, false);
      assert.deepEqual(subscription.metadata, { developer_id: 'dev-1', plan: 'pro' });
      assert.equal(
        new Date((subscription.current_period_end as number) * 1000).toISOString(),
        '2026-02-28T10:00:00.000Z',
        'one month on, the end of a shorter month',
      );
    });

    it('lets an open session expire: checkout.session.expired', async () => {
      const session = await paymentCheckout();
      const response = await post(`/checkout/${session.id}/expire`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'expired');
      assert.deepEqual(sentTypes(), ['checkout.session.expired']);
      assert.match((await get(`/checkout/${session.id}`)).body, /https:\/\/example\.com\/cancelled/);
    });
  });

  describe('303', () => {
    it('sends the form back to the page, which then links to the success URL', async () => {
      const session = await paymentCheckout();
      const response = await postForm(`/checkout/${session.id}/complete`, {});
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, `/simulated-processor/checkout/${session.id}`);
      assert.match((await get(`/checkout/${session.id}`)).body, /https:\/\/example\.com\/paid/);
    });
  });

  describe('404', () => {
    it('knows no session by an unknown id or the id of another kind of object', async () => {
      const pi = await intent();
      for (const id of ['cs_test_unknown', pi.id]) {
        assert.equal((await get(`/checkout/${id}`)).statusCode, 404);
        assert.equal((await post(`/checkout/${id}/complete`)).statusCode, 404);
        assert.equal((await post(`/checkout/${id}/expire`)).statusCode, 404);
      }
      assert.equal((await get('/checkout/not%20an%20id')).statusCode, 404);
    });
  });

  describe('409', () => {
    it('refuses to pay a session twice, or after it expired, and to expire a paid one', async () => {
      const paid = await paymentCheckout();
      assert.equal((await post(`/checkout/${paid.id}/complete`)).statusCode, 200);
      assert.equal((await post(`/checkout/${paid.id}/complete`)).statusCode, 409);
      assert.equal((await post(`/checkout/${paid.id}/expire`)).statusCode, 409);
      const expired = await paymentCheckout();
      assert.equal((await post(`/checkout/${expired.id}/expire`)).statusCode, 200);
      assert.equal((await post(`/checkout/${expired.id}/complete`)).statusCode, 409);
      assert.deepEqual(sentTypes(), ['checkout.session.completed', 'checkout.session.expired']);
    });

    it('refuses to pay an open session past its expires_at', async () => {
      const session = await paymentCheckout(new Date(Date.now() + 1_800_000));
      ctx.app.clock.now = () => Date.now() + 1_800_000;
      const response = await post(`/checkout/${session.id}/complete`);
      assert.equal(response.statusCode, 409, response.body);
      assert.match(response.json().error.message, /expired/);
      assert.deepEqual(sent, []);
    });
  });
});

describe('connect onboarding', () => {
  const account = async () => {
    const created = await sim.createConnectedAccount({
      email: null,
      metadata: { business_id: 'biz-1' },
      idempotencyKey: `test:${++keys}`,
    });
    const link = await sim.createOnboardingLink({
      accountId: created.id,
      refreshUrl: 'https://example.com/refresh',
      returnUrl: 'https://example.com/return',
    });
    return { accountId: created.id, linkId: link.url.split('/').pop()! };
  };

  describe('200', () => {
    it('completes onboarding: account.updated about the connected account, everything enabled', async () => {
      const { accountId, linkId } = await account();
      assert.match((await get(`/connect/${linkId}`)).body, />Complete</);
      const response = await post(`/connect/${linkId}/complete`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().id, accountId);
      assert.deepEqual(sentTypes(), ['account.updated']);
      assert.equal(sent[0]!.account, accountId);
      const object = sent[0]!.data.object;
      assert.deepEqual(
        [object.id, object.details_submitted, object.charges_enabled, object.payouts_enabled],
        [accountId, true, true, true],
      );
      assert.deepEqual(await sim.retrieveConnectedAccount(accountId), {
        id: accountId,
        detailsSubmitted: true,
        chargesEnabled: true,
        payoutsEnabled: true,
      });
      assert.match((await get(`/connect/${linkId}`)).body, /https:\/\/example\.com\/return/);
    });
  });

  describe('404', () => {
    it('knows no unknown link', async () => {
      assert.equal((await get('/connect/acctlink_unknown')).statusCode, 404);
      assert.equal((await post('/connect/acctlink_unknown/complete')).statusCode, 404);
    });
  });

  describe('409', () => {
    it('refuses to complete an account twice', async () => {
      const { linkId } = await account();
      await post(`/connect/${linkId}/complete`);
      assert.equal((await post(`/connect/${linkId}/complete`)).statusCode, 409);
      assert.deepEqual(sentTypes(), ['account.updated']);
    });
  });
});

describe('billing portal', () => {
  describe('200', () => {
    it('cancels at the period end: customer.subscription.updated with cancel_at_period_end', async () => {
      const { portalId, subscriptionId } = await subscribed();
      const page = await get(`/portal/${portalId}`);
      assert.match(page.body, /Cancel at period end/);
      assert.match(page.body, /pro/);
      const response = await post(`/portal/${portalId}/cancel_at_period_end`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().id, subscriptionId);
      assert.deepEqual(sentTypes(), ['customer.subscription.updated']);
      const subscription = sent[0]!.data.object;
      assert.equal(subscription.cancel_at_period_end, true);
      assert.equal(subscription.status, 'active');
      assert.equal(subscription.cancel_at, subscription.current_period_end);
    });

    it('cancels now: customer.subscription.deleted', async () => {
      const { portalId } = await subscribed();
      const response = await post(`/portal/${portalId}/cancel_now`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(sentTypes(), ['customer.subscription.deleted']);
      assert.equal(sent[0]!.data.object.status, 'canceled');
      assert.doesNotMatch((await get(`/portal/${portalId}`)).body, /Cancel now/);
    });

    it('fails an invoice (past due), fails it again, then pays it (active)', async () => {
      const { customer, portalId, subscriptionId } = await subscribed();
      const failed = (await post(`/portal/${portalId}/fail_invoice`)).json();
      assert.equal(failed.object, 'invoice');
      assert.equal(failed.status, 'open');
      assert.equal(failed.amount_due, 4900);
      assert.deepEqual(sentTypes(), ['invoice.payment_failed', 'customer.subscription.updated']);
      assert.equal(sent[0]!.data.object.subscription, subscriptionId);
      assert.equal(sent[0]!.data.object.customer, customer.id);
      assert.equal(sent[1]!.data.object.status, 'past_due');
      assert.match((await get(`/portal/${portalId}`)).body, /Pay the invoice/);
      const again = (await post(`/portal/${portalId}/fail_invoice`)).json();
      assert.equal(again.id, failed.id, 'the same open invoice');
      assert.equal(again.attempt_count, 2);
      sent.length = 0;
      const paid = (await post(`/portal/${portalId}/pay_invoice`)).json();
      assert.equal(paid.id, failed.id);
      assert.equal(paid.status, 'paid');
      assert.deepEqual(sentTypes(), ['invoice.payment_succeeded', 'customer.subscription.updated']);
      assert.equal(sent[0]!.data.object.subscription, subscriptionId);
      assert.equal(sent[1]!.data.object.status, 'active');
    });
  });

  describe('303', () => {
    it("sends the portal's forms back to the portal", async () => {
      const { portalId } = await subscribed();
      const response = await postForm(`/portal/${portalId}/fail_invoice`, {});
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, `/simulated-processor/portal/${portalId}`);
    });
  });

  describe('404', () => {
    it('knows no unknown portal session or action', async () => {
      const { portalId } = await subscribed();
      assert.equal((await get('/portal/bps_unknown')).statusCode, 404);
      assert.equal((await post('/portal/bps_unknown/cancel_now')).statusCode, 404);
      assert.equal((await post(`/portal/${portalId}/refund_everything`)).statusCode, 404);
    });
  });

  describe('409', () => {
    it('refuses what the subscription cannot do in its state', async () => {
      const { portalId } = await subscribed();
      assert.equal((await post(`/portal/${portalId}/pay_invoice`)).statusCode, 409, 'no open invoice');
      assert.equal((await post(`/portal/${portalId}/cancel_at_period_end`)).statusCode, 200);
      assert.equal((await post(`/portal/${portalId}/cancel_at_period_end`)).statusCode, 409, 'already set');
      assert.equal((await post(`/portal/${portalId}/fail_invoice`)).statusCode, 409, 'nothing more is due');
      assert.equal((await post(`/portal/${portalId}/cancel_now`)).statusCode, 200);
      assert.equal((await post(`/portal/${portalId}/cancel_now`)).statusCode, 409, 'already cancelled');
      assert.deepEqual(sentTypes(), ['customer.subscription.updated', 'customer.subscription.deleted']);
    });

    it('refuses every action of a customer without a subscription', async () => {
      const customer = await sim.createCustomer({
        email: 'x@example.com',
        name: 'X',
        metadata: {},
        idempotencyKey: 'k-x',
      });
      const portal = await sim.createPortalSession({
        customerId: customer.id,
        returnUrl: 'https://example.com',
      });
      const portalId = portal.url.split('/').pop()!;
      assert.match((await get(`/portal/${portalId}`)).body, /No subscription yet/);
      assert.equal((await post(`/portal/${portalId}/cancel_now`)).statusCode, 409);
    });
  });
});

describe('holds on a saved card', () => {
  it('refuses a declining card as Stripe does, again under the same key, keeping one intent', async () => {
    const request = {
      amountCents: 2000,
      currency: 'eur',
      captureMethod: 'manual' as const,
      destinationAccountId: null,
      metadata: {},
      idempotencyKey: 'hold:declining',
      savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_chargeDeclined' },
    };
    await assert.rejects(sim.createPaymentIntent(request), ProcessorRefusal);
    await assert.rejects(sim.createPaymentIntent(request), ProcessorRefusal);
    const stored = await ctx.database.db
      .selectFrom('simulated_processor_objects')
      .select('object')
      .where('idempotency_key', '=', 'hold:declining')
      .execute();
    assert.equal(stored.length, 1);
    assert.equal((stored[0]!.object as { status: string }).status, 'requires_payment_method');
    const held = await sim.createPaymentIntent({
      ...request,
      idempotencyKey: 'hold:visa',
      savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
    });
    assert.equal(held.status, 'requires_capture');
  });
});
