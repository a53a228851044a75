import { randomUUID } from 'node:crypto';
import { type PaymentProcessor, ProcessorRefusal } from '../payments/processor.adapter.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import { PLANS, type PlanId } from './plans.rules.ts';
import {
  findDeveloperForBilling,
  queueBillingCleanup,
  rememberCustomer,
  replaceOpenCheckout,
} from './subscription.queries.ts';

/** The plans a developer can buy. */
export const PAID_PLANS = ['starter', 'pro', 'premium'] as const satisfies readonly PlanId[];
export type PaidPlan = (typeof PAID_PLANS)[number];

const PLAN_NAMES: Record<PaidPlan, string> = { starter: 'Starter', pro: 'Pro', premium: 'Premium' };

/** A refusal of the processor's (an unknown customer, say) answers 409 with its reason, not 500. */
export async function askProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusal) {
      throw new AppError('conflict', `the payment processor refused: ${error.message}`);
    }
    throw error;
  }
}

/** No processor bills developers here (no Stripe, simulated payments off): plans cannot be bought. */
export const billingNotConfigured = () =>
  new AppError(
    'billing_not_configured',
    'plans cannot be bought on this server yet: it has no payment processor configured for billing',
  );

function billingProcessor(processor: PaymentProcessor | null): PaymentProcessor {
  if (!processor) throw billingNotConfigured();
  return processor;
}

async function billedDeveloper(executor: Executor, developerId: string) {
  const developer = await findDeveloperForBilling(executor, developerId);
  if (!developer) throw notFound('developer');
  return developer;
}

export interface PreparedCheckout {
  customerId: string;
  checkoutId: string;
  checkoutUrl: string;
  /** The developer's open checkout this request expired at the processor, if any. */
  expired: string | null;
}

/**
 * The processor's side of `POST /v1/developer/billing/checkout`, outside any transaction: the
 * developer's customer (made once: its idempotency key is the developer's id) and a checkout
 * session for the plan. Paying it activates the plan through the processor's events. A developer
 * whose subscription is running changes or cancels it in the billing portal instead (409), so no
 * one pays for two subscriptions at once.
 */
export async function prepareCheckout(
  executor: Executor,
  billing: PaymentProcessor | null,
  developerId: string,
  input: { plan: PaidPlan; successUrl: string; cancelUrl: string },
): Promise<PreparedCheckout> {
  const processor = billingProcessor(billing);
  const developer = await billedDeveloper(executor, developerId);
  if (
    developer.processor_subscription_id &&
    (developer.subscription_status === 'active' || developer.subscription_status === 'past_due')
  ) {
    throw conflict(
      'the developer already has a subscription; change or cancel it in the billing portal (POST /v1/developer/billing/portal)',
    );
  }
  const metadata = { developer_id: developer.id };
  // One open checkout per developer: two paid ones would be two subscriptions.
  const open = developer.billing_checkout_id;
  if (open) await askProcessor(() => expireUnlessClosed(processor, open));
  return askProcessor(async () => {
    const customerId =
      developer.processor_customer_id ??
      (
        await processor.createCustomer({
          email: developer.email,
          name: `${developer.first_name} ${developer.last_name}`,
          metadata,
          idempotencyKey: `developer:${developer.id}:customer`,
        })
      ).id;
    const session = await processor.createSubscriptionCheckout({
      plan: { id: input.plan, name: PLAN_NAMES[input.plan], priceCents: PLANS[input.plan].priceCents },
      customerId,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
      metadata,
      // Each request is a new session; the key keeps the SDK's own retries of this one to one session.
      idempotencyKey: `developer:${developer.id}:checkout:${input.plan}:${randomUUID()}`,
    });
    return { customerId, checkoutId: session.id, checkoutUrl: session.url, expired: open };
  });
}

/** Expires an open checkout; one already completed or expired can no longer be paid, and is left. */
export async function expireUnlessClosed(processor: PaymentProcessor, checkoutId: string) {
  try {
    await processor.expireCheckout(checkoutId);
  } catch (error) {
    if (!(error instanceof ProcessorRefusal)) throw error;
  }
}

/**
 * Stores the customer the checkout was made for and makes it the developer's open checkout;
 * answers the checkout's URL. One a concurrent request opened meanwhile is left to the billing job
 * to expire.
 */
export async function recordCheckout(tx: Tx, developerId: string, prepared: PreparedCheckout) {
  await rememberCustomer(tx, developerId, prepared.customerId);
  const replaced = await replaceOpenCheckout(tx, developerId, prepared.checkoutId);
  if (replaced && replaced !== prepared.expired && replaced !== prepared.checkoutId) {
    await queueBillingCleanup(tx, developerId, replaced, 'expire_checkout');
  }
  return { checkout_url: prepared.checkoutUrl };
}

/** `POST /v1/developer/billing/portal`: where the developer cancels, or pays what is past due. */
export async function openPortal(
  executor: Executor,
  billing: PaymentProcessor | null,
  developerId: string,
  returnUrl: string,
) {
  const processor = billingProcessor(billing);
  const developer = await billedDeveloper(executor, developerId);
  if (!developer.processor_customer_id) {
    throw conflict('there is nothing to manage yet; buy a plan with POST /v1/developer/billing/checkout');
  }
  const customerId = developer.processor_customer_id;
  const portal = await askProcessor(() => processor.createPortalSession({ customerId, returnUrl }));
  return { portal_url: portal.url };
}

/** A plan's checkout: opened at the processor, then remembered (and a checkout it replaces queued to expire). */
export async function openCheckout<R>(
  executor: Executor,
  billing: PaymentProcessor | null,
  developerId: string,
  input: { plan: PaidPlan; successUrl: string; cancelUrl: string },
  commit: Commit<R>,
): Promise<R> {
  const prepared = await prepareCheckout(executor, billing, developerId, input);
  return commit((tx) => recordCheckout(tx, developerId, prepared));
}
