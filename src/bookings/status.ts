import { AppError } from '../platform/errors.ts';
import type { BookingStatus } from '../schema.ts';

/**
 * Who moves a booking: `staff` with PATCH and the no-show action, the `guest` cancelling online,
 * the `payment` events (money taken confirms, a deadline passed unpaid cancels).
 */
export type StatusMover = 'staff' | 'guest' | 'payment';

interface Move {
  by: readonly StatusMover[];
  /** Allowed only from the booking's start on. */
  started?: true;
}

/**
 * The booking status machine, the one table of the moves a booking may make and who may make
 * them. A checked-in guest is the staff's to cancel. A no-show is a guest who did not come, which
 * staff can tell only once the booking has started: marked (and its hold captured) before, a guest
 * on the way would pay for a visit still ahead.
 */
const MOVES: Record<BookingStatus, Partial<Record<BookingStatus, Move>>> = {
  pending: { confirmed: { by: ['staff', 'payment'] }, cancelled: { by: ['staff', 'guest', 'payment'] } },
  confirmed: {
    checked_in: { by: ['staff'] },
    cancelled: { by: ['staff', 'guest'] },
    no_show: { by: ['staff'], started: true },
  },
  checked_in: { completed: { by: ['staff'] }, no_show: { by: ['staff'], started: true } },
  completed: {},
  cancelled: {},
  no_show: {},
};

/** Whether the machine lets `by` move a booking from `from` to `to` (its precondition aside). */
export const allowsMove = (from: BookingStatus, to: BookingStatus, by: StatusMover) =>
  MOVES[from][to]?.by.includes(by) ?? false;

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
  if (MOVES[from][to]?.started && now < new Date(booking.starts_at).getTime()) {
    throw new AppError('conflict', 'the booking has not started yet', { detail: true });
  }
}
