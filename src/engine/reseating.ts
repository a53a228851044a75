import { bookableAt, performs, takesParty } from './slots.ts';
import { instantToWall } from './time.ts';
import type { DayRules, EngineResource } from './types.ts';

/** The most bookings one re-seating moves. */
export const MAX_RESEATS = 3;

/**
 * A booking re-seating may move to another table at its time: it holds one resource during the day.
 * Bookings that may not move (seated, started, locked, bound) are the caller's fixed holds.
 */
export interface SeatedBooking {
  id: string;
  resourceId: string;
  /** Its held range, buffers included. */
  start: number;
  end: number;
  /** Its start, which picks the service period (and the resources) it may sit in. */
  startsAt: number;
  partySize: number;
}

/** A block or a booking that re-seating cannot move: its resource stays taken for its range. */
export interface FixedHold {
  resourceId: string;
  start: number;
  end: number;
}

export interface Reseat {
  bookingId: string;
  from: string;
  to: string;
}

export interface ReseatPlan {
  /** Where the new booking sits once the moves are made. */
  resourceId: string;
  /** At most MAX_RESEATS, in the order to make them; each booking moves once. */
  moves: Reseat[];
}

interface Item {
  /** Null for the new booking. */
  booking: SeatedBooking | null;
  start: number;
  end: number;
  fits: (resource: EngineResource) => boolean;
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

/**
 * Room for a new booking no free resource takes, made by moving not-yet-started, unlocked bookings
 * of the day to other fitting resources at their same times: a bounded search (at most
 * MAX_RESEATS moves, each booking once) over `targets`, the resources the new booking may take
 * (best fit first). A moved booking goes to an active resource that takes its party and that its
 * service period allows at its start. Null when no plan of so few moves exists.
 */
export function planReseating(
  rules: DayRules,
  held: { start: number; end: number },
  targets: readonly string[],
  seated: readonly SeatedBooking[],
  fixed: readonly FixedHold[],
): ReseatPlan | null {
  const resources = rules.resources.filter((resource) => resource.isActive);
  /** Where each booking sits as the search has it: a moved one on its new resource once placed. */
  const seatedAt = new Map(seated.map((booking) => [booking.id, booking.resourceId]));
  /** Bookings the search moves; until placed they still show on their own resource, leaving it. */
  const moved = new Set<string>();
  /** The new booking once the search has put it somewhere: it holds that resource too. */
  let placed: FixedHold | null = null;

  /** The resources a booking moved at its start may sit at: those its service period allows. */
  const periodAllows = (booking: SeatedBooking) => {
    const wall = instantToWall(booking.startsAt, rules.timezone);
    // Stryker disable next-line ArrowFunction: undefined refuses a resource as false does
    if (wall.date !== rules.date) return () => false;
    const allowed = bookableAt(rules, wall.time)?.resourceIds ?? null;
    return (resource: EngineResource) => performs(allowed, resource.id);
  };

  /**
   * What holds `resource` during the item's range; null when something that cannot move does. A
   * booking displaced and not yet placed is leaving: it holds nothing, and its own resource stays
   * refused to it by whoever displaced it there, who overlaps it.
   */
  const holdersOf = (resource: string, item: Item): SeatedBooking[] | null => {
    if (fixed.some((hold) => hold.resourceId === resource && overlaps(hold, item))) return null;
    if (placed && placed.resourceId === resource && overlaps(placed, item)) return null;
    const holders: SeatedBooking[] = [];
    for (const booking of seated) {
      if (seatedAt.get(booking.id) !== resource || !overlaps(booking, item)) continue;
      if (moved.has(booking.id)) {
        // Leaving its own resource, it holds nothing; placed on another, it stays there.
        if (resource === booking.resourceId) continue;
        return null;
      }
      holders.push(booking);
    }
    return holders;
  };

  /**
   * The moves in an order the exclusion constraint takes one by one: a booking moves onto a
   * resource only once every moved booking it would overlap there has left. Null for a cycle
   * (two bookings trading places), which no order of single moves makes.
   */
  const inOrder = (): Reseat[] | null => {
    const waiting = seated.filter((booking) => moved.has(booking.id));
    const ordered: Reseat[] = [];
    while (waiting.length > 0) {
      const ready = waiting.findIndex((booking) =>
        waiting.every((other) => other.resourceId !== seatedAt.get(booking.id) || !overlaps(other, booking)),
      );
      if (ready < 0) return null;
      const [booking] = waiting.splice(ready, 1);
      ordered.push({ bookingId: booking!.id, from: booking!.resourceId, to: seatedAt.get(booking!.id)! });
    }
    return ordered;
  };

  /** Places each pending item, moving what holds its resource; the moves once all are placed, else null. */
  const search = (pending: Item[], movesLeft: number): Reseat[] | null => {
    const [item, ...rest] = pending;
    if (!item) return inOrder();
    const options = resources
      // A moved booking's own resource is held by whoever displaced it (holdersOf): never an option.
      .filter((resource) => item.fits(resource))
      .map((resource) => ({ resource, holders: holdersOf(resource.id, item) }))
      .filter(
        (option): option is { resource: EngineResource; holders: SeatedBooking[] } =>
          option.holders !== null && option.holders.length <= movesLeft,
      )
      // A free resource first; among as many moves, the order of `resources`.
      .sort((a, b) => a.holders.length - b.holders.length);
    for (const { resource, holders } of options) {
      if (item.booking) seatedAt.set(item.booking.id, resource.id);
      else placed = { resourceId: resource.id, start: item.start, end: item.end };
      for (const holder of holders) moved.add(holder.id);
      const next = holders.map((holder): Item => {
        const allows = periodAllows(holder);
        return {
          booking: holder,
          start: holder.start,
          end: holder.end,
          fits: (candidate) => takesParty(candidate, holder.partySize) && allows(candidate),
        };
      });
      const moves = search([...rest, ...next], movesLeft - holders.length);
      if (moves) return moves;
      for (const holder of holders) moved.delete(holder.id);
      if (item.booking) seatedAt.set(item.booking.id, item.booking.resourceId);
      else placed = null;
    }
    return null;
  };

  for (const target of targets) {
    // A target that is no active resource fits nothing: its search finds no option.
    const newBooking: Item = { booking: null, ...held, fits: (resource) => resource.id === target };
    const moves = search([newBooking], MAX_RESEATS);
    if (moves) return { resourceId: target, moves };
  }
  return null;
}
