import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import type { NotificationLanguage, WithheldClass } from '../schema.ts';

export interface NewEmail {
  businessId: string | null;
  to: string;
  subject: string;
  text: string;
}

/** What a guest or the venue is told, rendered when sent (`messageLanguage` says in which language). */
export type MessageType =
  | 'booking_confirmed'
  | 'booking_rescheduled'
  | 'booking_cancelled'
  | 'booking_reminder'
  | 'waitlist_offer'
  | 'venue_new_booking'
  | 'venue_guest_cancellation'
  | 'table_ready';

export interface NewMessage {
  businessId: string;
  type: MessageType;
  channel: 'email' | 'sms';
  to: string;
  bookingId?: string | null;
  waitlistEntryId?: string | null;
  /** What the message tells, as JSON: rendered from it when sent. */
  payload: unknown;
  /** The SEQUENCE of the booking's calendar invite, for a message that carries one. */
  sequence?: number | null;
}

/** A message told by a change, written in the change's transaction. */
export const insertMessage = (executor: Executor, message: NewMessage) =>
  executor
    .insertInto('message_outbox')
    .values({
      business_id: message.businessId,
      type: message.type,
      channel: message.channel,
      to_address: message.to,
      booking_id: message.bookingId ?? null,
      waitlist_entry_id: message.waitlistEntryId ?? null,
      payload: JSON.stringify(message.payload),
      sequence: message.sequence ?? null,
    })
    .execute();

/** A message to a guest written when it is told, sent as written by its channel: a walk-in's table is ready. */
export const insertWrittenMessage = (
  executor: Executor,
  message: NewEmail & { businessId: string; type: MessageType; channel: 'email' | 'sms' },
) =>
  executor
    .insertInto('message_outbox')
    .values({
      business_id: message.businessId,
      type: message.type,
      channel: message.channel,
      to_address: message.to,
      subject: message.subject,
      body_text: message.text,
    })
    .execute();

/** A message written rendered: a payment link, an invitation. Answers its id. */
export const insertEmail = (executor: Executor, email: NewEmail) =>
  executor
    .insertInto('message_outbox')
    .values({
      business_id: email.businessId,
      to_address: email.to,
      subject: email.subject,
      body_text: email.text,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

/**
 * Unsent messages of `channel` due for a try, claimed: their next try moves to `leaseUntil` and
 * their attempts count up in the claiming transaction, so no other process sends them meanwhile,
 * and a process that dies while sending leaves them to be tried again once the lease ends. A
 * message given up on (`failed_at`) is never claimed again. `withheld` tells a sandbox business's
 * message to someone outside it: an email to an address that is neither its developer's nor an
 * active member's (an invitation aside: it goes to the person it invites); any SMS, as a sandbox
 * business sends none, not even to its own phone.
 */
export const claimDueMessages = (
  tx: Tx,
  channel: 'email' | 'sms',
  now: Date,
  leaseUntil: Date,
  maxAttempts: number,
  limit: number,
) =>
  tx
    .updateTable('message_outbox')
    .set({ next_attempt_at: leaseUntil, attempts: sql`attempts + 1` })
    .where(
      'id',
      'in',
      tx
        .selectFrom('message_outbox')
        .select('id')
        .where('sent_at', 'is', null)
        .where('withheld_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('channel', '=', channel)
        // A message never tried is due at once: its time was written by the database's clock,
        // which the server's may trail. A retry is due when the server's clock says.
        .where((eb) => eb.or([eb('attempts', '=', 0), eb('next_attempt_at', '<=', now)]))
        .where('attempts', '<', maxAttempts)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning([
      'id',
      'business_id',
      'type',
      'to_address',
      'subject',
      'body_text',
      'payload',
      'sequence',
      'attempts',
      'sms_to',
      'created_at',
      // The language the guest the message is about prefers (their profile's), if they said.
      sql<NotificationLanguage | null>`(
        SELECT c.preferred_language FROM customers c
        WHERE c.business_id = message_outbox.business_id AND c.id = coalesce(
          (SELECT k.customer_id FROM bookings k
            WHERE k.business_id = message_outbox.business_id AND k.id = message_outbox.booking_id),
          (SELECT w.customer_id FROM waitlist_entries w
            WHERE w.business_id = message_outbox.business_id AND w.id = message_outbox.waitlist_entry_id)))`.as(
        'guest_language',
      ),
      sql<boolean>`EXISTS (
        SELECT 1 FROM businesses b
        WHERE b.id = message_outbox.business_id AND b.is_dev
          AND CASE WHEN message_outbox.channel = 'sms'
            THEN true
            ELSE lower(trim(message_outbox.to_address)) NOT IN (
              SELECT lower(d.email) FROM developers d WHERE d.id = b.developer_id
              UNION ALL
              SELECT lower(u.email) FROM memberships m JOIN users u ON u.id = m.user_id
              WHERE m.business_id = b.id AND m.status = 'active')
              AND NOT EXISTS (SELECT 1 FROM invitation_sends i WHERE i.message_id = message_outbox.id)
          END)`.as('withheld'),
    ])
    .execute();

export type ClaimedMessage = Awaited<ReturnType<typeof claimDueMessages>>[number];

/** What a message tells of its venue, and in which language, read when it is sent. */
export const findMessageVenue = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select([
      'name',
      'slug',
      'timezone',
      'address',
      'phone',
      'public_email',
      'booking_policy',
      'notification_language',
      'time_format',
      'business_type',
    ])
    .where('id', '=', businessId)
    .executeTakeFirst();

export const markMessageSent = (executor: Executor, id: string, now: Date) =>
  executor
    .updateTable('message_outbox')
    .set({ sent_at: now, last_error: null })
    .where('id', '=', id)
    .execute();

/** A failed try: tried again at `retryAt`, or, with `retryAt` null, given up on now. */
export const markMessageFailed = (
  executor: Executor,
  id: string,
  error: string,
  retryAt: Date | null,
  now: Date,
) =>
  executor
    .updateTable('message_outbox')
    .set(retryAt ? { last_error: error, next_attempt_at: retryAt } : { last_error: error, failed_at: now })
    .where('id', '=', id)
    .execute();

export const markMessageWithheld = (executor: Executor, id: string, withheld: WithheldClass, now: Date) =>
  executor
    .updateTable('message_outbox')
    .set({ withheld_at: now, withheld_class: withheld })
    .where('id', '=', id)
    .execute();
