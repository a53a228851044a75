import type { EventContext, EventHandler, EventHandlers } from '../payments/inbound.events.ts';
import type { ProcessorEvent } from '../payments/processor.adapter.ts';
import { oneMonthAfter } from '../platform/clock.ts';
import type { Tx } from '../platform/db.ts';
import { isUuid } from '../platform/schemas.ts';
import { syncConnectedAccount } from './connect.queries.ts';
import { PLAN_IDS, PLANS, type PlanId } from './plans.rules.ts';
import {
  type BillingDeveloperRow,
  closeOpenCheckout,
  lockBillingDeveloper,
  queueBillingCleanup,
} from './subscription.queries.ts';
import { type SubscriptionChange, setSubscription } from './subscription.service.ts';

/**
 * The processor's events about developer subscriptions and connected accounts.
 *
 * Order: Stripe sends events in no particular order and may repeat them. Each developer keeps the
 * creation time of the last subscription event applied (`subscription_event_at`) and ignores older
 * ones, so a late `invoice.payment_failed` never undoes the payment that followed it. Events about
 * a subscription other than the developer's current one (an old one ending, a new one's first
 * invoice before its checkout completed) change nothing; the checkout's completion is what makes a
 * subscription the developer's.
 */

type StripeObject = ProcessorEvent['data']['object'];

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
const eventTime = (event: ProcessorEvent) => new Date(event.created * 1000);
const secondsToDate = (value: unknown) => (typeof value === 'number' ? new Date(value * 1000) : null);

/** A plan the processor can bill for; `free` and `trial` are never bought. */
function paidPlan(id: unknown): PlanId | null {
  return PLAN_IDS.find((plan) => plan === id && PLANS[plan].priceCents > 0) ?? null;
}

/** Finds the developer by the processor's subscription, then its customer, then our own id in the metadata. */
async function developerOf(
  tx: Tx,
  names: { subscriptionId: string | null; customerId: string | null; developerId: string | null },
): Promise<BillingDeveloperRow | undefined> {
  const { subscriptionId, customerId, developerId } = names;
  const bySubscription = subscriptionId
    ? await lockBillingDeveloper(tx, 'processor_subscription_id', subscriptionId)
    : undefined;
  if (bySubscription) return bySubscription;
  const byCustomer = customerId
    ? await lockBillingDeveloper(tx, 'processor_customer_id', customerId)
    : undefined;
  if (byCustomer) return byCustomer;
  return developerId && isUuid(developerId) ? lockBillingDeveloper(tx, 'id', developerId) : undefined;
}

/** An event created before the last one applied to the developer's subscription. */
const isStale = (developer: BillingDeveloperRow, event: ProcessorEvent) =>
  developer.subscription_event_at !== null && eventTime(event) < developer.subscription_event_at;

function apply(
  tx: Tx,
  context: EventContext,
  developer: BillingDeveloperRow,
  event: ProcessorEvent,
  change: SubscriptionChange,
) {
  return setSubscription(tx, context.changes, developer.id, { ...change, eventAt: eventTime(event) });
}

/** The state stays as it is; the event is remembered as applied, so older ones stay ignored. */
const unchanged = (developer: BillingDeveloperRow): SubscriptionChange => ({
  status: developer.subscription_status,
  planId: developer.subscription_plan_id,
});

/** The period end: on the subscription in older API versions, on its items in newer ones. */
function periodEndOf(subscription: StripeObject): Date | null {
  const items = subscription.items as { data?: { current_period_end?: unknown }[] } | undefined;
  return secondsToDate(subscription.current_period_end ?? items?.data?.[0]?.current_period_end);
}

/** A subscription checkout completed: the developer is active on the plan bought. */
const checkoutCompleted: EventHandler = async (tx, event, context) => {
  const session = event.data.object;
  // Payment-mode sessions are deposits' payment links.
  if (session.mode !== 'subscription') return;
  const subscriptionId = text(session.subscription);
  const plan = paidPlan(session.metadata?.plan);
  if (!subscriptionId || !plan) {
    context.log.warn({ event: event.id }, 'a subscription checkout without a subscription or a known plan');
    return;
  }
  const developer = await developerOf(tx, {
    subscriptionId,
    customerId: text(session.customer),
    developerId: text(session.metadata?.developer_id),
  });
  if (!developer) {
    context.log.warn({ event: event.id }, 'a subscription checkout of no known developer');
    return;
  }
  await closeOpenCheckout(tx, developer.id, session.id);
  // The subscription's own events, which may have come first, say more than the checkout does.
  if (developer.processor_subscription_id === subscriptionId) return;
  const current = developer.processor_subscription_id;
  if (isStale(developer, event)) {
    // A newer change of the developer's subscription stands; this one, paid as well, must not bill.
    if (current) await queueBillingCleanup(tx, developer.id, subscriptionId, 'cancel_subscription');
    return;
  }
  // The developer pays one plan: the subscription this checkout replaces is cancelled by a job.
  if (current) await queueBillingCleanup(tx, developer.id, current, 'cancel_subscription');
  await apply(tx, context, developer, event, {
    status: 'active',
    planId: plan,
    // A monthly period starts at the checkout; the subscription's events bring the exact end.
    currentPeriodEndsAt: new Date(oneMonthAfter(event.created * 1000)),
    processorSubscriptionId: subscriptionId,
    processorCustomerId: text(session.customer) ?? undefined,
  });
};

const endedStatus = (subscription: StripeObject, event: ProcessorEvent) =>
  event.type === 'customer.subscription.deleted' ||
  subscription.status === 'canceled' ||
  subscription.status === 'incomplete_expired';

/** What a subscription's status means here; null: nothing to take from it (incomplete, paused). */
function changeOf(
  subscription: StripeObject,
  developer: BillingDeveloperRow,
  plan: PlanId,
  event: ProcessorEvent,
): SubscriptionChange | null {
  // A subscription shown without its period leaves the known end as it is.
  const periodEnd = periodEndOf(subscription) ?? undefined;
  const endedAt = secondsToDate(subscription.ended_at) ?? eventTime(event);
  switch (endedStatus(subscription, event) ? 'canceled' : subscription.status) {
    case 'trialing':
      return developer.subscription_status === 'trial'
        ? unchanged(developer)
        : { status: 'active', planId: plan, currentPeriodEndsAt: periodEnd };
    case 'active':
      // Cancelled at the period's end: the plan holds until then, and falls to free after.
      return subscription.cancel_at_period_end === true
        ? {
            status: 'cancelled',
            planId: plan,
            currentPeriodEndsAt: secondsToDate(subscription.cancel_at) ?? periodEnd,
          }
        : { status: 'active', planId: plan, currentPeriodEndsAt: periodEnd };
    case 'past_due':
    case 'unpaid':
      return { status: 'past_due', planId: plan, currentPeriodEndsAt: periodEnd };
    case 'canceled':
      return { status: 'cancelled', planId: plan, currentPeriodEndsAt: endedAt };
    default:
      return null;
  }
}

/** `customer.subscription.updated` and `.deleted`: the subscription as it now stands. */
const subscriptionChanged: EventHandler = async (tx, event, context) => {
  const subscription = event.data.object;
  const developer = await developerOf(tx, {
    subscriptionId: subscription.id,
    customerId: text(subscription.customer),
    developerId: text(subscription.metadata?.developer_id),
  });
  if (!developer || isStale(developer, event)) return;
  const known = developer.processor_subscription_id === subscription.id;
  if (developer.processor_subscription_id && !known) return;
  const plan = paidPlan(subscription.metadata?.plan) ?? paidPlan(developer.subscription_plan_id);
  if (!plan) {
    context.log.warn({ event: event.id }, 'a subscription on no known plan');
    return;
  }
  // Events can beat the checkout's own: a live subscription of the developer's becomes theirs, an
  // ended one they never had changes nothing.
  if (!known && endedStatus(subscription, event)) return;
  const change = changeOf(subscription, developer, plan, event);
  if (!change) return;
  await apply(tx, context, developer, event, {
    ...change,
    processorSubscriptionId: subscription.id,
    processorCustomerId: text(subscription.customer) ?? undefined,
  });
};

/** The subscription an invoice bills: a field in older API versions, its parent's in newer ones. */
function invoiceSubscription(invoice: StripeObject) {
  const parent = invoice.parent as
    | { subscription_details?: { subscription?: unknown; metadata?: Record<string, string> | null } }
    | null
    | undefined;
  return {
    subscriptionId: text(invoice.subscription) ?? text(parent?.subscription_details?.subscription),
    developerId: text(parent?.subscription_details?.metadata?.developer_id),
  };
}

/** An invoice of the developer's current subscription, and the developer; undefined for anything else. */
async function invoiceDeveloper(tx: Tx, event: ProcessorEvent) {
  const invoice = event.data.object;
  const { subscriptionId, developerId } = invoiceSubscription(invoice);
  if (!subscriptionId) return undefined;
  const developer = await developerOf(tx, {
    subscriptionId,
    customerId: text(invoice.customer),
    developerId,
  });
  if (!developer || developer.processor_subscription_id !== subscriptionId || isStale(developer, event)) {
    return undefined;
  }
  return developer;
}

/** A renewal failed: past due (every call 402) until it is paid. A cancelled subscription owes nothing more. */
const invoiceFailed: EventHandler = async (tx, event, context) => {
  const developer = await invoiceDeveloper(tx, event);
  if (!developer) return;
  const cancelled = developer.subscription_status === 'cancelled';
  await apply(
    tx,
    context,
    developer,
    event,
    cancelled ? unchanged(developer) : { status: 'past_due', planId: developer.subscription_plan_id },
  );
};

/** An invoice was paid: a past-due subscription is active again. */
const invoicePaid: EventHandler = async (tx, event, context) => {
  const developer = await invoiceDeveloper(tx, event);
  if (!developer) return;
  const pastDue = developer.subscription_status === 'past_due';
  await apply(
    tx,
    context,
    developer,
    event,
    pastDue ? { status: 'active', planId: developer.subscription_plan_id } : unchanged(developer),
  );
};

/** A connected account's onboarding moved: the business's row follows, unless it knows something newer. */
const accountUpdated: EventHandler = async (tx, event) => {
  const account = event.data.object;
  await syncConnectedAccount(
    tx,
    {
      id: account.id,
      detailsSubmitted: account.details_submitted === true,
      chargesEnabled: account.charges_enabled === true,
      payoutsEnabled: account.payouts_enabled === true,
    },
    eventTime(event),
  );
};

export const billingEventHandlers: EventHandlers = {
  'checkout.session.completed': checkoutCompleted,
  'customer.subscription.updated': subscriptionChanged,
  'customer.subscription.deleted': subscriptionChanged,
  'invoice.payment_failed': invoiceFailed,
  'invoice.payment_succeeded': invoicePaid,
  'account.updated': accountUpdated,
};
