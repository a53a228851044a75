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

export const canMove = (from: DepositStatus, to: DepositStatus) => MOVES[from].includes(to);
