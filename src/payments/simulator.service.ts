import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../platform/auth.ts';
import { oneMonthAfter } from '../platform/clock.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { isUuid } from '../platform/schemas.ts';
import type { InboundEvents } from './inbound.events.ts';
import type { ProcessorEvent } from './processor.adapter.ts';
import {
  clientSecretOf,
  DECLINING_PAYMENT_METHOD,
  LIVE_SUBSCRIPTION,
  objectId,
  type SimulatedProcessor,
  type StoredObject,
} from './simulated-processor.adapter.ts';

/**
 * What a guest, a developer or a business owner does on the simulated processor's pages: each
 * action moves the stored object as the processor would and sends the events the processor would
 * send, in its shapes, through the one inbound handler.
 */
export interface Simulator {
  processor: SimulatedProcessor;
  events: InboundEvents;
  /** Whether the business is a sandbox one (false for none): the businesses are known above payments. */
  isSandbox(businessId: string): Promise<boolean>;
  /** It stands in for the processor of live businesses and developer billing (`Processors.simulatesLive`). */
  simulatesLive: boolean;
}

/** The card every successful simulated payment is made with. */
export const TEST_CARD = 'pm_card_visa';
export const SAVEABLE_CARDS = [TEST_CARD, DECLINING_PAYMENT_METHOD] as const;
export type Outcome = 'succeed' | 'decline';

/** An intent still waiting for the guest's card. */
const AWAITING_CARD = ['requires_payment_method', 'requires_confirmation', 'requires_action'] as const;

const CARD_DECLINED = {
  type: 'card_error',
  code: 'card_declined',
  decline_code: 'generic_decline',
  message: 'Your card was declined.',
};

async function findObject(simulator: Simulator, id: string, type: string, what: string) {
  const found = await simulator.processor.find(id);
  if (found?.object !== type) throw notFound(what);
  return found;
}

/**
 * The simulated processor pays for nothing: it moves a sandbox business's objects always, and a
 * live business's payments or a developer's plan only while it stands in for the real processor.
 * Otherwise such an object, even one made while it did, is answered as unknown, so no session
 * left from then can still be completed.
 */
async function assertServed(simulator: Simulator, owner: StoredObject, what: string): Promise<void> {
  if (simulator.simulatesLive) return;
  const businessId = owner.metadata && (owner.metadata as Record<string, unknown>).business_id;
  // Plans are billed to developers, never to a sandbox.
  const billing = owner.object === 'billing_portal.session' || owner.mode === 'subscription';
  if (!billing && typeof businessId === 'string' && isUuid(businessId)) {
    if (await simulator.isSandbox(businessId)) return;
  }
  throw notFound(what);
}

/** A wrong client secret names nothing, as an unknown id does: the answer tells neither apart. */
function assertSecret(object: StoredObject, clientSecret: string, what: string): void {
  const expected = Buffer.from(sha256(String(object.client_secret)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(sha256(clientSecret), 'hex'))) throw notFound(what);
}

/** A payment or setup intent as its client secret shows it to the guest's page. */
export async function intentWithSecret(
  simulator: Simulator,
  type: 'payment_intent' | 'setup_intent',
  id: string,
  clientSecret: string,
): Promise<StoredObject> {
  const what = type.replace('_', ' ');
  const intent = await findObject(simulator, id, type, what);
  assertSecret(intent, clientSecret, what);
  await assertServed(simulator, intent, what);
  return intent;
}

export async function checkoutSession(simulator: Simulator, id: string) {
  const session = await findObject(simulator, id, 'checkout.session', 'checkout session');
  await assertServed(simulator, session, 'checkout session');
  return session;
}

/** An onboarding link and the account it onboards. */
export async function onboardingState(simulator: Simulator, linkId: string) {
  const link = await findObject(simulator, linkId, 'account_link', 'onboarding link');
  const account = await simulator.processor.find(String(link.account));
  await assertServed(simulator, account ?? link, 'onboarding link');
  return { link, account };
}

async function send(
  simulator: Simulator,
  type: string,
  object: StoredObject,
  extra: Partial<ProcessorEvent> = {},
) {
  await simulator.events.deliver({ ...simulator.processor.event(type, object), ...extra });
}

/** A state the action cannot move from: 409 naming where the object stands now. */
async function cannotMove(simulator: Simulator, id: string, field: string, what: string, action: string) {
  const current = await simulator.processor.find(id);
  return conflict(`the ${what} is ${String(current?.[field])}; it cannot be ${action}`);
}

/**
 * The guest pays (or is declined) on the test checkout of a payment intent. A manual-capture
 * intent becomes a hold (`requires_capture`, `payment_intent.amount_capturable_updated`), an
 * automatic one is paid (`payment_intent.succeeded`); a decline leaves it waiting for another card
 * (`payment_intent.payment_failed` with `last_payment_error`).
 */
export async function confirmPaymentIntent(
  simulator: Simulator,
  id: string,
  input: { client_secret: string; outcome: Outcome },
): Promise<StoredObject> {
  const what = 'payment intent';
  const intent = await intentWithSecret(simulator, 'payment_intent', id, input.client_secret);
  if (input.outcome === 'decline') {
    const declined = await simulator.processor.transition(id, 'status', AWAITING_CARD, {
      status: 'requires_payment_method',
      last_payment_error: CARD_DECLINED,
    });
    if (!declined) throw await cannotMove(simulator, id, 'status', what, 'declined');
    await send(simulator, 'payment_intent.payment_failed', declined);
    return declined;
  }
  const hold = intent.capture_method === 'manual';
  const paid = await simulator.processor.transition(id, 'status', AWAITING_CARD, {
    status: hold ? 'requires_capture' : 'succeeded',
    amount_capturable: hold ? intent.amount : 0,
    amount_received: hold ? 0 : intent.amount,
    payment_method: TEST_CARD,
    last_payment_error: null,
  });
  if (!paid) throw await cannotMove(simulator, id, 'status', what, 'paid');
  await send(simulator, hold ? 'payment_intent.amount_capturable_updated' : 'payment_intent.succeeded', paid);
  return paid;
}

/**
 * The guest saves a card (or is declined) for a hold placed later: `setup_intent.succeeded` with
 * the card and its customer, or `setup_intent.setup_failed` with `last_setup_error`. Saving
 * `pm_card_chargeDeclined` succeeds, and the hold later placed on it is declined.
 */
export async function confirmSetupIntent(
  simulator: Simulator,
  id: string,
  input: { client_secret: string; outcome: Outcome; payment_method?: (typeof SAVEABLE_CARDS)[number] },
): Promise<StoredObject> {
  const what = 'setup intent';
  await intentWithSecret(simulator, 'setup_intent', id, input.client_secret);
  if (input.outcome === 'decline') {
    const declined = await simulator.processor.transition(id, 'status', AWAITING_CARD, {
      status: 'requires_payment_method',
      last_setup_error: CARD_DECLINED,
    });
    if (!declined) throw await cannotMove(simulator, id, 'status', what, 'declined');
    await send(simulator, 'setup_intent.setup_failed', declined);
    return declined;
  }
  const saved = await simulator.processor.transition(id, 'status', AWAITING_CARD, {
    status: 'succeeded',
    payment_method: input.payment_method ?? TEST_CARD,
    last_setup_error: null,
  });
  if (!saved) throw await cannotMove(simulator, id, 'status', what, 'confirmed');
  await send(simulator, 'setup_intent.succeeded', saved);
  return saved;
}

/**
 * The payer completes a checkout session. In payment mode a paid payment intent carrying the
 * session's metadata is made; in subscription mode a subscription (active, one month to its
 * period's end, the session's metadata) is made and `customer.subscription.updated` follows
 * `checkout.session.completed`. A session past its `expires_at` cannot be completed.
 */
export async function completeCheckout(simulator: Simulator, id: string): Promise<StoredObject> {
  const what = 'checkout session';
  const { processor } = simulator;
  const session = await checkoutSession(simulator, id);
  const now = processor.nowSeconds();
  if (typeof session.expires_at === 'number' && session.expires_at <= now && session.status === 'open') {
    throw conflict('the checkout session has expired; it cannot be paid');
  }
  const claimed = await processor.transition(id, 'status', ['open'], {
    status: 'complete',
    payment_status: 'paid',
  });
  if (!claimed) throw await cannotMove(simulator, id, 'status', what, 'completed');
  if (claimed.mode === 'subscription') {
    const subscription = await processor.create(null, subscriptionOf(claimed, now));
    const completed = await processor.update(id, { subscription: subscription.id });
    await send(simulator, 'checkout.session.completed', completed);
    await send(simulator, 'customer.subscription.updated', subscription);
    return completed;
  }
  const intentId = objectId('pi');
  const intent = await processor.create(null, {
    id: intentId,
    object: 'payment_intent',
    amount: claimed.amount_total,
    amount_capturable: 0,
    amount_received: claimed.amount_total,
    currency: claimed.currency,
    capture_method: 'automatic',
    client_secret: clientSecretOf(intentId),
    customer: null,
    payment_method: TEST_CARD,
    last_payment_error: null,
    metadata: claimed.metadata ?? {},
    status: 'succeeded',
    transfer_data: null,
    created: now,
  });
  const completed = await processor.update(id, { payment_intent: intent.id });
  await send(simulator, 'checkout.session.completed', completed);
  return completed;
}

function subscriptionOf(session: StoredObject, now: number): StoredObject {
  const periodEnd = Math.floor(oneMonthAfter(now * 1000) / 1000);
  const period = { current_period_start: now, current_period_end: periodEnd };
  return {
    id: objectId('sub'),
    object: 'subscription',
    customer: session.customer,
    status: 'active',
    cancel_at_period_end: false,
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    ...period,
    items: {
      object: 'list',
      data: [
        {
          id: objectId('si'),
          object: 'subscription_item',
          price: {
            id: objectId('price'),
            object: 'price',
            currency: 'eur',
            unit_amount: session.amount_total,
            recurring: { interval: 'month', interval_count: 1 },
          },
          quantity: 1,
          ...period,
        },
      ],
    },
    metadata: session.metadata ?? {},
    created: now,
  };
}

/** The payer walks away: the open session expires (`checkout.session.expired`). */
export async function expireCheckout(simulator: Simulator, id: string): Promise<StoredObject> {
  const what = 'checkout session';
  await checkoutSession(simulator, id);
  const expired = await simulator.processor.transition(id, 'status', ['open'], { status: 'expired' });
  if (!expired) throw await cannotMove(simulator, id, 'status', what, 'expired');
  await send(simulator, 'checkout.session.expired', expired);
  return expired;
}

/** The business owner finishes onboarding: the account may take charges and payouts (`account.updated`). */
export async function completeOnboarding(simulator: Simulator, linkId: string): Promise<StoredObject> {
  const { link } = await onboardingState(simulator, linkId);
  const accountId = String(link.account);
  const onboarded = await simulator.processor.transition(accountId, 'details_submitted', ['false'], {
    details_submitted: true,
    charges_enabled: true,
    payouts_enabled: true,
  });
  if (!onboarded) throw conflict('the account has already completed onboarding');
  await send(simulator, 'account.updated', onboarded, { account: accountId });
  return onboarded;
}

export const PORTAL_ACTIONS = ['cancel_at_period_end', 'cancel_now', 'fail_invoice', 'pay_invoice'] as const;
export type PortalAction = (typeof PORTAL_ACTIONS)[number];

/** The billing portal's session, the customer's newest subscription and its open invoice, if any. */
export async function portalState(simulator: Simulator, portalId: string) {
  const session = await findObject(simulator, portalId, 'billing_portal.session', 'billing portal session');
  await assertServed(simulator, session, 'billing portal session');
  const customer = String(session.customer);
  const subscription = await simulator.processor.findLatest('subscription', { customer });
  const invoice = subscription
    ? await simulator.processor.findLatest('invoice', { subscription: subscription.id, status: 'open' })
    : undefined;
  return { session, subscription, invoice };
}

/**
 * What the developer does in the billing portal. Cancelling at the period's end or at once sends
 * `customer.subscription.updated` or `.deleted`; a failed renewal opens an invoice and sends
 * `invoice.payment_failed` (the subscription turns `past_due`); paying the open invoice sends
 * `invoice.payment_succeeded` (the subscription is `active` again). The simulator does not move
 * time: a renewal happens when asked, within the current period.
 */
export async function actInPortal(
  simulator: Simulator,
  portalId: string,
  action: PortalAction,
): Promise<StoredObject> {
  const { subscription, invoice } = await portalState(simulator, portalId);
  if (!subscription) throw conflict('the customer has no subscription');
  const { processor } = simulator;
  const now = processor.nowSeconds();
  switch (action) {
    case 'cancel_at_period_end': {
      if (subscription.status === 'canceled') throw conflict('the subscription is already cancelled');
      const moved = await processor.transition(subscription.id, 'cancel_at_period_end', ['false'], {
        cancel_at_period_end: true,
        cancel_at: subscription.current_period_end,
        canceled_at: now,
      });
      if (!moved) throw conflict('the subscription is already set to end with its period');
      await send(simulator, 'customer.subscription.updated', moved);
      return moved;
    }
    case 'cancel_now': {
      const ended = await processor.transition(subscription.id, 'status', LIVE_SUBSCRIPTION, {
        status: 'canceled',
        canceled_at: now,
        ended_at: now,
      });
      if (!ended) throw conflict('the subscription is already cancelled');
      await send(simulator, 'customer.subscription.deleted', ended);
      return ended;
    }
    case 'fail_invoice': {
      if (
        subscription.cancel_at_period_end === true ||
        !['active', 'past_due'].includes(String(subscription.status))
      ) {
        throw conflict('no invoice of this subscription is due: it ends with its period or has ended');
      }
      const failed = invoice
        ? await processor.update(invoice.id, { attempt_count: Number(invoice.attempt_count) + 1 })
        : await processor.create(null, invoiceOf(subscription, now));
      const pastDue = await processor.update(subscription.id, { status: 'past_due' });
      await send(simulator, 'invoice.payment_failed', failed);
      await send(simulator, 'customer.subscription.updated', pastDue);
      return failed;
    }
    case 'pay_invoice': {
      const paid =
        invoice &&
        (await processor.transition(invoice.id, 'status', ['open'], {
          status: 'paid',
          amount_paid: invoice.amount_due,
          amount_remaining: 0,
        }));
      if (!paid) throw conflict('the subscription has no open invoice to pay');
      const active = await processor.transition(subscription.id, 'status', ['past_due', 'unpaid'], {
        status: 'active',
      });
      await send(simulator, 'invoice.payment_succeeded', paid);
      if (active) await send(simulator, 'customer.subscription.updated', active);
      return paid;
    }
  }
}

/** A renewal's invoice, its first payment attempt failed. */
function invoiceOf(subscription: StoredObject, now: number): StoredObject {
  const items = subscription.items as { data: { price: { unit_amount: number } }[] } | undefined;
  const amount = items?.data[0]?.price.unit_amount ?? 0;
  return {
    id: objectId('in'),
    object: 'invoice',
    status: 'open',
    billing_reason: 'subscription_cycle',
    customer: subscription.customer,
    subscription: subscription.id,
    parent: {
      type: 'subscription_details',
      subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
    },
    currency: 'eur',
    amount_due: amount,
    amount_paid: 0,
    amount_remaining: amount,
    attempt_count: 1,
    created: now,
  };
}
