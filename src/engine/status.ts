import * as StatusFacts from './status-facts.generated.ts';

/**
 * What the database says of the booking statuses (db/facts/), as `npm run schema:generate` wrote
 * it into status-facts.generated.ts: the TypeScript side names no status list of its own.
 */
export type BookingStatus = (typeof StatusFacts.BOOKING_STATUSES)[number];
/** Every booking status, in the order of `bookings.status`'s CHECK. */
export const BOOKING_STATUSES: readonly BookingStatus[] = StatusFacts.BOOKING_STATUSES;
/** The statuses that hold their resources and count as arrivals for pacing (slotwise_status_holds). */
export const HOLDING_STATUSES: readonly BookingStatus[] = StatusFacts.HOLDING_STATUSES;
/** The statuses that hold their resources with nobody seated yet: re-seating may move them (slotwise_status_unseated). */
export const UNSEATED_STATUSES: readonly BookingStatus[] = StatusFacts.UNSEATED_STATUSES;
/** The terminal statuses: no move leads out of them (slotwise_status_terminal). */
export const TERMINAL_STATUSES: readonly BookingStatus[] = StatusFacts.TERMINAL_STATUSES;
/**
 * The statuses of a booking the guest came to: a guest profile's visits, last visit and covers
 * count these. Checked in is a visit under way; a booking is no more pending or confirmed once
 * the guest is there.
 */
export const VISITED_STATUSES: readonly BookingStatus[] = ['checked_in', 'completed'];

/** Whether `status` is terminal; any text, as the dashboard reads a status off the wire. */
export const isTerminal = (status: string): boolean =>
  (TERMINAL_STATUSES as readonly string[]).includes(status);

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
 * them, for the API and the dashboard alike. A checked-in guest is the staff's to cancel. A
 * no-show is a guest who did not come, which staff can tell only once the booking has started:
 * marked (and its hold captured) before, a guest on the way would pay for a visit still ahead.
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

const moveOf = (from: string, to: BookingStatus): Move | undefined =>
  Object.hasOwn(MOVES, from) ? MOVES[from as BookingStatus][to] : undefined;

/**
 * Whether the machine lets `by` move a booking from `from` to `to` (its precondition aside);
 * `from` is any text, as the dashboard reads a status off the wire.
 */
export const allowsMove = (from: string, to: BookingStatus, by: StatusMover): boolean =>
  moveOf(from, to)?.by.includes(by) ?? false;

/** Whether the move from `from` to `to` may be made only once the booking has started. */
export const waitsForStart = (from: string, to: BookingStatus): boolean => moveOf(from, to)?.started === true;
