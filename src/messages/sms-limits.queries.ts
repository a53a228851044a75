import { sql } from 'kysely';
import { SUBSCRIPTION_COLUMNS } from '../billing/subscription.queries.ts';
import type { Executor, Tx } from '../platform/db.ts';

/** What the SMS rules of a business read: where it is, what it allows, and its developer's plan. */
export const loadSmsRules = (tx: Tx, businessId: string) =>
  tx
    .selectFrom('businesses')
    .innerJoin('developers', 'developers.id', 'businesses.developer_id')
    .select([
      'businesses.timezone',
      'businesses.country',
      'businesses.sms_countries',
      'businesses.sms_per_day',
      'developers.id as developer_id',
      ...SUBSCRIPTION_COLUMNS,
    ])
    .where('businesses.id', '=', businessId)
    .executeTakeFirst();

export interface SmsCounter {
  scope: 'number' | 'business' | 'developer';
  owner: string;
  /** The E.164 number of a `number` counter; '' for the others. */
  number: string;
  /** `YYYY-MM-DD`: the day, or the first day of the month, counted over. */
  period: string;
  /** At least 1: a counter whose cap is 0 is never raised. */
  cap: number;
}

/**
 * Raises the counter by one if it is below its cap, and answers whether it did. One statement on
 * the counter's row: a concurrent sender raising the same counter waits for this transaction's
 * end and then sees its count, so no number of senders passes the cap.
 */
export async function raiseSmsCounter(tx: Tx, counter: SmsCounter): Promise<boolean> {
  const raised = await tx
    .insertInto('sms_counts')
    .values({
      scope: counter.scope,
      owner: counter.owner,
      number: counter.number,
      period: counter.period,
      sent: 1,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['scope', 'owner', 'number', 'period'])
        .doUpdateSet({ sent: sql`sms_counts.sent + 1` })
        .where('sms_counts.sent', '<', counter.cap),
    )
    .returning('sent')
    .executeTakeFirst();
  return raised !== undefined;
}

/** The SMS is counted for `number`: a later try of it sends there without counting again. */
export const markSmsCounted = (executor: Executor, id: string, number: string) =>
  executor.updateTable('message_outbox').set({ sms_to: number }).where('id', '=', id).execute();

/** Counts of periods that ended long before `before` (`YYYY-MM-DD`) are no longer read. */
export const forgetSmsCounts = (executor: Executor, before: string) =>
  executor.deleteFrom('sms_counts').where('period', '<', before).execute();
