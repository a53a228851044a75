import type { ClassRules, DayRules } from './types.ts';

/** A class already held at a start: the resource it holds and the seats its bookings take. */
export interface HeldClass {
  resourceId: string;
  seatsTaken: number;
}

/** The classes of `rules.class` held on the day, by start; empty for a booking that is no class's. */
export function heldClasses(rules: Pick<DayRules, 'busy' | 'class'>): Map<number, HeldClass> {
  const held = new Map<number, HeldClass>();
  const serviceId = rules.class?.serviceId;
  if (serviceId === undefined) return held;
  for (const period of rules.busy) {
    const seats = period.seatsOf;
    if (seats?.serviceId !== serviceId) continue;
    const known = held.get(seats.start);
    if (known) known.seatsTaken += seats.seats;
    else held.set(seats.start, { resourceId: period.resourceId, seatsTaken: seats.seats });
  }
  return held;
}

/**
 * What a class offers the party at `start`: a class held there takes it on its own resource while
 * its seats left seat the party; otherwise a free resource may start the class, which then has all
 * its seats. A class holds one resource: never a combination.
 */
export function classSeats(
  { seats }: ClassRules,
  partySize: number,
  held: HeldClass | undefined,
  freeResourceIds: readonly string[],
): { seatsLeft: number; freeResourceIds: string[] } {
  const seatsLeft = held ? Math.max(seats - held.seatsTaken, 0) : freeResourceIds.length > 0 ? seats : 0;
  if (partySize > seatsLeft) return { seatsLeft, freeResourceIds: [] };
  return { seatsLeft, freeResourceIds: held ? [held.resourceId] : [...freeResourceIds] };
}

/** Why a class refuses a party at `when` (`18:00 on 2026-12-04`): it is full, or too few seats are left. */
export const classFullMessage = (when: string, seatsLeft: number, partySize: number) =>
  seatsLeft === 0
    ? `The class at ${when} is full.`
    : `The class at ${when} has ${seatsLeft} seat${seatsLeft === 1 ? '' : 's'} left, too few for a party of ${partySize}.`;
