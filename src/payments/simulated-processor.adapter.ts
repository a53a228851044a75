import { randomToken } from '../platform/auth.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import {
  type CheckoutSession,
  type ConnectedAccount,
  type PaymentCheckoutRequest,
  type PaymentIntent,
  type PaymentIntentRequest,
  type PaymentProcessor,
  type ProcessorEvent,
  ProcessorRefusal,
  type SetupIntent,
  type SubscriptionCheckoutRequest,
} from './processor.adapter.ts';
import {
  insertObject,
  latestObject,
  mergeIntoObject,
  objectById,
  objectByIdempotencyKey,
} from './simulated-processor.queries.ts';

/** What an intent can be cancelled from: anything not yet paid or cancelled. */
const CANCELLABLE = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
];

/** A subscription that still bills, or may again. */
export const LIVE_SUBSCRIPTION = ['active', 'trialing', 'past_due', 'unpaid'] as const;

/** Ids as the processor makes them: a type prefix and 24 characters. */
export const objectId = (prefix: string) => `${prefix}_${randomToken(24)}`;

/** A client secret as the processor makes them: the object's id, `_secret_`, 24 characters. */
export const clientSecretOf = (id: string) => `${id}_secret_${randomToken(24)}`;

export type StoredObject = Record<string, unknown> & { id: string; object: string };

/** A saved card that the processor declines when a hold is placed on it, for trying the failure. */
export const DECLINING_PAYMENT_METHOD = 'pm_card_chargeDeclined';

/**
 * A payment processor that moves no money, for the embedded default and sandbox businesses. Its
 * objects have the processor's JSON shapes and live in the database, so its test pages
 * (`simulator.routes.ts`) find them after a restart and from any process; what a guest does on
 * those pages comes back as the processor's events through the one inbound handler.
 *
 * It queries the database itself: call it outside a transaction, as with the real processor (on
 * PGlite's single connection a call inside one would wait for that transaction forever).
 */
export class SimulatedProcessor implements PaymentProcessor {
  readonly name = 'simulated' as const;
  private readonly db: Db;
  private readonly baseUrl: string;
  private readonly clock: Clock;

  constructor(db: Db, baseUrl: string, clock: Clock) {
    this.db = db;
    this.baseUrl = baseUrl;
    this.clock = clock;
  }

  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /** Stores a new object, or answers the one an earlier request with the same idempotency key made. */
  async create(idempotencyKey: string | null, object: StoredObject): Promise<StoredObject> {
    const inserted = await insertObject(this.db, object.id, object, idempotencyKey);
    if (inserted) return inserted.object as StoredObject;
    return (await objectByIdempotencyKey(this.db, idempotencyKey)).object as StoredObject;
  }

  async find(id: string): Promise<StoredObject | undefined> {
    return (await objectById(this.db, id))?.object as StoredObject | undefined;
  }

  /** Merges `changes` into an object, whatever its state (the guarded move is `transition`). */
  async update(id: string, changes: Record<string, unknown>): Promise<StoredObject> {
    const row = await mergeIntoObject(this.db, id, changes);
    if (!row) throw new Error(`no simulated object ${id}`);
    return row.object as StoredObject;
  }

  /**
   * Moves an object only while `field` still holds one of `from` (compared as JSON text, so
   * `false` is `'false'`); undefined when it had moved on. Two guests pressing Pay at once move it once.
   */
  async transition(
    id: string,
    field: string,
    from: readonly string[],
    changes: Record<string, unknown>,
  ): Promise<StoredObject | undefined> {
    return (await mergeIntoObject(this.db, id, changes, { field, from }))?.object as StoredObject | undefined;
  }

  /** The newest object of a type whose fields hold the given text (a customer's subscription, its open invoice). */
  async findLatest(type: string, fields: Record<string, string>): Promise<StoredObject | undefined> {
    return (await latestObject(this.db, type, fields))?.object as StoredObject | undefined;
  }

  /** The event the processor would send about `object`, in its shape. */
  event(type: string, object: StoredObject): ProcessorEvent {
    return { id: objectId('evt'), type, created: this.nowSeconds(), data: { object } };
  }

  async createPaymentIntent(request: PaymentIntentRequest): Promise<PaymentIntent> {
    const id = objectId('pi');
    const declined = request.savedCard?.paymentMethodId === DECLINING_PAYMENT_METHOD;
    const status = !request.savedCard
      ? 'requires_payment_method'
      : declined
        ? 'requires_payment_method'
        : request.captureMethod === 'manual'
          ? 'requires_capture'
          : 'succeeded';
    const stored = await this.create(request.idempotencyKey, {
      id,
      object: 'payment_intent',
      amount: request.amountCents,
      amount_capturable: status === 'requires_capture' ? request.amountCents : 0,
      amount_received: status === 'succeeded' ? request.amountCents : 0,
      currency: request.currency,
      capture_method: request.captureMethod,
      client_secret: clientSecretOf(id),
      customer: request.savedCard?.customerId ?? null,
      payment_method: request.savedCard?.paymentMethodId ?? null,
      last_payment_error: declined ? { code: 'card_declined', message: 'Your card was declined.' } : null,
      metadata: request.metadata,
      status,
      transfer_data: request.destinationAccountId ? { destination: request.destinationAccountId } : null,
      created: this.nowSeconds(),
    });
    // As Stripe answers an off-session payment on a declined card (a 402, replayed under its key):
    // the intent exists, waiting for another card, and the request is refused.
    if (stored.last_payment_error)
      throw new ProcessorRefusal(`payment intent ${stored.id}: your card was declined`);
    return toPaymentIntent(stored);
  }

  async createSetupIntent(request: {
    customerId: string;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<SetupIntent> {
    const id = objectId('seti');
    const stored = await this.create(request.idempotencyKey, {
      id,
      object: 'setup_intent',
      client_secret: clientSecretOf(id),
      customer: request.customerId,
      payment_method: null,
      usage: 'off_session',
      metadata: request.metadata,
      status: 'requires_payment_method',
      created: this.nowSeconds(),
    });
    return { id: stored.id, clientSecret: stored.client_secret as string };
  }

  /** Capturing twice answers the captured intent again, as the processor does under one idempotency key. */
  async capturePaymentIntent(id: string): Promise<PaymentIntent> {
    const intent = await this.requireIntent(id);
    return this.move(id, ['requires_capture'], 'succeeded', {
      status: 'succeeded',
      amount_received: intent.amount,
      amount_capturable: 0,
    });
  }

  async cancelPaymentIntent(id: string): Promise<PaymentIntent> {
    return this.move(id, CANCELLABLE, 'canceled', { status: 'canceled', amount_capturable: 0 });
  }

  /**
   * Moves an intent from one of `from` to `to` at most once, however many calls race: a call that
   * finds it already at `to` answers it as it is; any other state is a refusal.
   */
  private async move(
    id: string,
    from: readonly string[],
    to: string,
    changes: Record<string, unknown>,
  ): Promise<PaymentIntent> {
    const moved = await this.transition(id, 'status', from, changes);
    if (moved) return toPaymentIntent(moved);
    const intent = await this.requireIntent(id);
    if (intent.status === to) return toPaymentIntent(intent);
    throw new ProcessorRefusal(`payment intent ${id} is ${intent.status}`);
  }

  async refundPaymentIntent(id: string, idempotencyKey: string): Promise<void> {
    const intent = await this.requireIntent(id);
    if (intent.status !== 'succeeded') throw new ProcessorRefusal(`payment intent ${id} is ${intent.status}`);
    await this.create(idempotencyKey, {
      id: objectId('re'),
      object: 'refund',
      amount: intent.amount_received,
      payment_intent: id,
      status: 'succeeded',
      created: this.nowSeconds(),
    });
  }

  async createPaymentCheckout(request: PaymentCheckoutRequest): Promise<CheckoutSession> {
    const id = objectId('cs_test');
    const stored = await this.create(request.idempotencyKey, {
      id,
      object: 'checkout.session',
      mode: 'payment',
      amount_total: request.amountCents,
      currency: request.currency,
      customer_email: request.customerEmail,
      description: request.description,
      expires_at: Math.floor(request.expiresAt.getTime() / 1000),
      metadata: request.metadata,
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      url: `${this.baseUrl}/simulated-processor/checkout/${id}`,
      created: this.nowSeconds(),
    });
    return { id: stored.id, url: stored.url as string };
  }

  async createSubscriptionCheckout(request: SubscriptionCheckoutRequest): Promise<CheckoutSession> {
    const id = objectId('cs_test');
    const stored = await this.create(request.idempotencyKey, {
      id,
      object: 'checkout.session',
      mode: 'subscription',
      amount_total: request.plan.priceCents,
      currency: 'eur',
      customer: request.customerId,
      description: `Slotwise ${request.plan.name}`,
      metadata: { ...request.metadata, plan: request.plan.id },
      subscription: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      url: `${this.baseUrl}/simulated-processor/checkout/${id}`,
      created: this.nowSeconds(),
    });
    return { id: stored.id, url: stored.url as string };
  }

  async expireCheckout(id: string): Promise<void> {
    const expired = await this.transition(id, 'status', ['open'], { status: 'expired' });
    if (expired) return;
    const session = await this.find(id);
    if (session?.object !== 'checkout.session') throw new ProcessorRefusal(`no checkout session ${id}`);
    throw new ProcessorRefusal(`checkout session ${id} is ${String(session.status)}`);
  }

  async cancelSubscription(id: string): Promise<void> {
    const now = this.nowSeconds();
    const cancelled = await this.transition(id, 'status', LIVE_SUBSCRIPTION, {
      status: 'canceled',
      canceled_at: now,
      ended_at: now,
    });
    if (cancelled) return;
    const subscription = await this.find(id);
    if (subscription?.object !== 'subscription') throw new ProcessorRefusal(`no subscription ${id}`);
    throw new ProcessorRefusal(`subscription ${id} is ${String(subscription.status)}`);
  }

  async createCustomer(request: {
    email: string;
    name: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string }> {
    const stored = await this.create(request.idempotencyKey, {
      id: objectId('cus'),
      object: 'customer',
      email: request.email,
      name: request.name,
      metadata: request.metadata,
      created: this.nowSeconds(),
    });
    return { id: stored.id };
  }

  async createPortalSession(request: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    const stored = await this.create(null, {
      id: objectId('bps'),
      object: 'billing_portal.session',
      customer: request.customerId,
      return_url: request.returnUrl,
      created: this.nowSeconds(),
    });
    return { url: `${this.baseUrl}/simulated-processor/portal/${stored.id}` };
  }

  async createConnectedAccount(request: {
    email: string | null;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<ConnectedAccount> {
    const stored = await this.create(request.idempotencyKey, {
      id: objectId('acct'),
      object: 'account',
      type: 'express',
      email: request.email,
      details_submitted: false,
      charges_enabled: false,
      payouts_enabled: false,
      metadata: request.metadata,
      created: this.nowSeconds(),
    });
    return toAccount(stored);
  }

  async createOnboardingLink(request: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string }> {
    const stored = await this.create(null, {
      id: objectId('acctlink'),
      object: 'account_link',
      account: request.accountId,
      refresh_url: request.refreshUrl,
      return_url: request.returnUrl,
      created: this.nowSeconds(),
    });
    return { url: `${this.baseUrl}/simulated-processor/connect/${stored.id}` };
  }

  async retrieveConnectedAccount(id: string): Promise<ConnectedAccount> {
    const account = await this.find(id);
    if (account?.object !== 'account') throw new ProcessorRefusal(`no account ${id}`);
    return toAccount(account);
  }

  private async requireIntent(id: string): Promise<StoredObject> {
    const intent = await this.find(id);
    if (intent?.object !== 'payment_intent') throw new ProcessorRefusal(`no payment intent ${id}`);
    return intent;
  }
}

function toPaymentIntent(object: StoredObject): PaymentIntent {
  return {
    id: object.id,
    clientSecret: object.client_secret as string,
    status: object.status as PaymentIntent['status'],
    amountCents: object.amount as number,
  };
}

function toAccount(object: StoredObject): ConnectedAccount {
  return {
    id: object.id,
    detailsSubmitted: object.details_submitted as boolean,
    chargesEnabled: object.charges_enabled as boolean,
    payoutsEnabled: object.payouts_enabled as boolean,
  };
}
