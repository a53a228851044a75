import { type AuditActor, recordAudit } from '../audit/audit.service.ts';
import { lockBooking, updateBooking } from '../bookings/bookings.queries.ts';
import { findBooking } from '../bookings/bookings.service.ts';
import type { BookingStatus } from '../engine/status.ts';
import type { WebhookEventType } from '../engine/webhook-events.ts';
import type { Tx } from '../platform/db.ts';
import type { DepositStatus } from '../schema.ts';
import { bookingStatusEvent, emitEvent } from '../webhooks/events.service.ts';
import { lockDeposit, type StoredDeposit, updateDeposit } from './deposits.queries.ts';

/** Work the service does by itself (jobs, the processor's events) is audited under this name. */
export const systemActor = (businessId: string): AuditActor => ({ actor: 'system', businessId });

/**
 * Moves a deposit its caller holds locked (with its booking) along the status table, and audits
 * the move as `deposit.<status>`. This is the one place a deposit's status changes, where the
 * outbound `deposit.*` webhooks are to be emitted.
 */
export async function recordDepositMove(
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
export async function moveBookingBySystem(
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
export async function emitBookingMove(
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
export async function lockBookingAndDeposit(tx: Tx, deposit: StoredDeposit) {
  const booking = await lockBooking(tx, deposit.business_id, deposit.booking_id);
  const locked = await lockDeposit(tx, deposit.business_id, deposit.id);
  return booking && locked ? { booking, deposit: locked } : undefined;
}
