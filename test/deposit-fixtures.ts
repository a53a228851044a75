import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { type BookableBusiness, type BookableOptions, setupBookable } from './booking-fixtures.ts';

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

export interface DepositBusiness extends BookableBusiness {
  /** The payment account deposits go to; null for a sandbox. */
  accountId: string | null;
}

/** A bookable business taking deposits of `depositType`, with a payment account unless a sandbox. */
export async function setupDepositBusiness(
  app: FastifyInstance,
  depositType: 'charge' | 'authorization_hold',
  options: BookableOptions = {},
): Promise<DepositBusiness> {
  const biz = await setupBookable(app, options);
  const accountId = options.sandbox ? null : await connectPaymentAccount(app, biz.tenant.businessId);
  const response = await app.inject({
    method: 'PATCH',
    url: '/v1/manage/settings',
    headers: biz.tenant.headers,
    payload: { deposit_type: depositType },
  });
  assert.equal(response.statusCode, 200, response.body);
  return { ...biz, accountId };
}

/** `pi_..._secret_...` -> `pi_...` (the same for setup intents). */
export const intentIdOf = (clientSecret: string) => clientSecret.split('_secret_')[0]!;

/** The guest pays (or is declined) on the simulated processor's checkout of a payment intent. */
export async function confirmPayment(
  app: FastifyInstance,
  clientSecret: string,
  outcome: 'succeed' | 'decline' = 'succeed',
) {
  const response = await app.inject({
    method: 'POST',
    url: `/simulated-processor/payment_intents/${intentIdOf(clientSecret)}/confirm`,
    payload: { client_secret: clientSecret, outcome },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** The guest saves a card on a setup intent, for a hold placed later. */
export async function saveCard(app: FastifyInstance, clientSecret: string, paymentMethod?: string) {
  const response = await app.inject({
    method: 'POST',
    url: `/simulated-processor/setup_intents/${intentIdOf(clientSecret)}/confirm`,
    payload: { client_secret: clientSecret, outcome: 'succeed', payment_method: paymentMethod },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** The stored deposit row of a booking. */
export const depositRow = (app: FastifyInstance, bookingId: string) =>
  app.db.selectFrom('deposits').selectAll().where('booking_id', '=', bookingId).executeTakeFirstOrThrow();

/** One booking as the staff API shows it. */
export async function bookingView(app: FastifyInstance, biz: BookableBusiness, bookingId: string) {
  const response = await app.inject({
    method: 'GET',
    url: `/v1/manage/bookings/${bookingId}`,
    headers: biz.tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/**
 * The audit rows about one booking as `action by actor`: transaction by transaction, and by
 * action within one (its rows share their time).
 */
export async function auditTrail(app: FastifyInstance, bookingId: string): Promise<string[]> {
  const rows = await app.db
    .selectFrom('audit_logs')
    .select(['action', 'user_email'])
    .where('entity_id', '=', bookingId)
    .orderBy('created_at')
    .orderBy('action')
    .execute();
  return rows.map((row) => `${row.action} by ${row.user_email}`);
}
