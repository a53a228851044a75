import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AvailabilityService } from '../availability/availability.service.ts';
import { assertDynamicMode } from '../availability/day-rules.service.ts';
import { paymentDestination } from '../billing/connect.service.ts';
import { assertFeature, type Subscriber } from '../billing/subscription.service.ts';
import { HOLD_LEAD_MS } from '../bookings/bookings.model.ts';
import type { PreparedBookingDeposit, PublicBookingDeposits } from '../bookings/new-booking.service.ts';
import { wallTimeToInstant } from '../engine/index.ts';
import type { PaymentProcessor, ProcessorName } from '../payments/processor.adapter.ts';
import type { Processors } from '../payments/processors.adapter.ts';
import type { Db } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { depositTerms } from './deposits.queries.ts';

/** A hold is a fixed EUR 20 whatever the party. */
export const HOLD_AMOUNT_CENTS = 2000;
export const CURRENCY = 'eur';
const MINUTE_MS = 60_000;

/** What the deposit use cases need beside a transaction. */
export interface DepositDeps {
  db: Db;
  /** Whose cached settings tell, without a query, that a business asks no deposit. */
  availability: AvailabilityService;
  payments: Processors;
  publicBaseUrl: string;
  log: FastifyBaseLogger;
}

export type Caller = Subscriber & { businessId: string };

/** The processor a business's new deposit goes through, and the account its money goes to. */
export async function depositProcessor(deps: DepositDeps, businessId: string, sandbox: boolean) {
  const processor = deps.payments.forBusiness(sandbox);
  const destination = await paymentDestination(deps.db, businessId, sandbox, processor?.name ?? null);
  // paymentDestination refused a live business without a processor.
  return { processor: processor!, destination };
}

/** The processor a deposit was made with, for the calls that follow (capture, release, refund). */
export function processorNamed(payments: Processors, name: ProcessorName): PaymentProcessor {
  if (name === 'simulated') return payments.simulated;
  if (!payments.stripe) throw new Error('a deposit made with Stripe needs STRIPE_SECRET_KEY');
  return payments.stripe;
}

export const idempotencyKey = (bookingId: string, step: string) => `deposit:${bookingId}:${step}`;

interface DepositRequest {
  date: string;
  time: string;
  partySize: number;
  mode: 'scheduled' | 'dynamic';
  customer: { first_name: string; last_name: string; email?: string | null };
}

/**
 * Prepares the deposit a public or dynamic booking needs by the business's `deposit_type`, before
 * its transaction (the processor is never called inside one): picks the booking's id and asks the
 * business's processor for the payment. A charge is the deposit per person times the party, a
 * hold EUR 20 captured only on a no-show; a hold for a booking more than 6 days ahead saves the
 * card instead, and a job places the hold 6 days before the start. Null when no deposit is asked.
 */
async function prepareDeposit(
  deps: DepositDeps,
  caller: Caller,
  request: DepositRequest,
  now: number,
): Promise<PreparedBookingDeposit | null> {
  // Most businesses ask no deposit: their settings, as availability caches them, say so at once.
  const settings = await deps.availability.businessRules(caller.businessId, now);
  if (!settings) throw notFound('business');
  if (request.mode === 'dynamic') assertDynamicMode(settings);
  if (!asksDeposit(settings)) return null;
  // Money is asked on the settings as stored.
  const terms = await depositTerms(deps.db, caller.businessId);
  if (!terms) throw notFound('business');
  if (!asksDeposit(terms)) return null;
  const type = terms.deposit_type;
  if (type === 'authorization_hold') assertFeature(caller, 'authorizationHolds', now);
  const { processor, destination } = await depositProcessor(deps, caller.businessId, terms.is_dev);
  const bookingId = randomUUID();
  const metadata = { booking_id: bookingId, business_id: caller.businessId };
  const row = {
    type,
    status: 'requires_payment' as const,
    currency: CURRENCY,
    processor: processor.name,
    expires_at: new Date(now + terms.payment_hold_minutes * MINUTE_MS),
  };
  // A start the clocks skip has no instant; the booking's own checks refuse it.
  const start = wallTimeToInstant(request.date, request.time, terms.timezone);
  if (type === 'authorization_hold' && start !== null && start - now > HOLD_LEAD_MS) {
    const customer = await processor.createCustomer({
      email: request.customer.email ?? '',
      name: `${request.customer.first_name} ${request.customer.last_name}`,
      metadata,
      idempotencyKey: idempotencyKey(bookingId, 'customer'),
    });
    const setup = await processor.createSetupIntent({
      customerId: customer.id,
      metadata,
      idempotencyKey: idempotencyKey(bookingId, 'setup'),
    });
    return {
      bookingId,
      payment: { type, clientSecret: setup.clientSecret },
      row: {
        ...row,
        amount_cents: HOLD_AMOUNT_CENTS,
        processor_setup_id: setup.id,
        processor_customer_id: customer.id,
        hold_due_at: new Date(start - HOLD_LEAD_MS),
      },
    };
  }
  const amount =
    type === 'charge' ? terms.default_deposit_amount_cents * request.partySize : HOLD_AMOUNT_CENTS;
  const intent = await processor.createPaymentIntent({
    amountCents: amount,
    currency: CURRENCY,
    captureMethod: type === 'charge' ? 'automatic' : 'manual',
    destinationAccountId: destination,
    metadata,
    idempotencyKey: idempotencyKey(bookingId, 'intent'),
  });
  return {
    bookingId,
    payment: { type, clientSecret: intent.clientSecret },
    row: { ...row, amount_cents: amount, processor_payment_id: intent.id },
  };
}

/** Whether a business's online bookings wait for a deposit (every party, every service). */
export const asksDeposit = <T extends { deposit_type: string }>(
  settings: T,
): settings is T & { deposit_type: Exclude<T['deposit_type'], 'none'> } => settings.deposit_type !== 'none';

/**
 * Runs the booking's transaction with its prepared deposit. When the transaction fails (the slot
 * was taken, a rule refused it), the payment prepared for it is cancelled, best effort: the
 * guest was never shown it, and one left open would lapse at the processor anyway.
 */
async function commitWithDeposit<T>(
  deps: DepositDeps,
  prepared: PreparedBookingDeposit | null,
  commit: () => Promise<T>,
): Promise<T> {
  try {
    return await commit();
  } catch (error) {
    const paymentId = prepared?.row.processor_payment_id;
    if (prepared && paymentId) {
      await processorNamed(deps.payments, prepared.row.processor)
        .cancelPaymentIntent(paymentId, idempotencyKey(prepared.bookingId, 'cancel'))
        .catch((cancelError: unknown) =>
          deps.log.warn({ err: cancelError, payment_id: paymentId }, 'could not cancel an unused payment'),
        );
    }
    throw error;
  }
}

/** An amount as a guest's email and a staff answer spell it. */
/** A public or dynamic booking's deposit: asked by the business's settings, paid in the guest's browser. */
export const publicBookingDeposits = (deps: DepositDeps): PublicBookingDeposits => ({
  prepare: (caller, request, now) =>
    prepareDeposit(deps, caller, { ...request, mode: request.mode ?? 'scheduled' }, now),
  commit: (prepared, commit) => commitWithDeposit(deps, prepared, commit),
});

export const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;
