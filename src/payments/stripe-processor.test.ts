import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Stripe from 'stripe';
import { type FakeStripe, parseForm, startFakeStripe } from '../../test/fake-stripe.ts';
import { ProcessorRefusal } from './processor.adapter.ts';
import { StripeProcessor } from './stripe-processor.adapter.ts';

let fake: FakeStripe;
let stripe: StripeProcessor;
before(async () => {
  fake = await startFakeStripe();
  stripe = new StripeProcessor('sk_test_fake', fake.url);
});
after(() => fake.stop());
beforeEach(() => fake.reset());

let counter = 0;
const key = (step: string) => `test:${++counter}:${step}`;
const intentRequest = (overrides: Partial<Parameters<StripeProcessor['createPaymentIntent']>[0]> = {}) => ({
  amountCents: 2000,
  currency: 'eur',
  captureMethod: 'automatic' as const,
  destinationAccountId: null,
  metadata: { booking_id: 'b-1', deposit_id: 'd-1' },
  idempotencyKey: key('intent'),
  ...overrides,
});
const lastRequest = () => fake.requests.at(-1)!;
const objectsOf = (type: string) => [...fake.objects.values()].filter((o) => o.object === type);

describe('parseForm', () => {
  it('reads nested keys and indexed lists as the SDK writes them', () => {
    assert.deepEqual(parseForm('a=1&b[c]=2&b[d][e]=3&items[0][x]=4&items[1][x]=5&m[k%20y]=v%26w'), {
      a: '1',
      b: { c: '2', d: { e: '3' } },
      items: [{ x: '4' }, { x: '5' }],
      m: { 'k y': 'v&w' },
    });
  });
});

describe('StripeProcessor', () => {
  describe('payment intents', () => {
    it("creates one with the caller's idempotency key, a destination charge to the connected account", async () => {
      const intent = await stripe.createPaymentIntent(intentRequest({ destinationAccountId: 'acct_123' }));
      assert.match(intent.id, /^pi_/);
      assert.match(intent.clientSecret, new RegExp(`^${intent.id}_secret_`));
      assert.equal(intent.status, 'requires_payment_method');
      assert.equal(intent.amountCents, 2000);
      const sent = lastRequest();
      assert.equal(sent.path, '/v1/payment_intents');
      assert.match(sent.idempotencyKey!, /^test:\d+:intent$/);
      assert.deepEqual(sent.body, {
        amount: '2000',
        currency: 'eur',
        capture_method: 'automatic',
        metadata: { booking_id: 'b-1', deposit_id: 'd-1' },
        transfer_data: { destination: 'acct_123' },
      });
    });

    it('places a hold on a saved card off session: customer, payment method, confirmed, manual capture', async () => {
      const intent = await stripe.createPaymentIntent(
        intentRequest({
          captureMethod: 'manual',
          savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
        }),
      );
      assert.equal(intent.status, 'requires_capture');
      const body = lastRequest().body;
      assert.equal(body.capture_method, 'manual');
      assert.equal(body.customer, 'cus_1');
      assert.equal(body.payment_method, 'pm_card_visa');
      assert.equal(body.off_session, 'true');
      assert.equal(body.confirm, 'true');
      assert.equal(body.transfer_data, undefined, 'no destination for a sandbox business');
    });

    it('turns a declined card into ProcessorRefusal', async () => {
      await assert.rejects(
        stripe.createPaymentIntent(
          intentRequest({
            captureMethod: 'manual',
            savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_chargeDeclined' },
          }),
        ),
        (error: unknown) => error instanceof ProcessorRefusal && /declined/.test(error.message),
      );
    });

    it('refuses a hold the card issuer declines, and places the next one', async () => {
      fake.declineNext();
      const hold = intentRequest({
        captureMethod: 'manual',
        savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
      });
      await assert.rejects(stripe.createPaymentIntent(hold), ProcessorRefusal);
      const placed = await stripe.createPaymentIntent({ ...hold, idempotencyKey: key('hold') });
      assert.equal(placed.status, 'requires_capture');
    });

    it('answers a repeated idempotency key with the first object: one intent, not two', async () => {
      const request = intentRequest();
      const first = await stripe.createPaymentIntent(request);
      const again = await stripe.createPaymentIntent(request);
      assert.equal(again.id, first.id);
      assert.equal(objectsOf('payment_intent').length, 1);
      assert.equal(fake.requestsTo('POST', /^\/v1\/payment_intents$/).length, 2);
    });

    it("retries a failure of Stripe's with the same key, so the retry creates the one intent", async () => {
      fake.failNext(1);
      const intent = await stripe.createPaymentIntent(intentRequest());
      const attempts = fake.requestsTo('POST', /^\/v1\/payment_intents$/);
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0]!.idempotencyKey, attempts[1]!.idempotencyKey);
      assert.deepEqual(
        objectsOf('payment_intent').map((o) => o.id),
        [intent.id],
      );
    });

    it('lets a malformed request fail as it is, not as a refusal', async () => {
      await assert.rejects(
        stripe.createPaymentIntent(intentRequest({ amountCents: 0 })),
        (error: unknown) => error instanceof Stripe.errors.StripeInvalidRequestError,
      );
    });

    it('captures a hold once: the same key replays, another key is refused', async () => {
      const hold = await stripe.createPaymentIntent(
        intentRequest({
          captureMethod: 'manual',
          savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
        }),
      );
      const captureKey = key('capture');
      const captured = await stripe.capturePaymentIntent(hold.id, captureKey);
      assert.equal(captured.status, 'succeeded');
      assert.equal(lastRequest().path, `/v1/payment_intents/${hold.id}/capture`);
      assert.equal(lastRequest().idempotencyKey, captureKey);
      assert.equal((await stripe.capturePaymentIntent(hold.id, captureKey)).status, 'succeeded');
      assert.equal(fake.objects.get(hold.id)!.amount_received, 2000);
      await assert.rejects(stripe.capturePaymentIntent(hold.id, key('capture')), ProcessorRefusal);
    });

    it('cancels (releases) a hold, and refuses to cancel a paid intent', async () => {
      const hold = await stripe.createPaymentIntent(
        intentRequest({
          captureMethod: 'manual',
          savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
        }),
      );
      const released = await stripe.cancelPaymentIntent(hold.id, key('release'));
      assert.equal(released.status, 'canceled');
      assert.equal(lastRequest().path, `/v1/payment_intents/${hold.id}/cancel`);
      const paid = await stripe.createPaymentIntent(
        intentRequest({ savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' } }),
      );
      await assert.rejects(stripe.cancelPaymentIntent(paid.id, key('cancel')), ProcessorRefusal);
    });

    it('refunds a paid intent under its key, taking the money back from the connected account, and refuses an unpaid or unknown one', async () => {
      const paid = await stripe.createPaymentIntent(
        intentRequest({
          destinationAccountId: 'acct_123',
          savedCard: { customerId: 'cus_1', paymentMethodId: 'pm_card_visa' },
        }),
      );
      const refundKey = key('refund');
      await stripe.refundPaymentIntent(paid.id, refundKey);
      await stripe.refundPaymentIntent(paid.id, refundKey);
      assert.equal(objectsOf('refund').length, 1);
      // A deposit is a destination charge: without the transfer reversed, the platform would pay
      // the refund while the business kept the money.
      assert.deepEqual(lastRequest().body, { payment_intent: paid.id, reverse_transfer: 'true' });
      const unpaid = await stripe.createPaymentIntent(intentRequest());
      await assert.rejects(stripe.refundPaymentIntent(unpaid.id, key('refund')), ProcessorRefusal);
      await assert.rejects(stripe.refundPaymentIntent('pi_unknown', key('refund')), ProcessorRefusal);
    });
  });

  describe('setup intents', () => {
    it('saves a card for off-session use', async () => {
      const seti = await stripe.createSetupIntent({
        customerId: 'cus_1',
        metadata: { booking_id: 'b-1' },
        idempotencyKey: key('setup'),
      });
      assert.match(seti.id, /^seti_/);
      assert.match(seti.clientSecret, /^seti_.+_secret_/);
      assert.deepEqual(lastRequest().body, {
        customer: 'cus_1',
        usage: 'off_session',
        metadata: { booking_id: 'b-1' },
      });
      assert.match(lastRequest().idempotencyKey!, /:setup$/);
    });
  });

  describe('checkout sessions', () => {
    it('makes a payment link: payment mode, expiry, metadata on the session and its intent, destination', async () => {
      const expiresAt = new Date(Date.now() + 7_200_000);
      const session = await stripe.createPaymentCheckout({
        amountCents: 4500,
        currency: 'eur',
        description: 'Deposit',
        customerEmail: 'guest@example.com',
        expiresAt,
        successUrl: 'https://example.com/ok',
        cancelUrl: 'https://example.com/no',
        destinationAccountId: 'acct_9',
        metadata: { booking_id: 'b-9' },
        idempotencyKey: key('checkout'),
      });
      assert.match(session.id, /^cs_test_/);
      assert.match(session.url, /^https:\/\/checkout\.stripe\.com\//);
      assert.deepEqual(lastRequest().body, {
        mode: 'payment',
        line_items: [
          {
            quantity: '1',
            price_data: { currency: 'eur', unit_amount: '4500', product_data: { name: 'Deposit' } },
          },
        ],
        customer_email: 'guest@example.com',
        expires_at: String(Math.floor(expiresAt.getTime() / 1000)),
        success_url: 'https://example.com/ok',
        cancel_url: 'https://example.com/no',
        metadata: { booking_id: 'b-9' },
        payment_intent_data: { metadata: { booking_id: 'b-9' }, transfer_data: { destination: 'acct_9' } },
      });
    });

    it('makes a plan checkout: subscription mode, a monthly EUR price, the plan in both metadata', async () => {
      const session = await stripe.createSubscriptionCheckout({
        plan: { id: 'pro', name: 'Pro', priceCents: 4900 },
        customerId: 'cus_7',
        successUrl: 'https://example.com/ok',
        cancelUrl: 'https://example.com/no',
        metadata: { developer_id: 'dev-7' },
        idempotencyKey: key('plan'),
      });
      assert.match(session.id, /^cs_test_/);
      const metadata = { developer_id: 'dev-7', plan: 'pro' };
      assert.deepEqual(lastRequest().body, {
        mode: 'subscription',
        customer: 'cus_7',
        line_items: [
          {
            quantity: '1',
            price_data: {
              currency: 'eur',
              unit_amount: '4900',
              recurring: { interval: 'month' },
              product_data: { name: 'Slotwise Pro' },
            },
          },
        ],
        success_url: 'https://example.com/ok',
        cancel_url: 'https://example.com/no',
        metadata,
        subscription_data: { metadata },
      });
    });
  });

  describe('customers and the billing portal', () => {
    it('creates a customer once per key and opens a portal session for it', async () => {
      const request = {
        email: 'dev@example.com',
        name: 'Ada Lovelace',
        metadata: { developer_id: 'dev-1' },
        idempotencyKey: key('customer'),
      };
      const customer = await stripe.createCustomer(request);
      assert.equal((await stripe.createCustomer(request)).id, customer.id);
      assert.equal(objectsOf('customer').length, 1);
      const portal = await stripe.createPortalSession({
        customerId: customer.id,
        returnUrl: 'https://example.com',
      });
      assert.match(portal.url, /^https:\/\/billing\.stripe\.com\//);
      assert.deepEqual(lastRequest().body, { customer: customer.id, return_url: 'https://example.com' });
    });
  });

  describe('connected accounts', () => {
    it('creates an Express account, links to its onboarding and reads it back', async () => {
      const account = await stripe.createConnectedAccount({
        email: 'owner@example.com',
        metadata: { business_id: 'biz-1' },
        idempotencyKey: key('account'),
      });
      assert.match(account.id, /^acct_/);
      assert.equal(account.detailsSubmitted, false);
      assert.deepEqual(lastRequest().body, {
        type: 'express',
        email: 'owner@example.com',
        metadata: { business_id: 'biz-1' },
      });
      const link = await stripe.createOnboardingLink({
        accountId: account.id,
        refreshUrl: 'https://example.com/refresh',
        returnUrl: 'https://example.com/return',
      });
      assert.match(link.url, /^https:\/\/connect\.stripe\.com\//);
      assert.equal(lastRequest().body.type, 'account_onboarding');
      fake.completeOnboarding(account.id);
      assert.deepEqual(await stripe.retrieveConnectedAccount(account.id), {
        id: account.id,
        detailsSubmitted: true,
        chargesEnabled: true,
        payoutsEnabled: true,
      });
    });

    it('refuses an unknown account', async () => {
      await assert.rejects(stripe.retrieveConnectedAccount('acct_unknown'), ProcessorRefusal);
    });
  });
});
