import type { AvailabilityService, StartAnswer } from '../availability/availability.service.ts';
import { assertFeature } from '../billing/subscription.service.ts';
import type { Principal } from '../platform/auth.ts';

/**
 * Dynamic mode (top plan only): any start minute and any length, the booking's resource checked
 * as a point rather than read off a slot grid. The rules are the scheduled ones but the grid, in
 * the same code: availability's point check and `createBooking` in dynamic mode.
 */

type Caller = Principal & { businessId: string };

export interface DynamicStart {
  date: string;
  time: string;
  partySize: number;
  durationMinutes: number;
}

/** Whether `start` may be booked, and which resources are free for it (plan 402, scheduled mode 400). */
export function checkDynamicStart(
  availability: AvailabilityService,
  caller: Caller,
  start: DynamicStart,
  now: number,
): Promise<StartAnswer> {
  assertFeature(caller, 'dynamicMode', now);
  return availability.start({ businessId: caller.businessId, ...start });
}
