import { recordAudit } from '../audit/audit.service.ts';
import { giveBookingUnitBack } from '../billing/subscription.service.ts';
import { MONEY_TAKEN } from '../bookings/bookings.model.ts';
import type { BookingStatus } from '../engine/status.ts';
import { allowsMove } from '../engine/status.ts';
import type { Executor, Tx } from '../platform/db.ts';
import type { DepositStatus } from '../schema.ts';
import {
  lockBookingAndDeposit,
  moveBookingBySystem,
  recordDepositMove,
  systemActor,
} from './deposit-moves.service.ts';
import { canMove } from './deposit-status.rules.ts';
import {
  type DepositReference,
  findDepositByReference,
  type StoredDeposit,
  updateDeposit,
} from './deposits.queries.ts';

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
