export { checkStart, daySlots, heldSpan } from './slots.ts';
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
