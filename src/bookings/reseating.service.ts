import {
  type FixedHold,
  heldSpan,
  planReseating,
  type ReseatPlan,
  type SeatedBooking,
} from '../engine/index.ts';
import { UNSEATED_STATUSES } from '../engine/status.ts';
import type { Executor } from '../platform/db.ts';
import { heldBookingsDuring } from './bookings.queries.ts';
import type { ReseatingQuestion } from './placement.service.ts';

/**
 * Room for a new booking no free table takes, by moving other bookings of the day (planReseating):
 * the day's holds are read as they are now, every rule of a move is the engine's, and the booking
 * statement makes the moves with the booking, judged again by the exclusion constraint. A booking
 * stays where it is when its guests sit there or its time has begun, staff locked it, it holds
 * several tables, or a service binds it to its resources. Null when no plan of at most three moves
 * exists.
 */
export async function roomByReseating(
  executor: Executor,
  businessId: string,
  question: ReseatingQuestion,
  now: number,
): Promise<ReseatPlan | null> {
  if (question.targets.length === 0) return null;
  const { rules } = question;
  // Every booking a move could meet holds time inside the day's span, as the new one does.
  const span = heldSpan(rules) ?? question.held;
  const day = await heldBookingsDuring(executor, businessId, {
    start: Math.min(span.start, question.held.start),
    end: Math.max(span.end, question.held.end),
  });
  const seated: SeatedBooking[] = [];
  const fixed: FixedHold[] = rules.busy.filter((period) => period.kind === 'block');
  for (const booking of day) {
    const movable =
      UNSEATED_STATUSES.includes(booking.status) &&
      booking.starts_ms > now &&
      booking.resource_ids.length === 1 &&
      !booking.table_locked &&
      !booking.bound;
    if (movable) {
      seated.push({
        id: booking.id,
        resourceId: booking.resource_ids[0]!,
        start: booking.start_ms,
        end: booking.end_ms,
        startsAt: booking.starts_ms,
        partySize: booking.capacity,
      });
    } else {
      for (const resourceId of booking.resource_ids) {
        fixed.push({ resourceId, start: booking.start_ms, end: booking.end_ms });
      }
    }
  }
  return planReseating(rules, question.held, question.targets, seated, fixed);
}
