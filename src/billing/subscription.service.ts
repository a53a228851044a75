import type { ProcessorName } from '../payments/processor.adapter.ts';
import type { Principal } from '../platform/auth.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, notFound } from '../platform/errors.ts';
import type { BookingSource, StoredPlanId, SubscriptionStatus } from '../schema.ts';
import { depositsEnabled } from './connect.service.ts';
import { entitlementAt, FEATURE_NAMES, type Feature, PLAN_IDS, PLANS, quotaMonth } from './plans.rules.ts';
import {
  countResources,
  giveUnitBack,
  loadAccount,
  type ProcessorSubscriptionRow,
  type SubscriptionRow,
  subscriptionOf,
  updateSubscription,
} from './subscription.queries.ts';

/** The caller's subscription and business, as a guard resolved them. */
export type Subscriber = Pick<Principal, 'subscription' | 'sandbox'>;

/**
 * Refuses a feature the caller's plan does not carry (402). Sandbox businesses have every feature.
 * A past-due subscription never gets this far: the route guard has refused it.
 */
export function assertFeature(subscriber: Subscriber, feature: Feature, now: number): void {
  if (subscriber.sandbox) return;
  const entitlement = entitlementAt(subscriber.subscription, now);
  if (!entitlement.plan[feature]) {
    throw new AppError(
      'plan_upgrade_required',
      `${FEATURE_NAMES[feature]} is not part of the ${entitlement.planId} plan; it comes with ${plansWith(feature)}`,
    );
  }
}

const plansWith = (feature: Feature) => PLAN_IDS.filter((id) => PLANS[id][feature]).join(' and ');

/**
 * What a booking counts against: its developer's month and the plan's quota, which the booking
 * statement counts it in only while the count is below `quota` (`slotwise_count_booking`; past it,
 * 402 `plan_limit_reached`). Null for a
 * sandbox business, which counts on its own cap instead (`sandboxCap`).
 */
export interface QuotaTicket {
  developerId: string;
  month: string;
  quota: number;
  planId: StoredPlanId;
}

/** The shared demo business of `/v1/sandbox` books as `{ sandbox: true }`: it has no developer. */
export type QuotaHolder =
  | { sandbox: true }
  | Pick<Principal, 'sandbox' | 'developerId' | 'subscription' | 'kind'>;

/** A limit no month reaches: the booking is counted and never refused. */
const NEVER_REFUSED = 2_147_483_647;

/** A sandbox business is for trying things out, not for trading: this many bookings a month. */
export const SANDBOX_MONTHLY_BOOKINGS = 100;

/**
 * The count a booking joins. A dashboard user's booking at the host stand (a walk-in, a phone
 * call) is counted but never refused: the venue must be able to seat a guest at its door.
 */
export function bookingQuota(holder: QuotaHolder, source: BookingSource, now: number): QuotaTicket | null {
  // Only a developer's token without a business has no developer to count for, and it books nothing.
  if (holder.sandbox || holder.developerId === null) return null;
  const { plan, planId } = entitlementAt(holder.subscription, now);
  const hostStand = holder.kind === 'user' && source === 'staff';
  return {
    developerId: holder.developerId,
    month: quotaMonth(now),
    quota: hostStand ? NEVER_REFUSED : plan.monthlyBookings,
    planId,
  };
}

/**
 * What a sandbox business's booking counts against: its own month, below the sandbox cap, which
 * the booking statement counts it in (402 `plan_limit_reached` once it is used up).
 */
export interface SandboxCap {
  businessId: string;
  month: string;
  cap: number;
}

/** The cap of a developer's sandbox business; null for a live business and for the shared demo. */
export function sandboxCap(holder: QuotaHolder, businessId: string, now: number): SandboxCap | null {
  if (!holder.sandbox || !('developerId' in holder)) return null;
  return { businessId, month: quotaMonth(now), cap: SANDBOX_MONTHLY_BOOKINGS };
}

/**
 * Gives back the unit a booking took of its month (its developer's quota, or its sandbox's cap),
 * in the transaction that cancelled it because it never became confirmed. The caller makes that
 * move once per booking, so the unit comes back once. `slotwise_give_unit_back` does it, as the
 * booking change statement does.
 */
export async function giveBookingUnitBack(tx: Tx, businessId: string, bookingId: string): Promise<void> {
  await giveUnitBack(tx, businessId, bookingId);
}

/** `GET /v1/manage/subscription`: the developer's subscription as it stands, seen from one business. */
export async function subscriptionOfBusiness(
  executor: Executor,
  businessId: string,
  now: number,
  /** The processor a live business's deposits go through. */
  processor: ProcessorName | null,
) {
  const account = await loadAccount(executor, businessId, quotaMonth(now));
  if (!account) throw notFound('business');
  const entitlement = entitlementAt(subscriptionOf(account), now);
  return {
    subscription_status: entitlement.status,
    subscription_plan_id: entitlement.planId,
    trial_ends_at: entitlement.trialEndsAt.toISOString(),
    trial_days_remaining: entitlement.trialDaysRemaining,
    current_period_ends_at: account.current_period_ends_at?.toISOString() ?? null,
    resource_count: await countResources(executor, businessId),
    deposits_enabled: await depositsEnabled(executor, businessId, account.is_dev, processor),
    is_sandbox: account.is_dev,
    bookings_this_month: account.bookings_this_month,
    bookings_quota: account.is_dev ? null : entitlement.plan.monthlyBookings,
    features: {
      dynamic_mode: account.is_dev || entitlement.plan.dynamicMode,
      authorization_holds: account.is_dev || entitlement.plan.authorizationHolds,
      calendar_sync: account.is_dev || entitlement.plan.calendarSync,
    },
  };
}

export interface SubscriptionChange {
  status: SubscriptionStatus;
  planId: StoredPlanId;
  trialEndsAt?: Date;
  currentPeriodEndsAt?: Date | null;
  /** The processor's subscription (`sub_...`) and customer (`cus_...`) the state belongs to. */
  processorSubscriptionId?: string | null;
  processorCustomerId?: string;
  /** When the processor created the event that set the state: older events are ignored from then on. */
  eventAt?: Date;
}

/**
 * The one way a developer's subscription changes: the payment processor's events call it, as do
 * tests and `npm run demo`. A trial has the plan id `trial` and no other status
 * does. Other processes hear of the change from the database; this one forgets its verified keys
 * at once, so its next request already sees the new state.
 */
export async function setSubscription(
  executor: Executor,
  changes: ChangeFeed,
  developerId: string,
  change: SubscriptionChange,
): Promise<void> {
  if ((change.status === 'trial') !== (change.planId === 'trial')) {
    throw new RangeError(`a ${change.status} subscription cannot be on the ${change.planId} plan`);
  }
  const row: Partial<SubscriptionRow & ProcessorSubscriptionRow> = {
    subscription_status: change.status,
    subscription_plan_id: change.planId,
  };
  if (change.trialEndsAt !== undefined) row.trial_ends_at = change.trialEndsAt;
  if (change.currentPeriodEndsAt !== undefined) row.current_period_ends_at = change.currentPeriodEndsAt;
  if (change.processorSubscriptionId !== undefined)
    row.processor_subscription_id = change.processorSubscriptionId;
  if (change.processorCustomerId !== undefined) row.processor_customer_id = change.processorCustomerId;
  if (change.eventAt !== undefined) row.subscription_event_at = change.eventAt;
  const updated = await updateSubscription(executor, developerId, row);
  if (updated.numUpdatedRows === 0n) throw notFound('developer');
  changes.credentialsChanged();
}
