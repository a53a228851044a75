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
/** Statuses that hold their resource (the exclusion constraint covers exactly these). */
export const ACTIVE_STATUSES: readonly BookingStatus[] = ['pending', 'confirmed', 'checked_in'];

export const isTerminal = (status: BookingStatus) => ALLOWED_MOVES[status].length === 0;

/** Why the status machine refuses the move from `from` to `to`, or null when it allows it. */
export const transitionRefusal = (from: BookingStatus, to: BookingStatus): string | null =>
  ALLOWED_MOVES[from].includes(to) ? null : `a booking cannot move from ${from} to ${to}`;

export function assertTransition(from: BookingStatus, to: BookingStatus): void {
  const refusal = transitionRefusal(from, to);
  if (refusal) throw new AppError('conflict', refusal);
}
