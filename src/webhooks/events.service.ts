import type { BookingStatus } from '../engine/status.ts';
import type { WebhookEventType } from '../engine/webhook-events.ts';
import type { Tx } from '../platform/db.ts';
import { insertEvent } from './webhooks.queries.ts';

/** The event of a booking's move to `status` (no move leads to `pending`). */
export const bookingStatusEvent = (status: Exclude<BookingStatus, 'pending'>): WebhookEventType =>
  `booking.${status}`;

/**
 * Puts an event in the outbox: the event and one delivery per active endpoint of the business
 * subscribed to it, written in the caller's transaction, so the event exists exactly when the
 * change does. `data` is the object as the API answers it, read after the change. `subjectId`
 * (a booking's id for its events and its deposit's) orders deliveries: an endpoint receives the
 * events of one subject in the order they happened. A business with no such endpoint writes nothing.
 */
export async function emitEvent(
  tx: Tx,
  businessId: string,
  type: WebhookEventType,
  data: unknown,
  subjectId: string,
): Promise<void> {
  await insertEvent(tx, { businessId, type, data: JSON.stringify(data), subjectKey: subjectId });
}
