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

export function assertTransition(from: BookingStatus, to: BookingStatus): void {
  if (!ALLOWED_MOVES[from].includes(to)) {
    throw new AppError('conflict', `a booking cannot move from ${from} to ${to}`);
  }
}
