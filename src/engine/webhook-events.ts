/**
 * The names of webhook events, free of the server's modules: the dashboard offers the same list.
 */

/** The events an endpoint may subscribe to (or `*`, all of them). */
export const WEBHOOK_EVENTS = [
  'booking.created',
  'booking.confirmed',
  'booking.checked_in',
  'booking.completed',
  'booking.cancelled',
  'booking.no_show',
  'booking.rescheduled',
  'booking.updated',
  'deposit.paid',
  'deposit.collected',
  'deposit.refunded',
  'deposit.failed',
  'waitlist.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** Sent only to the endpoint it is asked for, by `POST /v1/manage/webhooks/{id}/test`. */
export const TEST_EVENT = 'webhook.test';

export const ALL_EVENTS = '*';
