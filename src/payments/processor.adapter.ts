/**
 * What Slotwise asks of a payment processor. Two implementations: Stripe through its official
 * SDK (`stripe-processor.adapter.ts`, when `STRIPE_SECRET_KEY` is set) and a simulated processor
 * (`simulated-processor.adapter.ts`: the embedded default, and every sandbox business), whose ids, client
 * secrets and events have Stripe's shapes and reach the same inbound handler.
 *
 * Every call that creates or moves money carries an idempotency key derived from the booking (or
 * developer) and the step, e.g. `deposit:<booking id>:capture`: a retry after a crash or a
 * timeout gets the first call's answer and never charges twice.
 */
export type ProcessorName = 'stripe' | 'simulated';

export interface PaymentIntent {
  /** `pi_...` */
  id: string;
  /** `pi_..._secret_...`, for the client to confirm the payment. */
  clientSecret: string;
  status:
    | 'requires_payment_method'
    | 'requires_confirmation'
    | 'requires_action'
    | 'processing'
    | 'requires_capture'
    | 'succeeded'
    | 'canceled';
  amountCents: number;
}

export interface SetupIntent {
  /** `seti_...` */
  id: string;
  /** `seti_..._secret_...` */
  clientSecret: string;
}

export interface CheckoutSession {
  /** `cs_...` */
  id: string;
  url: string;
}

export interface ConnectedAccount {
  /** `acct_...` */
  id: string;
  detailsSubmitted: boolean;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
}

export interface PaymentIntentRequest {
  amountCents: number;
  currency: string;
  /** `manual` places an authorisation hold, captured or released later. */
  captureMethod: 'automatic' | 'manual';
  /** The business's connected account the money goes to; none for sandbox businesses. */
  destinationAccountId: string | null;
  /** booking_id, business_id, deposit_id: every event about it carries them back. */
  metadata: Record<string, string>;
  idempotencyKey: string;
  /** A hold placed later on a saved card: charged without the guest present. */
  savedCard?: { customerId: string; paymentMethodId: string };
}

export interface PaymentCheckoutRequest {
  amountCents: number;
  currency: string;
  description: string;
  customerEmail: string;
  /** The processor's sessions last at least 30 minutes and at most 24 hours. */
  expiresAt: Date;
  successUrl: string;
  cancelUrl: string;
  destinationAccountId: string | null;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

export interface SubscriptionCheckoutRequest {
  /** The plan's id, name and monthly price in cents (EUR). */
  plan: { id: string; name: string; priceCents: number };
  customerId: string;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

export interface PaymentProcessor {
  readonly name: ProcessorName;
  createPaymentIntent(request: PaymentIntentRequest): Promise<PaymentIntent>;
  /** Saves a card for a hold placed later (a booking more than 6 days ahead). */
  createSetupIntent(request: {
    customerId: string;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<SetupIntent>;
  capturePaymentIntent(id: string, idempotencyKey: string): Promise<PaymentIntent>;
  /** Releases a hold, or abandons an unpaid intent. */
  cancelPaymentIntent(id: string, idempotencyKey: string): Promise<PaymentIntent>;
  refundPaymentIntent(id: string, idempotencyKey: string): Promise<void>;
  createPaymentCheckout(request: PaymentCheckoutRequest): Promise<CheckoutSession>;
  createSubscriptionCheckout(request: SubscriptionCheckoutRequest): Promise<CheckoutSession>;
  /** Expires an open checkout session, so it can no longer be paid; refused when it is not open. */
  expireCheckout(id: string): Promise<void>;
  /**
   * Cancels a subscription at once: it bills nothing more. Refused when it is unknown or already
   * cancelled.
   */
  cancelSubscription(id: string, idempotencyKey: string): Promise<void>;
  createCustomer(request: {
    email: string;
    name: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string }>;
  createPortalSession(request: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  createConnectedAccount(request: {
    email: string | null;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<ConnectedAccount>;
  createOnboardingLink(request: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string }>;
  retrieveConnectedAccount(id: string): Promise<ConnectedAccount>;
}

/** The processor's event as it arrives at `POST /webhooks/payments` (Stripe's shape). */
export interface ProcessorEvent {
  id: string;
  type: string;
  /** Unix seconds. */
  created: number;
  data: { object: Record<string, unknown> & { id: string; metadata?: Record<string, string> | null } };
  /** The connected account an event of it is about. */
  account?: string;
}

/** The processor refused a request (a state it cannot move from, an unknown object, a declined card). */
export class ProcessorRefusal extends Error {}
