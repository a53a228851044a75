import Stripe from 'stripe';
import {
  type CheckoutSession,
  type ConnectedAccount,
  type PaymentCheckoutRequest,
  type PaymentIntent,
  type PaymentIntentRequest,
  type PaymentProcessor,
  ProcessorRefusal,
  type SetupIntent,
  type SubscriptionCheckoutRequest,
} from './processor.adapter.ts';

/** Refusals about the state of an object (already captured, cancelled, unknown), not about our request. */
const STATE_REFUSALS = new Set([
  'payment_intent_unexpected_state',
  'setup_intent_unexpected_state',
  'resource_missing',
  'charge_already_captured',
  'charge_already_refunded',
  'charge_expired_for_capture',
  'account_invalid',
]);

/**
 * Stripe as the business's and the developers' payment processor, through the official SDK.
 * Every call that creates or moves something carries the caller's idempotency key, so the SDK's
 * own retries (two, on network failures and 5xx) and ours after a crash get the first answer.
 * A declined card or a state Stripe cannot move from becomes `ProcessorRefusal`; anything else
 * (our request malformed, Stripe unreachable) propagates as it is.
 */
export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const;
  private readonly stripe: Stripe;

  constructor(secretKey: string, apiBase?: string) {
    const base = apiBase ? new URL(apiBase) : undefined;
    this.stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 10_000,
      ...(base && {
        host: base.hostname,
        port: base.port || (base.protocol === 'https:' ? 443 : 80),
        protocol: base.protocol === 'https:' ? 'https' : 'http',
      }),
    });
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (
        error instanceof Stripe.errors.StripeCardError ||
        (error instanceof Stripe.errors.StripeInvalidRequestError && STATE_REFUSALS.has(error.code ?? ''))
      ) {
        throw new ProcessorRefusal(error.message);
      }
      throw error;
    }
  }

  createPaymentIntent(request: PaymentIntentRequest): Promise<PaymentIntent> {
    const saved = request.savedCard;
    return this.call(async () =>
      toPaymentIntent(
        await this.stripe.paymentIntents.create(
          {
            amount: request.amountCents,
            currency: request.currency,
            capture_method: request.captureMethod,
            metadata: request.metadata,
            ...(request.destinationAccountId && {
              transfer_data: { destination: request.destinationAccountId },
            }),
            ...(saved && {
              customer: saved.customerId,
              payment_method: saved.paymentMethodId,
              off_session: true,
              confirm: true,
            }),
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      ),
    );
  }

  createSetupIntent(request: {
    customerId: string;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<SetupIntent> {
    return this.call(async () => {
      const intent = await this.stripe.setupIntents.create(
        { customer: request.customerId, usage: 'off_session', metadata: request.metadata },
        { idempotencyKey: request.idempotencyKey },
      );
      return { id: intent.id, clientSecret: intent.client_secret ?? '' };
    });
  }

  capturePaymentIntent(id: string, idempotencyKey: string): Promise<PaymentIntent> {
    return this.call(async () =>
      toPaymentIntent(await this.stripe.paymentIntents.capture(id, {}, { idempotencyKey })),
    );
  }

  cancelPaymentIntent(id: string, idempotencyKey: string): Promise<PaymentIntent> {
    return this.call(async () =>
      toPaymentIntent(await this.stripe.paymentIntents.cancel(id, {}, { idempotencyKey })),
    );
  }

  refundPaymentIntent(id: string, idempotencyKey: string): Promise<void> {
    return this.call(async () => {
      // Every deposit taken through Stripe is a destination charge: the refund takes the money back
      // from the business's account, not from the platform's balance.
      await this.stripe.refunds.create({ payment_intent: id, reverse_transfer: true }, { idempotencyKey });
    });
  }

  createPaymentCheckout(request: PaymentCheckoutRequest): Promise<CheckoutSession> {
    return this.call(async () =>
      toSession(
        await this.stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: request.currency,
                  unit_amount: request.amountCents,
                  product_data: { name: request.description },
                },
              },
            ],
            customer_email: request.customerEmail,
            expires_at: Math.floor(request.expiresAt.getTime() / 1000),
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
            metadata: request.metadata,
            payment_intent_data: {
              metadata: request.metadata,
              ...(request.destinationAccountId && {
                transfer_data: { destination: request.destinationAccountId },
              }),
            },
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      ),
    );
  }

  createSubscriptionCheckout(request: SubscriptionCheckoutRequest): Promise<CheckoutSession> {
    const metadata = { ...request.metadata, plan: request.plan.id };
    return this.call(async () =>
      toSession(
        await this.stripe.checkout.sessions.create(
          {
            mode: 'subscription',
            customer: request.customerId,
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: 'eur',
                  unit_amount: request.plan.priceCents,
                  recurring: { interval: 'month' },
                  product_data: { name: `Slotwise ${request.plan.name}` },
                },
              },
            ],
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
            metadata,
            subscription_data: { metadata },
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      ),
    );
  }

  expireCheckout(id: string): Promise<void> {
    return this.call(async () => {
      try {
        await this.stripe.checkout.sessions.expire(id);
      } catch (error) {
        // Stripe refuses a session that is complete or expired already: it can no longer be paid either way.
        if (error instanceof Stripe.errors.StripeInvalidRequestError)
          throw new ProcessorRefusal(error.message);
        throw error;
      }
    });
  }

  cancelSubscription(id: string, idempotencyKey: string): Promise<void> {
    return this.call(async () => {
      try {
        await this.stripe.subscriptions.cancel(id, {}, { idempotencyKey });
      } catch (error) {
        // Unknown or cancelled already: it bills nothing either way.
        if (error instanceof Stripe.errors.StripeInvalidRequestError)
          throw new ProcessorRefusal(error.message);
        throw error;
      }
    });
  }

  createCustomer(request: {
    email: string;
    name: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string }> {
    return this.call(async () => {
      const customer = await this.stripe.customers.create(
        { email: request.email, name: request.name, metadata: request.metadata },
        { idempotencyKey: request.idempotencyKey },
      );
      return { id: customer.id };
    });
  }

  createPortalSession(request: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    return this.call(async () => {
      const session = await this.stripe.billingPortal.sessions.create({
        customer: request.customerId,
        return_url: request.returnUrl,
      });
      return { url: session.url };
    });
  }

  createConnectedAccount(request: {
    email: string | null;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<ConnectedAccount> {
    return this.call(async () =>
      toAccount(
        await this.stripe.accounts.create(
          { type: 'express', ...(request.email && { email: request.email }), metadata: request.metadata },
          { idempotencyKey: request.idempotencyKey },
        ),
      ),
    );
  }

  createOnboardingLink(request: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string }> {
    return this.call(async () => {
      const link = await this.stripe.accountLinks.create({
        account: request.accountId,
        refresh_url: request.refreshUrl,
        return_url: request.returnUrl,
        type: 'account_onboarding',
      });
      return { url: link.url };
    });
  }

  retrieveConnectedAccount(id: string): Promise<ConnectedAccount> {
    return this.call(async () => toAccount(await this.stripe.accounts.retrieve(id)));
  }
}

function toPaymentIntent(intent: Stripe.PaymentIntent): PaymentIntent {
  return {
    id: intent.id,
    clientSecret: intent.client_secret ?? '',
    // Stripe may add statuses; ours names those it has today.
    status: intent.status as PaymentIntent['status'],
    amountCents: intent.amount,
  };
}

function toSession(session: Stripe.Checkout.Session): CheckoutSession {
  return { id: session.id, url: session.url ?? '' };
}

function toAccount(account: Stripe.Account): ConnectedAccount {
  return {
    id: account.id,
    detailsSubmitted: account.details_submitted ?? false,
    chargesEnabled: account.charges_enabled ?? false,
    payoutsEnabled: account.payouts_enabled ?? false,
  };
}
