import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import { deriveKey } from '../platform/secrets.ts';
import type { PaymentProcessor } from './processor.adapter.ts';
import { SimulatedProcessor } from './simulated-processor.adapter.ts';
import { StripeProcessor } from './stripe-processor.adapter.ts';

/**
 * The processors the service talks to: the simulated one always (sandbox businesses use it even
 * where Stripe is configured), Stripe when `STRIPE_SECRET_KEY` is set.
 */
export class Processors {
  readonly simulated: SimulatedProcessor;
  readonly stripe: PaymentProcessor | null;
  /**
   * The processor of live businesses' deposits and of developer billing: Stripe; without it the
   * simulated one only where `SIMULATED_PAYMENTS` allows, since its test pages pay for nothing;
   * otherwise none, and those deposits and plans cannot be bought.
   */
  readonly live: PaymentProcessor | null;
  /**
   * Signs the simulated processor's events: the first of `PAYMENTS_WEBHOOK_SECRET` when set
   * (required with Stripe), otherwise one derived from `JWT_SECRET`.
   */
  readonly webhookSecret: string;
  /**
   * Any of these verifies an inbound event. Stripe signs the events of connected accounts (a
   * Connect endpoint) with another secret than the platform's own, so the variable may list both,
   * comma-separated.
   */
  readonly webhookSecrets: string[];

  constructor(
    config: Config,
    db: Db,
    clock: Clock,
    stripe: PaymentProcessor | null = config.stripeSecretKey
      ? new StripeProcessor(config.stripeSecretKey, config.stripeApiBase)
      : null,
  ) {
    this.simulated = new SimulatedProcessor(db, config.publicBaseUrl, clock);
    this.stripe = stripe;
    this.live = stripe ?? (config.simulatedPayments ? this.simulated : null);
    this.webhookSecrets = (
      config.paymentsWebhookSecret ??
      `whsec_${deriveKey(config.jwtSecret, 'payments webhook').toString('base64url')}`
    )
      .split(',')
      .map((secret) => secret.trim())
      .filter((secret) => secret !== '');
    this.webhookSecret = this.webhookSecrets[0]!;
  }

  /** The processor of a business's deposits: the simulated one for a sandbox; null when a live one has none. */
  forBusiness(sandbox: boolean): PaymentProcessor | null {
    return sandbox ? this.simulated : this.live;
  }

  /** The processor that bills developers for their plans; null when there is none. */
  forBilling(): PaymentProcessor | null {
    return this.live;
  }

  /** Whether the simulated processor's pages may move a live business's payments or a developer's plan. */
  get simulatesLive(): boolean {
    return this.live === this.simulated;
  }
}

/** The line the start logs when live businesses have no payment processor; undefined when they have one. */
export function paymentsWarning(config: Config): string | undefined {
  if (config.stripeSecretKey || config.simulatedPayments) return undefined;
  return 'no payment processor for live businesses: STRIPE_SECRET_KEY is unset and SIMULATED_PAYMENTS is off, so their deposits answer 422 deposits_not_enabled and plan checkout 503 billing_not_configured (sandbox businesses pay through the simulated processor)';
}
