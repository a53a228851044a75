import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';

export interface NewEmail {
  businessId: string | null;
  to: string;
  subject: string;
  text: string;
}

export const insertEmail = (executor: Executor, email: NewEmail) =>
  executor
    .insertInto('email_outbox')
    .values({
      business_id: email.businessId,
      to_address: email.to,
      subject: email.subject,
      body_text: email.text,
    })
    .execute();

/**
 * Unsent messages due for a try, claimed: their next try moves to `leaseUntil` and their attempts
 * count up in the claiming transaction, so no other process sends them meanwhile, and a process
 * that dies while sending leaves them to be tried again once the lease ends. `withheld` tells a
 * sandbox business's message to an address that is neither its developer's nor a member's.
 */
export const claimDueEmails = (tx: Tx, now: Date, leaseUntil: Date, maxAttempts: number, limit: number) =>
  tx
    .updateTable('email_outbox')
    .set({ next_attempt_at: leaseUntil, attempts: sql`attempts + 1` })
    .where(
      'id',
      'in',
      tx
        .selectFrom('email_outbox')
        .select('id')
        .where('sent_at', 'is', null)
        .where('withheld_at', 'is', null)
        .where('next_attempt_at', '<=', now)
        .where('attempts', '<', maxAttempts)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning([
      'id',
      'to_address',
      'subject',
      'body_text',
      'attempts',
      sql<boolean>`EXISTS (
        SELECT 1 FROM businesses b
        WHERE b.id = email_outbox.business_id AND b.is_dev
          AND lower(trim(email_outbox.to_address)) NOT IN (
            SELECT lower(d.email) FROM developers d WHERE d.id = b.developer_id
            UNION ALL
            SELECT lower(u.email) FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.business_id = b.id))`.as('withheld'),
    ])
    .execute();

export const markEmailSent = (executor: Executor, id: string, now: Date) =>
  executor.updateTable('email_outbox').set({ sent_at: now, last_error: null }).where('id', '=', id).execute();

export const markEmailFailed = (executor: Executor, id: string, error: string, retryAt: Date) =>
  executor
    .updateTable('email_outbox')
    .set({ last_error: error, next_attempt_at: retryAt })
    .where('id', '=', id)
    .execute();

export const markEmailWithheld = (executor: Executor, id: string, now: Date) =>
  executor.updateTable('email_outbox').set({ withheld_at: now }).where('id', '=', id).execute();
