import type { DepositStatus } from '../schema.ts';

// A booking carries its deposit: the booking statements and views read these, and deposits,
// which sit above bookings, move the deposit through them.

/** Every status a deposit is stored in, in the order the deposit's documentation names them. */
export const DEPOSIT_STATUSES: readonly DepositStatus[] = [
  'requires_payment',
  'failed',
  'held',
  'paid',
  'captured',
  'released',
  'refunded',
];

/** Statuses in which the processor holds or has taken the guest's money. */
export const MONEY_TAKEN: readonly DepositStatus[] = ['paid', 'held', 'captured'];

/**
 * A card authorisation lapses after about 7 days: a hold for a booking further ahead than this
 * saves the card instead and is placed this long before the start.
 */
export const HOLD_LEAD_MS = 6 * 86_400_000;
