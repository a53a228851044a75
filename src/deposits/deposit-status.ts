import type { DepositStatus } from '../schema.ts';

/**
 * The one table of deposit moves: the processor's events, the jobs and the staff's no-show and
 * release all go through it. Events arrive late, twice or out of order, so a move it does not
 * list is ignored, never forced: a `payment_failed` after `paid` changes nothing. A `failed`
 * deposit may still be paid or held, as a guest may try again with another card.
 */
const MOVES: Record<DepositStatus, readonly DepositStatus[]> = {
  requires_payment: ['paid', 'held', 'captured', 'failed'],
  failed: ['paid', 'held', 'captured'],
  held: ['captured', 'released'],
  paid: ['refunded'],
  // A hold captured for a booking cancelled meanwhile is refunded, as a paid charge is.
  captured: ['refunded'],
  released: [],
  refunded: [],
};

export const DEPOSIT_STATUSES = Object.keys(MOVES) as DepositStatus[];

export const canMove = (from: DepositStatus, to: DepositStatus) => MOVES[from].includes(to);

/** Statuses in which the processor holds or has taken the guest's money. */
export const MONEY_TAKEN: readonly DepositStatus[] = ['paid', 'held', 'captured'];

/**
 * A card authorisation lapses after about 7 days: a hold for a booking further ahead than this
 * saves the card instead and is placed this long before the start.
 */
export const HOLD_LEAD_MS = 6 * 86_400_000;
