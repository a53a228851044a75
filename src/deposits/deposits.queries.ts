import type { Selectable, Updateable } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import type { DepositsTable } from '../schema.ts';
import type { BookingMode, DepositType } from '../settings/settings.queries.ts';

export type StoredDeposit = Selectable<DepositsTable>;

/** What a booking's deposit needs to know of its business, read before the booking's transaction. */
export const depositTerms = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select([
      'name',
      'slug',
      'is_dev',
      'timezone',
      'booking_mode',
      'deposit_type',
      'default_deposit_amount_cents',
      'payment_hold_minutes',
    ])
    .where('id', '=', businessId)
    .$narrowType<{ booking_mode: BookingMode; deposit_type: DepositType }>()
    .executeTakeFirst();

/** The deposit of a booking, or undefined when it has none. */
export const depositOfBooking = (executor: Executor, businessId: string, bookingId: string) =>
  executor
    .selectFrom('deposits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('booking_id', '=', bookingId)
    .executeTakeFirst();

/** The deposit, locked for the rest of the transaction. */
export const lockDeposit = (tx: Tx, businessId: string, depositId: string) =>
  tx
    .selectFrom('deposits')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', depositId)
    .forUpdate()
    .executeTakeFirst();

export const updateDeposit = (
  tx: Tx,
  businessId: string,
  depositId: string,
  changes: Updateable<DepositsTable>,
) =>
  tx
    .updateTable('deposits')
    .set({ ...changes, updated_at: new Date() })
    .where('business_id', '=', businessId)
    .where('id', '=', depositId)
    .execute();

/** How an event names the deposit it is about: any of the processor's ids, or the booking it was made for. */
export interface DepositReference {
  paymentId?: string;
  setupId?: string;
  checkoutId?: string;
  booking?: { id: string; businessId: string };
}

/**
 * The deposit an event refers to, by the processor's id first and the booking of its metadata last.
 * The processor's ids are looked up across businesses (each has an index of its own): an event is
 * trusted for its signature, not for the business its metadata names.
 */
export async function findDepositByReference(
  executor: Executor,
  reference: DepositReference,
): Promise<StoredDeposit | undefined> {
  const byColumn = [
    ['processor_payment_id', reference.paymentId],
    ['processor_setup_id', reference.setupId],
    ['processor_checkout_id', reference.checkoutId],
  ] as const;
  for (const [column, value] of byColumn) {
    if (!value) continue;
    const found = await executor
      .selectFrom('deposits')
      .selectAll()
      .where(column, '=', value)
      .executeTakeFirst();
    if (found) return found;
  }
  if (!reference.booking) return undefined;
  return depositOfBooking(executor, reference.booking.businessId, reference.booking.id);
}

/**
 * Deposits past their deadline, claimed with their booking: rows another process holds are
 * skipped, so several processes share the work without waiting for each other.
 */
export const claimExpiredDeposits = (tx: Tx, now: Date, limit: number) =>
  tx
    .selectFrom('deposits as d')
    .innerJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'd.business_id').onRef('b.id', '=', 'd.booking_id'),
    )
    .selectAll('d')
    .select(['b.status as booking_status'])
    .where('d.expires_at', '<=', now)
    .orderBy('d.expires_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();

/** Holds due to be placed on a saved card, for bookings still waiting or confirmed. */
export const dueHolds = (executor: Executor, now: Date, limit: number) =>
  executor
    .selectFrom('deposits as d')
    .innerJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'd.business_id').onRef('b.id', '=', 'd.booking_id'),
    )
    .selectAll('d')
    .where('d.status', '=', 'requires_payment')
    .where('d.hold_due_at', '<=', now)
    .where('d.processor_payment_id', 'is', null)
    .where('d.processor_payment_method_id', 'is not', null)
    .where('b.status', 'in', ['pending', 'confirmed'])
    .orderBy('d.hold_due_at')
    .limit(limit)
    .execute();

/** Money that arrived for cancelled bookings, to be given back. */
export const dueReversals = (executor: Executor, limit: number) =>
  executor
    .selectFrom('deposits')
    .selectAll()
    .where('reversal_due_at', 'is not', null)
    .orderBy('reversal_due_at')
    .limit(limit)
    .execute();
