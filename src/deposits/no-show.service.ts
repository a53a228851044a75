import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import { lockBooking, updateBooking } from '../bookings/bookings.queries.ts';
import { findBooking } from '../bookings/bookings.service.ts';
import { assertMoveReady } from '../bookings/status.rules.ts';
import type { BookingStatus } from '../engine/status.ts';
import { allowsMove } from '../engine/status.ts';
import { ProcessorRefusal } from '../payments/processor.adapter.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { AppError, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import { emitBookingMove, recordDepositMove } from './deposit-moves.service.ts';
import { depositOfBooking, lockDeposit, type StoredDeposit } from './deposits.queries.ts';
import { type DepositDeps, euros, idempotencyKey, processorNamed } from './deposits.service.ts';

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

/** A no-show: the hold captured at the processor, then the booking and its deposit recorded. */
export async function markNoShow<R>(
  deps: DepositDeps,
  actor: AuditActor,
  bookingId: string,
  now: number,
  commit: Commit<R>,
): Promise<R> {
  await captureNoShowHold(deps, actor.businessId, bookingId, now);
  return commit((tx) => recordNoShow(tx, actor, bookingId, now));
}

/** A hold released: cancelled at the processor, then the deposit recorded. */
export async function releaseHold<R>(
  deps: DepositDeps,
  actor: AuditActor,
  bookingId: string,
  commit: Commit<R>,
): Promise<R> {
  await cancelHeldHold(deps, actor.businessId, bookingId);
  return commit((tx) => recordRelease(tx, actor, bookingId));
}
