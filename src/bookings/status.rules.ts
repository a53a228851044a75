import { allowsMove, type BookingStatus, waitsForStart } from '../engine/status.ts';
import { AppError } from '../platform/errors.ts';

/** Why the status machine refuses the staff's move from `from` to `to`, or null when it allows it. */
export const transitionRefusal = (from: BookingStatus, to: BookingStatus): string | null =>
  allowsMove(from, to, 'staff') ? null : `a booking cannot move from ${from} to ${to}`;

export function assertTransition(from: BookingStatus, to: BookingStatus): void {
  const refusal = transitionRefusal(from, to);
  if (refusal) throw new AppError('conflict', refusal);
}

/** Refuses an allowed move whose precondition does not hold yet at `now`. */
export function assertMoveReady(
  from: BookingStatus,
  to: BookingStatus,
  booking: { starts_at: Date | string },
  now: number,
): void {
  if (waitsForStart(from, to) && now < new Date(booking.starts_at).getTime()) {
    throw new AppError('conflict', 'the booking has not started yet', { detail: true });
  }
}
