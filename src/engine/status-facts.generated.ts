/**
 * The booking statuses' facts as db/facts/ answers them, from a database migrated from migrations/
 * and db/. Do not edit: `npm run schema:generate` writes it again. status.ts is the one file
 * that imports this one.
 */

/** The statuses a booking may have: bookings.status's CHECK, in its order. */
export const BOOKING_STATUSES = [
  'pending',
  'confirmed',
  'checked_in',
  'completed',
  'cancelled',
  'no_show',
] as const;
/** The statuses whose bookings hold their resources (rows in booking_holds, busy periods) and count as arrivals for pacing: those for which db/facts/slotwise_status_holds.sql is true. */
export const HOLDING_STATUSES = ['pending', 'confirmed', 'checked_in'] as const;
/** The statuses whose bookings hold their resources and await their guests, whom re-seating may move to another table: those for which db/facts/slotwise_status_unseated.sql is true. */
export const UNSEATED_STATUSES = ['pending', 'confirmed'] as const;
/** The terminal statuses: no move leads out of them, and their bookings hold nothing: those for which db/facts/slotwise_status_terminal.sql is true. */
export const TERMINAL_STATUSES = ['completed', 'cancelled', 'no_show'] as const;
