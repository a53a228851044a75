export { classFullMessage } from './classes.ts';
export { usableCombinations } from './combinations.ts';
export {
  type ExplainedTime,
  explainDay,
  UNOFFERED_REASONS,
  type UnofferedReason,
} from './explain.ts';
export { loadsByStart, type PacingRefusal, pacingMessage, pacingRefusal, type SlotLoad } from './pacing.ts';
export { queueWaits } from './queue.ts';
export { disjointSets, setsToTry } from './requirements.ts';
export {
  type FixedHold,
  MAX_RESEATS,
  planReseating,
  type Reseat,
  type ReseatPlan,
  type SeatedBooking,
} from './reseating.ts';
export {
  bookingMinutes,
  bookingMinutesAt,
  checkStart,
  daySlots,
  freeOptions,
  heldSpan,
  hoursMinutes,
  pacingAt,
  performs,
  periodMinutes,
  periodsOn,
  takesParty,
} from './slots.ts';
export {
  addDays,
  dayOfWeek,
  formatMinutes,
  instantToWall,
  isoWithOffset,
  MINUTE_MS,
  minutesOf,
  todayIn,
  type WallTime,
  wallTimeToInstant,
} from './time.ts';
export type * from './types.ts';
