import type { FastifyBaseLogger } from 'fastify';
import type { ConnectedAccount, PaymentProcessor, ProcessorName } from '../payments/processor.adapter.ts';
import type { Processors } from '../payments/processors.adapter.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import { askProcessor } from './billing.service.ts';
import {
  type ConnectedAccountRow,
  chargeableAccount,
  findConnectedAccount,
  saveConnectedAccount,
  syncConnectedAccount,
} from './connect.queries.ts';

/**
 * Whether a business may take deposits: its connected account has finished onboarding and may
 * take charges. A sandbox business always may: the simulated processor needs no onboarding.
 */
export async function depositsEnabled(
  executor: Executor,
  businessId: string,
  isDev: boolean,
  processor: ProcessorName | null,
): Promise<boolean> {
  if (isDev) return true;
  return processor !== null && (await chargeableAccount(executor, businessId, processor)) !== undefined;
}

export const depositsNotEnabled = () =>
  new AppError(
    'deposits_not_enabled',
    'deposits need a connected payment account that can take charges: connect one with POST /v1/billing/connect/onboard and finish its onboarding',
  );

/** Live businesses have no payment processor here: no deposit can be taken, whatever their account. */
export const noLiveProcessor = () =>
  new AppError(
    'deposits_not_enabled',
    'deposits of live businesses are not available: this server has no payment processor configured for them',
  );

/**
 * Refuses deposits while the business has no payment account that can take charges, or live
 * businesses no processor (`processor` null); answers the account the money goes to (none for a
 * sandbox business, which needs no account).
 */
export async function paymentDestination(
  executor: Executor,
  businessId: string,
  sandbox: boolean,
  processor: ProcessorName | null,
): Promise<string | null> {
  if (sandbox) return null;
  if (!processor) throw noLiveProcessor();
  const account = await chargeableAccount(executor, businessId, processor);
  if (!account) throw depositsNotEnabled();
  return account.processor_account_id;
}

/** The processor's clock counts seconds: a state learnt now is as new as an event of this second. */
const syncTime = (now: number) => new Date(Math.floor(now / 1000) * 1000);

export interface PreparedOnboarding {
  processor: ProcessorName;
  /** Set when a new account was made; an existing one is kept as it is. */
  created: ConnectedAccount | null;
  accountId: string;
  onboardingUrl: string;
}

/**
 * The processor's side of `POST /v1/billing/connect/onboard`, outside any transaction: the
 * business's account with the business's processor, made once (its idempotency key is the
 * business's id) and reused after, and a fresh onboarding link. An account with another processor
 * (made before Stripe was configured) is replaced.
 */
export async function prepareOnboarding(
  executor: Executor,
  processors: Processors,
  business: { businessId: string; sandbox: boolean },
  urls: { refreshUrl: string; returnUrl: string },
): Promise<PreparedOnboarding> {
  const { businessId } = business;
  const processor = processors.forBusiness(business.sandbox);
  if (!processor) {
    throw new AppError(
      'deposits_not_enabled',
      'payment accounts of live businesses are not available: this server has no payment processor configured for them',
    );
  }
  const existing = await findConnectedAccount(executor, businessId);
  const reused = existing?.processor === processor.name ? existing.processor_account_id : null;
  return askProcessor(async () => {
    const created = reused
      ? null
      : await processor.createConnectedAccount({
          email: null,
          metadata: { business_id: businessId },
          idempotencyKey: `business:${businessId}:connected-account:${processor.name}`,
        });
    const accountId = reused ?? created!.id;
    const link = await processor.createOnboardingLink({ accountId, ...urls });
    return { processor: processor.name, created, accountId, onboardingUrl: link.url };
  });
}

/** Stores a new account; answers the onboarding link. */
export async function recordOnboarding(
  tx: Tx,
  businessId: string,
  prepared: PreparedOnboarding,
  now: number,
) {
  if (prepared.created) {
    await saveConnectedAccount(tx, businessId, prepared.processor, prepared.created, syncTime(now));
  }
  return { onboarding_url: prepared.onboardingUrl, connect_id: prepared.accountId };
}

const processorOf = (processors: Processors, name: ProcessorName): PaymentProcessor | null =>
  name === 'stripe' ? processors.stripe : processors.simulated;

/** The account as the processor describes it now; the stored state when the processor cannot say. */
async function refreshed(
  db: Db,
  processors: Processors,
  log: FastifyBaseLogger,
  row: ConnectedAccountRow,
  now: number,
): Promise<ConnectedAccountRow> {
  const processor = processorOf(processors, row.processor);
  if (!processor) return row;
  let account: ConnectedAccount;
  try {
    account = await processor.retrieveConnectedAccount(row.processor_account_id);
  } catch (error) {
    log.warn({ err: error, account: row.processor_account_id }, 'could not refresh a connected account');
    return row;
  }
  await syncConnectedAccount(db, account, syncTime(now));
  return {
    ...row,
    details_submitted: account.detailsSubmitted,
    charges_enabled: account.chargesEnabled,
    payouts_enabled: account.payoutsEnabled,
  };
}

/**
 * `GET /v1/billing/connect/status`: the business's account, refreshed from the processor when
 * there is one (one statement stores what came back). `connected`: onboarding is complete and
 * the account takes charges.
 */
export async function connectStatus(
  db: Db,
  processors: Processors,
  log: FastifyBaseLogger,
  businessId: string,
  now: number,
) {
  const stored = await findConnectedAccount(db, businessId);
  if (!stored) {
    return {
      connected: false,
      details_submitted: false,
      charges_enabled: false,
      payouts_enabled: false,
      connect_id: null,
    };
  }
  const account = await refreshed(db, processors, log, stored, now);
  return {
    connected: account.details_submitted && account.charges_enabled,
    details_submitted: account.details_submitted,
    charges_enabled: account.charges_enabled,
    payouts_enabled: account.payouts_enabled,
    connect_id: account.processor_account_id,
  };
}

/** A business's payment onboarding: the account and its link made at the processor, then saved. */
export async function startOnboarding<R>(
  executor: Executor,
  processors: Processors,
  business: { businessId: string; sandbox: boolean },
  urls: { refreshUrl: string; returnUrl: string },
  now: number,
  commit: Commit<R>,
): Promise<R> {
  const prepared = await prepareOnboarding(executor, processors, business, urls);
  return commit((tx) => recordOnboarding(tx, business.businessId, prepared, now));
}
