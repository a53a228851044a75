import { sql } from 'kysely';
import type { ConnectedAccount, ProcessorName } from '../payments/processor.adapter.ts';
import type { Executor, Tx } from '../platform/db.ts';

export const findConnectedAccount = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('connected_accounts')
    .select([
      'processor',
      'processor_account_id',
      'details_submitted',
      'charges_enabled',
      'payouts_enabled',
      'synced_at',
    ])
    .where('business_id', '=', businessId)
    .executeTakeFirst();
export type ConnectedAccountRow = NonNullable<Awaited<ReturnType<typeof findConnectedAccount>>>;

const flagsOf = (account: ConnectedAccount) => ({
  details_submitted: account.detailsSubmitted,
  charges_enabled: account.chargesEnabled,
  payouts_enabled: account.payoutsEnabled,
});

/** The business's account, new or replacing one of another processor, as the processor just described it. */
export const saveConnectedAccount = (
  tx: Tx,
  businessId: string,
  processor: ProcessorName,
  account: ConnectedAccount,
  syncedAt: Date,
) =>
  tx
    .insertInto('connected_accounts')
    .values({
      business_id: businessId,
      processor,
      processor_account_id: account.id,
      ...flagsOf(account),
      synced_at: syncedAt,
    })
    .onConflict((oc) =>
      oc.column('business_id').doUpdateSet((eb) => ({
        processor: eb.ref('excluded.processor'),
        processor_account_id: eb.ref('excluded.processor_account_id'),
        details_submitted: eb.ref('excluded.details_submitted'),
        charges_enabled: eb.ref('excluded.charges_enabled'),
        payouts_enabled: eb.ref('excluded.payouts_enabled'),
        synced_at: eb.ref('excluded.synced_at'),
        updated_at: sql`now()`,
      })),
    )
    .execute();

/**
 * Takes the account's state as of `syncedAt`, unless the row already knows a later one. Found by the
 * processor's account id across businesses, as the processor's event names no business.
 */
export const syncConnectedAccount = (executor: Executor, account: ConnectedAccount, syncedAt: Date) =>
  executor
    .updateTable('connected_accounts')
    .set({ ...flagsOf(account), synced_at: syncedAt, updated_at: sql`now()` })
    .where('processor_account_id', '=', account.id)
    .where((eb) => eb.or([eb('synced_at', 'is', null), eb('synced_at', '<=', syncedAt)]))
    .executeTakeFirst();

/**
 * The business's account if it has finished onboarding, may take charges, and belongs to
 * `processor`: an account made with the simulated processor is no destination for Stripe's
 * charges once Stripe is configured, and the business onboards again.
 */
export const chargeableAccount = (executor: Executor, businessId: string, processor: ProcessorName) =>
  executor
    .selectFrom('connected_accounts')
    .select('processor_account_id')
    .where('business_id', '=', businessId)
    .where('processor', '=', processor)
    .where('details_submitted', '=', true)
    .where('charges_enabled', '=', true)
    .executeTakeFirst();
