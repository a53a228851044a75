import type { Arrival, PacingCaps, ServicePeriod } from './types.ts';

/**
 * Pacing: a service period caps the guests (the sum of party sizes) and the bookings of the
 * business that start at one of its grid times, so the kitchen keeps up. The database enforces the
 * same arithmetic race-free when a booking is placed (db/functions/slotwise_check_pacing.sql); the
 * engine answers it for the day's grid and a point check.
 */

/** What already starts at one instant: the guests and bookings pacing counts. */
export interface SlotLoad {
  covers: number;
  bookings: number;
}

/** Why pacing refuses a party at a start: the cap it would pass, and what the start already holds. */
export interface PacingRefusal {
  cap: 'covers' | 'bookings';
  max: number;
  load: SlotLoad;
}

const NOTHING: SlotLoad = { covers: 0, bookings: 0 };

/** A period's caps; null when it caps nothing. */
export function pacingOf(
  period: Pick<ServicePeriod, 'maxCoversPerSlot' | 'maxBookingsPerSlot'>,
): PacingCaps | null {
  const maxCovers = period.maxCoversPerSlot ?? null;
  const maxBookings = period.maxBookingsPerSlot ?? null;
  return maxCovers === null && maxBookings === null ? null : { maxCovers, maxBookings };
}

/** The guests and bookings starting at each instant, for a whole day's grid at once. */
export function loadsByStart(arrivals: readonly Arrival[] | undefined): Map<number, SlotLoad> {
  const loads = new Map<number, SlotLoad>();
  for (const arrival of arrivals ?? []) {
    const load = loads.get(arrival.start);
    if (load) {
      load.covers += arrival.partySize;
      load.bookings += 1;
    } else {
      loads.set(arrival.start, { covers: arrival.partySize, bookings: 1 });
    }
  }
  return loads;
}

/**
 * Whether pacing refuses a party of `partySize` at a start already holding `load`: the cap it
 * would pass (covers first), or null when the party fits or nothing caps the start.
 */
export function pacingRefusal(
  caps: PacingCaps | null,
  load: SlotLoad | undefined,
  partySize: number,
): PacingRefusal | null {
  if (caps === null) return null;
  const held = load ?? NOTHING;
  if (caps.maxCovers !== null && held.covers + partySize > caps.maxCovers) {
    return { cap: 'covers', max: caps.maxCovers, load: held };
  }
  if (caps.maxBookings !== null && held.bookings + 1 > caps.maxBookings) {
    return { cap: 'bookings', max: caps.maxBookings, load: held };
  }
  return null;
}

/**
 * The refusal as a guest or a host reads it; `at` names the start (`19:00 on 2026-12-04`). It
 * names the cap, never how many guests already start then: a guest is not told the venue's trade.
 */
export function pacingMessage(refusal: PacingRefusal, at: string, partySize: number): string {
  const { cap, max } = refusal;
  const held =
    cap === 'covers'
      ? `at most ${max} ${max === 1 ? 'guest' : 'guests'} may start then, and too few places are left for a party of ${partySize}`
      : `at most ${max} ${max === 1 ? 'booking' : 'bookings'} may start then, and all are taken`;
  return `The kitchen's pacing for ${at} is full: ${held}.`;
}
