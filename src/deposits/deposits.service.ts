import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type AuditActor, recordAudit } from '../audit/audit.ts';
import { type AvailabilityService, assertDynamicMode } from '../availability/availability.service.ts';
import { instantToWall, wallTimeToInstant } from '../availability/engine/index.ts';
import { paymentDestination } from '../billing/connect.service.ts';
import { assertFeature, giveBookingUnitBack, type Subscriber } from '../billing/subscription.service.ts';
import { lockBooking, updateBooking } from '../bookings/bookings.queries.ts';
import {
  type BookingActor,
  type BookingDeposit,
  createBooking,
  findBooking,
  type NewBooking,
  type PreparedBookingDeposit,
} from '../bookings/bookings.service.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import { HOLD_LEAD_MS, MONEY_TAKEN } from '../bookings/model.ts';
import { allowsMove, assertMoveReady } from '../bookings/status.ts';
import type { PaymentProcessor, ProcessorName } from '../payments/processor.ts';
import { ProcessorRefusal } from '../payments/processor.ts';
import type { Processors } from '../payments/processors.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { AppError, notFound } from '../platform/errors.ts';
import type { BookingStatus, DepositStatus } from '../schema.ts';
import { bookingStatusEvent, emitEvent, type WebhookEventType } from '../webhooks/events.ts';
import { canMove } from './deposit-status.ts';
import {
  type DepositReference,
  depositOfBooking,
  depositTerms,
  findDepositByReference,
  lockDeposit,
  type StoredDeposit,
  updateDeposit,
} from './deposits.queries.ts';
import { enqueueEmail, venueInSubject } from './email.service.ts';

/** A hold is a fixed EUR 20 whatever the party. */
export const HOLD_AMOUNT_CENTS = 2000;
const CURRENCY = 'eur';
const MINUTE_MS = 60_000;
/** A staff deposit's payment link lasts this long; unpaid by then, the booking is cancelled. */
export const CHECKOUT_LIFETIME_MS = 2 * 3_600_000;

/** What the deposit use cases need beside a transaction. */
export interface DepositDeps {
  db: Db;
  /** Whose cached settings tell, without a query, that a business asks no deposit. */
  availability: AvailabilityService;
  payments: Processors;
  publicBaseUrl: string;
  log: FastifyBaseLogger;
}

type Caller = Subscriber & { businessId: string };

/** Work the service does by itself (jobs, the processor's events) is audited under this name. */
const systemActor = (businessId: string): AuditActor => ({ actor: 'system', businessId });

/** The processor a business's new deposit goes through, and the account its money goes to. */
async function depositProcessor(deps: DepositDeps, businessId: string, sandbox: boolean) {
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

const idempotencyKey = (bookingId: string, step: string) => `deposit:${bookingId}:${step}`;

export interface DepositRequest {
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
export async function prepareDeposit(
  deps: DepositDeps,
  caller: Caller,
  request: DepositRequest,
  now: number,
): Promise<PreparedBookingDeposit | null> {
  // Most businesses ask no deposit: their settings, as availability caches them, say so at once.
  const settings = await deps.availability.businessRules(caller.businessId, now);
  if (!settings) throw notFound('business');
  if (request.mode === 'dynamic') assertDynamicMode(settings);
  if (settings.deposit_type === 'none') return null;
  // Money is asked on the settings as stored.
  const terms = await depositTerms(deps.db, caller.businessId);
  if (!terms) throw notFound('business');
  if (terms.deposit_type === 'none') return null;
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
      type,
      clientSecret: setup.clientSecret,
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
    type,
    clientSecret: intent.clientSecret,
    row: { ...row, amount_cents: amount, processor_payment_id: intent.id },
  };
}

/**
 * Runs the booking's transaction with its prepared deposit. When the transaction fails (the slot
 * was taken, a rule refused it), the payment prepared for it is cancelled, best effort: the
 * guest was never shown it, and one left open would lapse at the processor anyway.
 */
export async function commitWithDeposit<T>(
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

/** A staff deposit booking's payment link, made before the booking's transaction. */
export interface PreparedCheckout extends BookingDeposit {
  checkoutUrl: string;
  expiresAt: Date;
  businessName: string;
  timezone: string;
}

/**
 * Prepares the payment link of a staff booking taken with a deposit: a charge of the deposit per
 * person times the party, through the processor's checkout page, valid for 2 hours.
 */
export async function prepareStaffDeposit(
  deps: DepositDeps,
  caller: Caller,
  request: { partySize: number; email: string },
  now: number,
): Promise<PreparedCheckout> {
  const terms = await depositTerms(deps.db, caller.businessId);
  if (!terms) throw notFound('business');
  const { processor, destination } = await depositProcessor(deps, caller.businessId, terms.is_dev);
  const bookingId = randomUUID();
  const amount = terms.default_deposit_amount_cents * request.partySize;
  const expiresAt = new Date(now + CHECKOUT_LIFETIME_MS);
  const page = `${deps.publicBaseUrl}/book/${terms.slug}?booking=${bookingId}`;
  const checkout = await processor.createPaymentCheckout({
    amountCents: amount,
    currency: CURRENCY,
    description: `Deposit for your booking at ${terms.name}`,
    customerEmail: request.email,
    expiresAt,
    successUrl: `${page}&deposit=paid`,
    cancelUrl: `${page}&deposit=cancelled`,
    destinationAccountId: destination,
    metadata: { booking_id: bookingId, business_id: caller.businessId },
    idempotencyKey: idempotencyKey(bookingId, 'checkout'),
  });
  return {
    bookingId,
    row: {
      type: 'charge',
      status: 'requires_payment',
      amount_cents: amount,
      currency: CURRENCY,
      processor: processor.name,
      processor_checkout_id: checkout.id,
      checkout_url: checkout.url,
      expires_at: expiresAt,
    },
    checkoutUrl: checkout.url,
    expiresAt,
    businessName: terms.name,
    timezone: terms.timezone,
  };
}

const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;

function paymentLinkEmail(booking: BookingView, prepared: PreparedCheckout) {
  const deadline = instantToWall(prepared.expiresAt.getTime(), prepared.timezone);
  const guest = booking.guest?.first_name ?? booking.customer.first_name;
  return {
    subject: `Pay the deposit for your booking at ${venueInSubject(prepared.businessName)}`,
    text: [
      `Hello ${guest},`,
      '',
      `your booking at ${prepared.businessName} for ${booking.capacity} on ${booking.booking_date} at ${booking.start_time} is reserved and waits for its deposit of ${euros(prepared.row.amount_cents)}.`,
      `Pay it here before ${deadline.date} ${deadline.time} (${prepared.timezone}):`,
      '',
      prepared.checkoutUrl,
      '',
      'Unpaid by then, the booking is cancelled.',
      `Confirmation code: ${booking.confirmation_code}`,
    ].join('\n'),
  };
}

/**
 * Books a staff booking that waits for its deposit (`pending`), and writes the email with its
 * payment link in the same transaction: the guest is told only of a booking that exists.
 */
export async function createStaffDepositBooking(
  tx: Tx,
  availability: AvailabilityService,
  actor: BookingActor,
  input: Omit<NewBooking, 'source' | 'deposit'> & { customer: { email: string } },
  prepared: PreparedCheckout,
  now: number,
) {
  const { booking } = await createBooking(
    tx,
    availability,
    actor,
    { ...input, source: 'staff', deposit: prepared },
    now,
  );
  await enqueueEmail(tx, {
    businessId: actor.businessId,
    to: input.customer.email,
    ...paymentLinkEmail(booking, prepared),
  });
  return { booking, checkout_url: prepared.checkoutUrl, expires_at: prepared.expiresAt.toISOString() };
}

/**
 * Moves a deposit its caller holds locked (with its booking) along the status table, and audits
 * the move as `deposit.<status>`. This is the one place a deposit's status changes, where the
 * outbound `deposit.*` webhooks are to be emitted.
 */
async function recordDepositMove(
  tx: Tx,
  deposit: StoredDeposit,
  to: DepositStatus,
  changes: Partial<StoredDeposit>,
  actor: AuditActor,
  meta: Record<string, unknown>,
): Promise<void> {
  await updateDeposit(tx, deposit.business_id, deposit.id, { ...changes, status: to });
  await recordAudit(tx, actor, {
    action: `deposit.${to}`,
    entityType: 'booking',
    entityId: deposit.booking_id,
    before: { deposit_status: deposit.status },
    after: { deposit_status: to },
    meta: { type: deposit.type, amount_cents: deposit.amount_cents, ...meta },
  });
  const event = DEPOSIT_EVENTS[to];
  if (event) {
    await emitEvent(
      tx,
      deposit.business_id,
      event,
      {
        booking_id: deposit.booking_id,
        status: to,
        type: deposit.type,
        amount_cents: deposit.amount_cents,
        processor_payment_id: changes.processor_payment_id ?? deposit.processor_payment_id,
      },
      deposit.booking_id,
    );
  }
}

/** The outbound event of each deposit status: money taken or held, collected, given back, failed. */
const DEPOSIT_EVENTS: Partial<Record<DepositStatus, WebhookEventType>> = {
  paid: 'deposit.paid',
  held: 'deposit.paid',
  captured: 'deposit.collected',
  released: 'deposit.refunded',
  refunded: 'deposit.refunded',
  failed: 'deposit.failed',
};

/** A status change the service makes by itself (a payment confirmed it, its deposit expired). */
async function moveBookingBySystem(
  tx: Tx,
  booking: { id: string; business_id: string; status: BookingStatus },
  to: Exclude<BookingStatus, 'pending'>,
  action: string,
  meta: Record<string, unknown>,
): Promise<void> {
  await updateBooking(tx, booking.business_id, booking.id, { status: to });
  await recordAudit(tx, systemActor(booking.business_id), {
    action,
    entityType: 'booking',
    entityId: booking.id,
    before: { status: booking.status },
    after: { status: to },
    meta,
  });
  await emitBookingMove(tx, booking.business_id, booking.id, to);
}

/** The outbound event of a booking's move, carrying the booking as the API answers it now. */
async function emitBookingMove(
  tx: Tx,
  businessId: string,
  bookingId: string,
  to: Exclude<BookingStatus, 'pending'>,
) {
  await emitEvent(
    tx,
    businessId,
    bookingStatusEvent(to),
    await findBooking(tx, businessId, bookingId),
    bookingId,
  );
}

/** Locks a deposit's booking, then the deposit (always in that order, as staff changes do). */
async function lockBookingAndDeposit(tx: Tx, deposit: StoredDeposit) {
  const booking = await lockBooking(tx, deposit.business_id, deposit.booking_id);
  const locked = await lockDeposit(tx, deposit.business_id, deposit.id);
  return booking && locked ? { booking, deposit: locked } : undefined;
}

export interface DepositOutcome {
  to: DepositStatus;
  changes?: Partial<StoredDeposit>;
  /** Why, for the audit rows: the event's id and type, or the job's reason. */
  meta: Record<string, unknown>;
  /** The money a processor's event reports taken or held; it settles the deposit only when it is the deposit's. */
  received?: { amountCents: number | null; currency: string | null };
}

/** Money reported in a currency or of an amount other than the deposit's. */
const isOtherMoney = (deposit: StoredDeposit, received: NonNullable<DepositOutcome['received']>) =>
  received.amountCents !== deposit.amount_cents ||
  received.currency?.toLowerCase() !== deposit.currency.toLowerCase();

/**
 * Applies what the processor says happened to a deposit, if the status table allows the move (a
 * stale or repeated report changes nothing). Money taken confirms a waiting booking and ends its
 * deadline; money taken for a booking already cancelled is marked to be given back by a job.
 * Money of another amount or currency than the deposit's settles nothing (a payment of one cent
 * must not confirm a booking): the deposit stays as it is, and the report is audited
 * (`deposit.amount_mismatch`) for the staff to look into. Answers whether that happened.
 */
export async function settleDeposit(
  tx: Tx,
  found: StoredDeposit,
  outcome: DepositOutcome,
  now: number,
): Promise<'amount_mismatch' | undefined> {
  const locked = await lockBookingAndDeposit(tx, found);
  if (!locked || !canMove(locked.deposit.status, outcome.to)) return;
  const { booking, deposit } = locked;
  const moneyTaken = MONEY_TAKEN.includes(outcome.to);
  if (moneyTaken && outcome.received && isOtherMoney(deposit, outcome.received)) {
    await recordAudit(tx, systemActor(deposit.business_id), {
      action: 'deposit.amount_mismatch',
      entityType: 'booking',
      entityId: deposit.booking_id,
      meta: {
        ...outcome.meta,
        expected: { amount_cents: deposit.amount_cents, currency: deposit.currency },
        received: { amount_cents: outcome.received.amountCents, currency: outcome.received.currency },
      },
    });
    return 'amount_mismatch';
  }
  const changes: Partial<StoredDeposit> = { ...outcome.changes };
  if (moneyTaken) changes.expires_at = null;
  if (moneyTaken && booking.status === 'cancelled') changes.reversal_due_at = new Date(now);
  await recordDepositMove(tx, deposit, outcome.to, changes, systemActor(deposit.business_id), outcome.meta);
  if (moneyTaken && allowsMove(booking.status, 'confirmed', 'payment')) {
    await moveBookingBySystem(tx, booking, 'confirmed', 'booking.status_changed', {
      ...outcome.meta,
      reason: `deposit.${outcome.to}`,
    });
  }
}

/**
 * A deposit not paid by its deadline: it fails, and its booking, if still waiting, is cancelled,
 * frees its slot and gives its unit of the monthly count back. The caller holds both locked. The
 * deadline ends either way, so a booking staff confirmed without the money stays confirmed.
 */
async function expireLocked(
  tx: Tx,
  deposit: StoredDeposit,
  bookingStatus: BookingStatus,
  meta: Record<string, unknown>,
): Promise<void> {
  const actor = systemActor(deposit.business_id);
  if (canMove(deposit.status, 'failed')) {
    await recordDepositMove(tx, deposit, 'failed', { expires_at: null }, actor, meta);
  } else {
    await updateDeposit(tx, deposit.business_id, deposit.id, { expires_at: null });
  }
  if (allowsMove(bookingStatus, 'cancelled', 'payment')) {
    await moveBookingBySystem(
      tx,
      { id: deposit.booking_id, business_id: deposit.business_id, status: bookingStatus },
      'cancelled',
      'booking.cancelled_unpaid',
      meta,
    );
    // It never became a booking: its month's unit is given back, with the one move that ends it.
    await giveBookingUnitBack(tx, deposit.business_id, deposit.booking_id);
  }
}

/** The processor reports a payment link expired unpaid: as the deadline passing. */
export async function expireDeposit(tx: Tx, found: StoredDeposit, meta: Record<string, unknown>) {
  const locked = await lockBookingAndDeposit(tx, found);
  if (locked?.deposit.status !== 'requires_payment') return;
  await expireLocked(tx, locked.deposit, locked.booking.status, meta);
}

/** Deposits past their deadline, claimed by the expiry job; see `expireLocked`. */
export async function expireClaimed(
  tx: Tx,
  claimed: (StoredDeposit & { booking_status: BookingStatus })[],
): Promise<void> {
  for (const deposit of claimed) {
    await expireLocked(tx, deposit, deposit.booking_status, { reason: 'unpaid by its deadline' });
  }
}

/**
 * The guest saved their card for a hold placed later: the guest has done their part, so the
 * deadline ends and the booking waits for the hold.
 */
export async function saveCard(
  tx: Tx,
  found: StoredDeposit,
  card: { customerId: string | null; paymentMethodId: string },
  meta: Record<string, unknown>,
): Promise<void> {
  const locked = await lockBookingAndDeposit(tx, found);
  if (locked?.deposit.status !== 'requires_payment') return;
  const { deposit } = locked;
  await updateDeposit(tx, deposit.business_id, deposit.id, {
    processor_customer_id: card.customerId ?? deposit.processor_customer_id,
    processor_payment_method_id: card.paymentMethodId,
    expires_at: null,
  });
  await recordAudit(tx, systemActor(deposit.business_id), {
    action: 'deposit.card_saved',
    entityType: 'booking',
    entityId: deposit.booking_id,
    after: { hold_due_at: deposit.hold_due_at?.toISOString() ?? null },
    meta,
  });
}

/** Money given back for a cancelled booking: a released hold or a refunded charge. */
export async function recordReversal(
  tx: Tx,
  found: StoredDeposit,
  outcome: { to: 'released' | 'refunded' } | { refused: string },
): Promise<void> {
  const locked = await lockBookingAndDeposit(tx, found);
  if (!locked?.deposit.reversal_due_at) return;
  const { deposit } = locked;
  const actor = systemActor(deposit.business_id);
  if ('refused' in outcome) {
    await updateDeposit(tx, deposit.business_id, deposit.id, { reversal_due_at: null });
    await recordAudit(tx, actor, {
      action: 'deposit.reversal_refused',
      entityType: 'booking',
      entityId: deposit.booking_id,
      meta: { reason: outcome.refused },
    });
    return;
  }
  if (deposit.status === outcome.to) {
    // The processor's event about the reversal was recorded first: nothing is left to give back.
    await updateDeposit(tx, deposit.business_id, deposit.id, { reversal_due_at: null });
    return;
  }
  if (!canMove(deposit.status, outcome.to)) return;
  await recordDepositMove(tx, deposit, outcome.to, { reversal_due_at: null }, actor, {
    reason: 'paid after the booking was cancelled',
  });
}

/** No-show and release answer 409 with `{detail}` when their preconditions fail. */
const preconditionFailed = (message: string) => new AppError('conflict', message, { detail: true });

/**
 * A no-show needs a confirmed or checked-in booking whose hold is placed; a hold the processor
 * already captured (a crash after the capture, then its event) only needs the booking marked.
 */
function assertNoShowAllowed(
  booking: { status: BookingStatus; starts_at: Date | string },
  deposit: StoredDeposit | undefined,
  now: number,
) {
  if (!allowsMove(booking.status, 'no_show', 'staff')) {
    throw preconditionFailed(`a ${booking.status} booking cannot be marked a no-show`);
  }
  assertMoveReady(booking.status, 'no_show', booking, now);
  if (!deposit) throw preconditionFailed('the booking has no deposit hold to capture');
  if (deposit.status !== 'held' && deposit.status !== 'captured') {
    throw preconditionFailed(
      `the booking's deposit is ${deposit.status}; only a held deposit can be captured`,
    );
  }
}

function assertHeld(deposit: StoredDeposit | undefined) {
  if (!deposit) throw preconditionFailed('the booking has no deposit hold to release');
  if (deposit.status !== 'held') {
    throw preconditionFailed(
      `the booking's deposit is ${deposit.status}; only a held deposit can be released`,
    );
  }
}

async function bookingAndDeposit(executor: Executor, businessId: string, bookingId: string) {
  const booking = await findBooking(executor, businessId, bookingId);
  return { booking, deposit: await depositOfBooking(executor, businessId, bookingId) };
}

async function callProcessor(what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ProcessorRefusal) {
      throw preconditionFailed(`the payment processor refused to ${what}: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The processor's half of a no-show, before its transaction: captures the hold. Its idempotency
 * key makes a retry after a crash (captured, not yet recorded) answer the first capture.
 */
export async function captureNoShowHold(
  deps: DepositDeps,
  businessId: string,
  bookingId: string,
  now: number,
) {
  const { booking, deposit } = await bookingAndDeposit(deps.db, businessId, bookingId);
  assertNoShowAllowed(
    { status: booking.status as BookingStatus, starts_at: booking.starts_at },
    deposit,
    now,
  );
  if (deposit?.status !== 'held' || !deposit.processor_payment_id) return;
  const paymentId = deposit.processor_payment_id;
  await callProcessor('capture the hold', () =>
    processorNamed(deps.payments, deposit.processor).capturePaymentIntent(
      paymentId,
      idempotencyKey(bookingId, 'capture'),
    ),
  );
}

/** The database's half of a no-show, after the capture: booking `no_show`, deposit `captured`. */
export async function recordNoShow(tx: Tx, actor: AuditActor, bookingId: string, now: number) {
  const booking = await lockBooking(tx, actor.businessId, bookingId);
  if (!booking) throw notFound('booking');
  const found = await depositOfBooking(tx, actor.businessId, bookingId);
  const deposit = found && (await lockDeposit(tx, found.business_id, found.id));
  assertNoShowAllowed(booking, deposit, now);
  if (deposit?.status === 'held') {
    await recordDepositMove(tx, deposit, 'captured', {}, actor, { reason: 'no-show' });
  }
  await updateBooking(tx, actor.businessId, bookingId, { status: 'no_show' });
  await emitBookingMove(tx, actor.businessId, bookingId, 'no_show');
  await recordAudit(tx, actor, {
    action: 'booking.hold_captured',
    entityType: 'booking',
    entityId: bookingId,
    before: { status: booking.status, deposit_status: deposit?.status },
    after: { status: 'no_show', deposit_status: 'captured' },
    meta: { amount_cents: deposit?.amount_cents },
  });
  return {
    detail: `no-show recorded; the hold of ${euros(deposit?.amount_cents ?? 0)} was captured`,
    booking: await findBooking(tx, actor.businessId, bookingId),
  };
}

/** The processor's half of releasing a hold, before its transaction: the hold is cancelled. */
export async function cancelHeldHold(deps: DepositDeps, businessId: string, bookingId: string) {
  const { deposit } = await bookingAndDeposit(deps.db, businessId, bookingId);
  assertHeld(deposit);
  const paymentId = deposit?.processor_payment_id;
  if (!deposit || !paymentId) return;
  await callProcessor('release the hold', () =>
    processorNamed(deps.payments, deposit.processor).cancelPaymentIntent(
      paymentId,
      idempotencyKey(bookingId, 'release'),
    ),
  );
}

/**
 * The database's half: deposit `released`, the booking's status unchanged. The processor's
 * `payment_intent.canceled` may have recorded the release first; then only the staff's action is.
 */
export async function recordRelease(tx: Tx, actor: AuditActor, bookingId: string) {
  const booking = await lockBooking(tx, actor.businessId, bookingId);
  if (!booking) throw notFound('booking');
  const found = await depositOfBooking(tx, actor.businessId, bookingId);
  const deposit = found && (await lockDeposit(tx, found.business_id, found.id));
  if (deposit?.status !== 'released') assertHeld(deposit);
  if (deposit?.status === 'held') {
    await recordDepositMove(tx, deposit, 'released', {}, actor, { reason: 'released by staff' });
  }
  await recordAudit(tx, actor, {
    action: 'booking.hold_released',
    entityType: 'booking',
    entityId: bookingId,
    before: { deposit_status: 'held' },
    after: { deposit_status: 'released' },
    meta: { amount_cents: deposit?.amount_cents },
  });
  return {
    detail: 'the hold was released; nothing was charged',
    booking: await findBooking(tx, actor.businessId, bookingId),
  };
}

/**
 * The deposit an event is about, or undefined when it is none of ours. Found through the booking
 * of its metadata, a deposit already tied to another of the processor's objects is not it.
 */
export async function depositOfEvent(
  executor: Executor,
  reference: DepositReference,
): Promise<StoredDeposit | undefined> {
  const deposit = await findDepositByReference(executor, reference);
  if (!deposit) return undefined;
  const clash = (stored: string | null, given: string | undefined) =>
    stored !== null && given !== undefined && stored !== given;
  if (
    clash(deposit.processor_payment_id, reference.paymentId) ||
    clash(deposit.processor_setup_id, reference.setupId) ||
    clash(deposit.processor_checkout_id, reference.checkoutId)
  ) {
    return undefined;
  }
  return deposit;
}
