/**
 * The pure availability engine's inputs and outputs. No I/O, no clock, no environment: callers
 * pass `now` and everything the day needs. Instants are epoch milliseconds; dates are
 * `YYYY-MM-DD` and times `HH:MM` (or `HH:MM:SS`) wall-clock values in `timezone`.
 */

export interface HoursRow {
  dayOfWeek: number; // 0 = Sunday ... 6 = Saturday
  isOpen: boolean;
  openTime: string | null;
  /** Earlier than or equal to `openTime` means the window runs past midnight into the next day. */
  closeTime: string | null;
  /** Latest start; null means closeTime minus the booking length. */
  lastBookingTime: string | null;
}

export interface EngineResource {
  id: string;
  name: string;
  capacityMin: number;
  capacityMax: number;
  displayOrder: number;
  isActive: boolean;
}

/**
 * Resources joined for one larger party (tables 4 and 5 seat ten): a party it takes may sit at it
 * when every resource of it is free, and none fits alone.
 */
export interface EngineCombination {
  id: string;
  name: string;
  /** Distinct; the first is the one a booking on the combination shows as its resource. */
  resourceIds: readonly string[];
  capacityMin: number;
  capacityMax: number;
}

/** A period a resource is not free: an existing booking's held range (buffers included) or an external block. */
export interface BusyPeriod {
  resourceId: string;
  start: number;
  end: number;
  /** What holds the resource; absent reads as a booking. Only explaining a day tells them apart. */
  kind?: 'booking' | 'block';
  /** A booking that takes seats of a class: the class's service, its start and the seats taken. */
  seatsOf?: { serviceId: string; start: number; seats: number };
}

/**
 * A service with seats (a class): the bookings of it at one start share the one resource the class
 * holds, each taking its party's seats, until the seats are taken.
 */
export interface ClassRules {
  serviceId: string;
  seats: number;
}

export interface BlackoutRange {
  startDate: string;
  endDate: string;
  /** What the venue tells guests of the closure; the engine reads only the dates. */
  reason?: string | null;
}

/** How long a party of `minParty` to `maxParty` guests holds its resource. */
export interface TurnTime {
  minParty: number;
  maxParty: number;
  durationMinutes: number;
}

/**
 * A bookable part of some weekdays (lunch, dinner). A weekday that has periods is bookable only
 * inside them; one without keeps its operating-hours window. Times read as operating hours do.
 */
export interface ServicePeriod {
  id: string;
  name: string;
  daysOfWeek: readonly number[];
  startTime: string;
  /** Earlier than or equal to `startTime` means the period runs past midnight. */
  endTime: string;
  /** Latest start; null means endTime minus the booking length. */
  lastStartTime: string | null;
  /** The period's grid step from `startTime`; null takes the day's `intervalMinutes`. */
  intervalMinutes: number | null;
  /** The period's booking lengths by party size; null takes the day's `turnTimes`. */
  turnTimes: readonly TurnTime[] | null;
  /** The resources bookable in the period; empty means all. */
  resourceIds: readonly string[];
  /** The most guests that may start at one grid time of the period, across the business; null or absent: no cap. */
  maxCoversPerSlot?: number | null;
  /** The most bookings that may start at one grid time of the period, across the business; null or absent: no cap. */
  maxBookingsPerSlot?: number | null;
}

/** A service period's pacing: at most this many guests and bookings start at one grid time (null: no cap). */
export interface PacingCaps {
  maxCovers: number | null;
  maxBookings: number | null;
}

/** A non-terminal booking's start and party, which pacing counts. */
export interface Arrival {
  start: number;
  partySize: number;
}

/**
 * A group of resources a service needs `count` of at once (one of the stylists, one of the chairs):
 * a booking of it holds that many of each group, all for the same span.
 */
export interface Requirement {
  /** What the group is, as the venue names it (stylist, chair). */
  name: string;
  /** Distinct, and in no other group of the service. */
  resourceIds: readonly string[];
  count: number;
}

export interface DayRules {
  /** The business day asked about: the day a window opens on (an overnight window belongs to it). */
  date: string;
  timezone: string;
  now: number;
  /** Up to seven rows; a missing day is closed. */
  hours: HoursRow[];
  blackouts: BlackoutRange[];
  intervalMinutes: number;
  /** The business's service periods, of every weekday; none keeps every day on its hours. */
  periods?: readonly ServicePeriod[];
  /** Real elapsed minutes of the booking, for a party no turn time covers. */
  durationMinutes: number;
  /**
   * The lengths that replace `durationMinutes` for the party sizes they cover: the business's own
   * list, none for a service's booking or a length the caller asked for.
   */
  turnTimes?: readonly TurnTime[];
  /** Held before the start (service `buffer_before_minutes`). */
  bufferBeforeMinutes: number;
  /** Held after the end (business `buffer_minutes` + service `buffer_after_minutes`). */
  bufferAfterMinutes: number;
  minNoticeHours: number;
  bookingWindowDays: number;
  partySize: number;
  resources: EngineResource[];
  /** A service's `resource_ids`; empty or absent means any resource. */
  allowedResourceIds?: readonly string[] | null;
  /** Only this resource is considered (and no combination). */
  resourceId?: string | null;
  /** The business's active combinations; one with a resource not in `resources` is never offered. */
  combinations?: readonly EngineCombination[];
  busy: BusyPeriod[];
  /** The business's non-terminal bookings starting on the day, which the periods' pacing counts; absent: none. */
  arrivals?: readonly Arrival[];
  /** The booking is a seat of this class: a resource's range does not bind the party, its seats do. */
  class?: ClassRules | null;
  /**
   * The groups the booking holds resources of together (a service's `requirements`); none or
   * absent: one resource (or a combination). They replace `allowedResourceIds`.
   */
  requirements?: readonly Requirement[] | null;
}

export interface Slot {
  /** Wall-clock start, `HH:MM`. */
  time: string;
  start: number;
  end: number;
  /**
   * Free resources that fit the party, best fit first (smallest capacityMax, then displayOrder, then
   * id); none when the period's pacing is full for the party at this start.
   */
  freeResourceIds: string[];
  /** Free combinations that take the party, tightest first (smallest capacityMax, then name, then id). */
  freeCombinationIds: string[];
  /** The service period whose grid holds the start; null on a day without periods. */
  period: SlotPeriod | null;
  /**
   * With requirements: each group's free resources that take the party, best fit first (and
   * `freeResourceIds`, `freeCombinationIds` empty). Absent without requirements.
   */
  freeByRequirement?: string[][];
  /** With requirements: how many bookings the free resources take at once (completeSets). */
  requirementSets?: number;
  /**
   * A class's seats left at the start: of the class already held there, else all of them when a
   * resource is free to hold it (0 when none is). Absent for a booking that is no class's.
   */
  seatsLeft?: number;
}

export type SlotPeriod = Pick<ServicePeriod, 'id' | 'name'>;

/** `outside_period`: the day is open, but none of its service periods has a bookable minute inside its hours. */
export type DayClosure = 'blackout' | 'closed' | 'outside_booking_window' | 'outside_period' | null;

export interface DaySlots {
  /** Why the day has no slots at all, when that is the reason. */
  closure: DayClosure;
  /** Every slot of the day's grids (of its hours, or of each period) inside notice and window, free or not. */
  slots: Slot[];
}

export type StartCheckFailure =
  | 'outside_operating_hours' // closed day, blackout, outside the window or the periods, after the last start, DST gap
  | 'off_grid' // not on the slot grid (scheduled mode only)
  | 'outside_booking_window' // inside minimum notice or beyond the booking window
  | 'slot_unavailable'; // no fitting resource or combination is free, or the period's pacing is full for the party

export type StartCheck =
  | {
      ok: true;
      start: number;
      end: number;
      /** The range the resource is held for: start - bufferBefore to end + bufferAfter. */
      heldStart: number;
      heldEnd: number;
      freeResourceIds: string[];
      freeCombinationIds: string[];
      /** The pacing of the period the start lies in; null when none caps it. */
      pacing: PacingCaps | null;
      /** A class's seats left at the start (Slot.seatsLeft); absent for no class. */
      seatsLeft?: number;
      /** With requirements: each group's free resources, and the bookings they take at once (Slot's). */
      freeByRequirement?: string[][];
      requirementSets?: number;
    }
  | { ok: false; reason: StartCheckFailure; message: string };

export interface StartOptions {
  /** Scheduled mode: the start must be on the slot grid. Staff and dynamic bookings take any minute. */
  onGrid: boolean;
  /** Staff bookings ignore minimum notice and the booking window. */
  ignoreNoticeAndWindow: boolean;
  /** Staff bookings may pass the period's pacing (the host decides). */
  passPacing?: boolean;
}
