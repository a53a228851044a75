import type { AvailabilityService } from '../availability/availability.service.ts';
import type { StartAnswer } from '../availability/day-questions.ts';
import { assertFeature } from '../billing/subscription.service.ts';
import { createBooking, type NewBooking, type PreparedBookingDeposit } from '../bookings/bookings.service.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import { type DepositDeps, prepareDeposit } from '../deposits/deposits.service.ts';
import type { Principal } from '../platform/auth.ts';
import type { Executor } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';

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

export type NewDynamicBooking = Omit<NewBooking, 'source' | 'mode' | 'serviceId' | 'resourceId'> & {
  durationMinutes: number;
};

/**
 * The deposit of a dynamic booking, before its transaction; the plan is checked first, so a
 * business without dynamic mode hears that (402) before anything of deposits.
 */
export function prepareDynamicDeposit(
  deps: DepositDeps,
  caller: Caller,
  input: NewDynamicBooking,
  now: number,
): Promise<PreparedBookingDeposit | null> {
  assertFeature(caller, 'dynamicMode', now);
  return prepareDeposit(deps, caller, { ...input, mode: 'dynamic' }, now);
}

/**
 * Books `input` on the best-fitting free resource in the caller's transaction, as an online
 * booking. When none is free the 409 carries `detail`, as the contract of this surface has it.
 */
export async function createDynamicBooking(
  executor: Executor,
  availability: AvailabilityService,
  caller: Caller,
  input: NewDynamicBooking,
  now: number,
): Promise<BookingView> {
  assertFeature(caller, 'dynamicMode', now);
  try {
    return await createBooking(
      executor,
      availability,
      caller,
      { ...input, source: 'online', mode: 'dynamic' },
      now,
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'slot_unavailable') {
      throw new AppError('slot_unavailable', error.message, { detail: true });
    }
    throw error;
  }
}
