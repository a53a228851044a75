import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import type { BillingCleanupAction, StoredPlanId, SubscriptionState, SubscriptionStatus } from '../schema.ts';

/** The developer columns a subscription is read from; qualified, so they join from any table. */
export const SUBSCRIPTION_COLUMNS = [
  'developers.subscription_status',
  'developers.subscription_plan_id',
  'developers.trial_ends_at',
  'developers.current_period_ends_at',
] as const;

/** The processor's names of a developer's billing: its customer, its subscription, its open checkout. */
const PROCESSOR_NAMES = [
  'developers.processor_customer_id',
  'developers.processor_subscription_id',
  'developers.billing_checkout_id',
] as const;

export interface SubscriptionRow {
  subscription_status: SubscriptionStatus;
  subscription_plan_id: StoredPlanId;
  trial_ends_at: Date;
  current_period_ends_at: Date | null;
}

export const subscriptionOf = (row: SubscriptionRow): SubscriptionState => ({
  status: row.subscription_status,
  planId: row.subscription_plan_id,
  trialEndsAt: row.trial_ends_at,
  currentPeriodEndsAt: row.current_period_ends_at,
});

/** The business's developer, subscription and sandbox flag, and the developer's bookings counted in `month`. */
export const loadAccount = (executor: Executor, businessId: string, month: string) =>
  executor
    .selectFrom('businesses')
    .innerJoin('developers', 'developers.id', 'businesses.developer_id')
    .select(['developers.id as developer_id', 'businesses.is_dev', ...SUBSCRIPTION_COLUMNS])
    // The month is counted on several rows (migrations/0018): their sum.
    .select(
      sql<number>`coalesce((SELECT sum(u.bookings)::int FROM booking_usage u
        WHERE u.developer_id = developers.id AND u.month = ${month}), 0)`.as('bookings_this_month'),
    )
    .where('businesses.id', '=', businessId)
    .executeTakeFirst();

export type AccountRow = NonNullable<Awaited<ReturnType<typeof loadAccount>>>;

/** The business's resources, active or not; deleted ones are gone. */
export const countResources = async (executor: Executor, businessId: string) =>
  Number(
    (
      await executor
        .selectFrom('resources')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('business_id', '=', businessId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).count,
  );

/** Where a developer's subscription comes from at the processor, and the last event applied to it. */
export interface ProcessorSubscriptionRow {
  processor_customer_id: string | null;
  processor_subscription_id: string | null;
  subscription_event_at: Date | null;
}

/** Writes a developer's subscription state; the internal entry point of every change to it. */
export const updateSubscription = (
  executor: Executor,
  developerId: string,
  changes: Partial<SubscriptionRow & ProcessorSubscriptionRow>,
) => executor.updateTable('developers').set(changes).where('id', '=', developerId).executeTakeFirst();

/**
 * A developer's subscription, found by one of the processor's names for it (or by id), locked
 * until the transaction ends: two events about one developer are applied one after the other.
 */
export const lockBillingDeveloper = (
  tx: Tx,
  column: 'id' | 'processor_customer_id' | 'processor_subscription_id',
  value: string,
) =>
  tx
    .selectFrom('developers')
    .select([
      'developers.id',
      ...SUBSCRIPTION_COLUMNS,
      ...PROCESSOR_NAMES,
      'developers.subscription_event_at',
    ])
    .where(column, '=', value)
    .forUpdate()
    .executeTakeFirst();
export type BillingDeveloperRow = NonNullable<Awaited<ReturnType<typeof lockBillingDeveloper>>>;

/** What billing a developer needs: who they are, the processor's customer and subscription. */
export const findDeveloperForBilling = (executor: Executor, developerId: string) =>
  executor
    .selectFrom('developers')
    .select(['id', 'email', 'first_name', 'last_name', 'subscription_status', ...PROCESSOR_NAMES])
    .where('id', '=', developerId)
    .executeTakeFirst();

/** Keeps the processor's customer made for the developer; one made by a concurrent request stays. */
export const rememberCustomer = (tx: Tx, developerId: string, customerId: string) =>
  tx
    .updateTable('developers')
    .set({ processor_customer_id: customerId })
    .where('id', '=', developerId)
    .where('processor_customer_id', 'is', null)
    .execute();

/** Gives back the unit a booking took of its month: `slotwise_give_unit_back`. */
export const giveUnitBack = (tx: Tx, businessId: string, bookingId: string) =>
  sql`SELECT slotwise_give_unit_back(${businessId}::uuid, ${bookingId}::uuid)`.execute(tx);

/** Makes `checkoutId` the developer's open plan checkout; answers the one it replaces, if any. */
export async function replaceOpenCheckout(tx: Tx, developerId: string, checkoutId: string) {
  const before = await tx
    .selectFrom('developers')
    .select('billing_checkout_id')
    .where('id', '=', developerId)
    .forUpdate()
    .executeTakeFirst();
  await tx
    .updateTable('developers')
    .set({ billing_checkout_id: checkoutId })
    .where('id', '=', developerId)
    .execute();
  return before?.billing_checkout_id ?? null;
}

/** The developer's open plan checkout is `checkoutId` no longer (it was completed). */
export const closeOpenCheckout = (tx: Tx, developerId: string, checkoutId: string) =>
  tx
    .updateTable('developers')
    .set({ billing_checkout_id: null })
    .where('id', '=', developerId)
    .where('billing_checkout_id', '=', checkoutId)
    .execute();

/** Leaves work at the processor for the billing job; once per object. */
export const queueBillingCleanup = (
  tx: Tx,
  developerId: string,
  processorObjectId: string,
  action: BillingCleanupAction,
) =>
  tx
    .insertInto('billing_cleanups')
    .values({ processor_object_id: processorObjectId, developer_id: developerId, action })
    .onConflict((oc) => oc.column('processor_object_id').doNothing())
    .execute();

/**
 * Claims due cleanups for `leaseMs`: another process skips them meanwhile, and one that dies
 * with them leaves them to be claimed again after the lease.
 */
export async function claimBillingCleanups(tx: Tx, now: Date, leaseMs: number, limit: number) {
  const due = await tx
    .selectFrom('billing_cleanups')
    .select(['processor_object_id', 'developer_id', 'action', 'attempts'])
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  if (due.length === 0) return due;
  await tx
    .updateTable('billing_cleanups')
    .set((eb) => ({ due_at: new Date(now.getTime() + leaseMs), attempts: eb('attempts', '+', 1) }))
    .where(
      'processor_object_id',
      'in',
      due.map((row) => row.processor_object_id),
    )
    .execute();
  return due;
}

export const deleteBillingCleanup = (executor: Executor, processorObjectId: string) =>
  executor.deleteFrom('billing_cleanups').where('processor_object_id', '=', processorObjectId).execute();
