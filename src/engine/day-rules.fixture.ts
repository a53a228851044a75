/**
 * The day the engine's tests reason about, so that each test file states only what its rules
 * change: Wednesday 2026-06-10 in UTC, asked on June 1st, open 10:00-13:00 every day, an hourly
 * grid of one-hour bookings for one guest, no buffers or notice, 60 days ahead, nothing held.
 */
import type { BusyPeriod, DayRules, EngineResource, HoursRow, StartOptions } from './types.ts';

export const at = (instant: string) => Date.parse(instant);

/** A start the engine checks at any minute, as a guest's own time would be. */
export const ANY_MINUTE: StartOptions = { onGrid: false, ignoreNoticeAndWindow: false };

export const everyDay = (
  openTime: string,
  closeTime: string,
  lastBookingTime: string | null = null,
): HoursRow[] =>
  [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    isOpen: true,
    openTime,
    closeTime,
    lastBookingTime,
  }));

/** A resource seating `capacityMin` to `capacityMax`, a table by its name unless it says otherwise. */
export const seat = (
  id: string,
  capacityMin: number,
  capacityMax: number,
  { name = `Table ${id}`, displayOrder = 0, isActive = true } = {},
): EngineResource => ({ id, name, capacityMin, capacityMax, displayOrder, isActive });

/** `resourceId` held from one instant to another. */
export const held = (resourceId: string, start: string, end: string): BusyPeriod => ({
  resourceId,
  start: at(start),
  end: at(end),
});

export const dayRules = (overrides: Partial<DayRules> = {}): DayRules => ({
  date: '2026-06-10',
  timezone: 'UTC',
  now: at('2026-06-01T00:00:00Z'),
  hours: everyDay('10:00', '13:00'),
  blackouts: [],
  intervalMinutes: 60,
  durationMinutes: 60,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minNoticeHours: 0,
  bookingWindowDays: 60,
  partySize: 1,
  resources: [],
  busy: [],
  ...overrides,
});
