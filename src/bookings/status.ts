import { AppError } from '../platform/errors.ts';
import type { BookingStatus } from '../schema.ts';

/** The booking status machine: the moves staff may make with PATCH. Everything else is a 409. */
const ALLOWED_MOVES: Record<BookingStatus, readonly BookingStatus[]> = {
  pending: ['confirmed', 'cancelled'],
  confirmed: ['checked_in', 'cancelled', 'no_show'],
  checked_in: ['completed', 'no_show'],
  completed: [],
  cancelled: [],
  no_show: [],
};

export const BOOKING_STATUSES = Object.keys(ALLOWED_MOVES) as BookingStatus[];

export const isTerminal = (status: BookingStatus) => ALLOWED_MOVES[status].length === 0;

/** Why the status machine refuses the move from `from` to `to`, or null when it allows it. */
export const transitionRefusal = (from: BookingStatus, to: BookingStatus): string | null =>
  ALLOWED_MOVES[from].includes(to) ? null : `a booking cannot move from ${from} to ${to}`;

export function assertTransition(from: BookingStatus, to: BookingStatus): void {
  const refusal = transitionRefusal(from, to);
  if (refusal) throw new AppError('conflict', refusal);
}

/**
 * A no-show is a guest who did not come, which staff can tell only once the booking has started:
 * marked (and its hold captured) before, a guest on the way would pay for a visit still ahead.
 */
export function assertNoShowStarted(startsAt: Date | string, now: number): void {
  if (now < new Date(startsAt).getTime()) {
    throw new AppError('conflict', 'the booking has not started yet', { detail: true });
  }
}
