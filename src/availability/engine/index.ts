export { usableCombinations } from './combinations.ts';
export {
  bookingMinutes,
  bookingMinutesAt,
  checkStart,
  daySlots,
  heldSpan,
  hoursMinutes,
  performs,
  periodMinutes,
  takesParty,
} from './slots.ts';
export {
  addDays,
  dayOfWeek,
  formatMinutes,
  instantToWall,
  isoWithOffset,
  minutesOf,
  todayIn,
  type WallTime,
  wallTimeToInstant,
} from './time.ts';
export type * from './types.ts';
