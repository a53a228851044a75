import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import type { NotificationLanguage } from '../settings/settings.queries.ts';
import type { MessageType } from './outbox.queries.ts';

export interface ClaimedMessage {
  id: string;
  type: MessageType;
  to_address: string;
  payload: unknown;
  attempts: number;
  business_name: string;
  slug: string;
  timezone: string;
  notification_language: NotificationLanguage;
  /** A sandbox business's message to someone outside it: logged, never sent. */
  withheld: boolean;
}

/**
 * Unsent, unabandoned messages of one channel due for a try, claimed as the email sender claims
 * its own: their next try moves to `leaseUntil` and their attempts count up in the claiming
 * transaction, so no other process sends them meanwhile, and a process that dies while sending
 * leaves them to be tried again once the lease ends. Answered with what renders them: the
 * business's name, page, zone and language. No developer or staff member has a phone on record,
 * so a sandbox business's SMS goes only to the venue's own phone (`phone` of its profile, compared
 * by digits); to any other number it is withheld.
 */
export async function claimDueMessages(
  tx: Tx,
  channel: 'email' | 'sms',
  now: Date,
  leaseUntil: Date,
  maxAttempts: number,
  limit: number,
): Promise<ClaimedMessage[]> {
  const { rows } = await sql<ClaimedMessage>`
    UPDATE message_outbox m
    SET next_attempt_at = ${leaseUntil}, attempts = m.attempts + 1
    FROM businesses b
    WHERE b.id = m.business_id
      AND m.id IN (
        SELECT id FROM message_outbox
        WHERE channel = ${channel}
          AND sent_at IS NULL AND withheld_at IS NULL AND failed_at IS NULL
          AND next_attempt_at <= ${now}
          AND attempts < ${maxAttempts}
        ORDER BY next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING m.id, m.type, m.to_address, m.payload, m.attempts, b.name AS business_name, b.slug,
      b.timezone, b.notification_language,
      b.is_dev AND regexp_replace(m.to_address, '\\D', '', 'g')
        IS DISTINCT FROM regexp_replace(coalesce(b.phone, ''), '\\D', '', 'g') AS withheld`.execute(tx);
  return rows;
}

export const markMessageSent = (executor: Executor, id: string, now: Date) =>
  executor
    .updateTable('message_outbox')
    .set({ sent_at: now, last_error: null })
    .where('id', '=', id)
    .execute();

/** A failed try: tried again at `retryAt`, or given up (`failed_at`) when that is null. */
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

export const markMessageWithheld = (executor: Executor, id: string, now: Date) =>
  executor.updateTable('message_outbox').set({ withheld_at: now }).where('id', '=', id).execute();
