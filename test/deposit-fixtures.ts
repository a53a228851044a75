import type { FastifyInstance } from 'fastify';

/**
 * Gives a business the payment account deposits need, as finished onboarding leaves it
 * (`ready: false`: onboarding begun, charges not yet enabled).
 */
export async function connectPaymentAccount(
  app: FastifyInstance,
  businessId: string,
  { ready = true }: { ready?: boolean } = {},
): Promise<string> {
  const accountId = `acct_test${businessId.replaceAll('-', '').slice(0, 16)}`;
  await app.db
    .insertInto('connected_accounts')
    .values({
      business_id: businessId,
      processor: 'simulated',
      processor_account_id: accountId,
      details_submitted: ready,
      charges_enabled: ready,
      payouts_enabled: ready,
    })
    .execute();
  return accountId;
}
