import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import { deriveKey } from '../platform/secrets.ts';
import type { PaymentProcessor } from './processor.ts';
import { SimulatedProcessor } from './simulated-processor.ts';
import { StripeProcessor } from './stripe-processor.ts';

/**
 * The processors the service talks to: the simulated one always (sandbox businesses use it even
 * where Stripe is configured), Stripe when `STRIPE_SECRET_KEY` is set.
 */
export class Processors {
  readonly simulated: SimulatedProcessor;
  readonly stripe: PaymentProcessor | null;
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
    this.webhookSecrets = (
      config.paymentsWebhookSecret ??
      `whsec_${deriveKey(config.jwtSecret, 'payments webhook').toString('base64url')}`
    )
      .split(',')
      .map((secret) => secret.trim())
      .filter((secret) => secret !== '');
    this.webhookSecret = this.webhookSecrets[0]!;
  }

  /** The processor of a business: the simulated one for a sandbox or while Stripe is not configured. */
  forBusiness(sandbox: boolean): PaymentProcessor {
    return sandbox || !this.stripe ? this.simulated : this.stripe;
  }

  /** The processor that bills developers for their plans. */
  forBilling(): PaymentProcessor {
    return this.stripe ?? this.simulated;
  }
}
