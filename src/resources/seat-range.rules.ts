import { invalidField } from '../platform/errors.ts';

/** The parties a table or a combination seats, smallest to largest. */
export interface SeatRange {
  capacity_min: number;
  capacity_max: number;
}

/**
 * A seat range is a range: its smallest party is not above its largest. The field blamed is one
 * the change sent: capacity_max when it sent that alone, else capacity_min.
 */
export function checkSeatRange(range: SeatRange, changed: Partial<SeatRange>): void {
  const { capacity_min: min, capacity_max: max } = range;
  if (min <= max) return;
  throw changed.capacity_min === undefined
    ? invalidField('capacity_max', `must not be below capacity_min (${min})`)
    : invalidField('capacity_min', `must not exceed capacity_max (${max})`);
}
