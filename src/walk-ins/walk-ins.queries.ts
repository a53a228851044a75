import { type Selectable, sql } from 'kysely';
import type { Executor } from '../platform/db.ts';
import type { DB } from '../schema.ts';

export type WalkInRow = Selectable<DB['walk_ins']>;

export type NewWalkInRow = Pick<
  WalkInRow,
  'business_id' | 'capacity' | 'first_name' | 'last_name' | 'phone' | 'email' | 'notes' | 'created_at'
>;

/** Entries of one business join one at a time: the queue's length is checked against its cap. */
export async function lockQueue(executor: Executor, businessId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`walk-ins:${businessId}`}))`.execute(executor);
}

/** Entries older than `before` are no longer waiting: the night they queued in is over. */
export const forgetQueuedBefore = (executor: Executor, businessId: string, before: Date) =>
  executor
    .deleteFrom('walk_ins')
    .where('business_id', '=', businessId)
    .where('created_at', '<', before)
    .execute();

export async function countQueued(executor: Executor, businessId: string): Promise<number> {
  const row = await executor
    .selectFrom('walk_ins')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('business_id', '=', businessId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export const insertWalkIn = (executor: Executor, entry: NewWalkInRow) =>
  executor.insertInto('walk_ins').values(entry).returningAll().executeTakeFirstOrThrow();

/** The business's queue in the order it joined, from `since` on. */
export const listQueue = (executor: Executor, businessId: string, since: Date) =>
  executor
    .selectFrom('walk_ins')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('created_at', '>=', since)
    .orderBy('queued')
    .execute();

export const findWalkIn = (executor: Executor, businessId: string, id: string) =>
  executor
    .selectFrom('walk_ins')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();

export const markNotified = (executor: Executor, businessId: string, id: string, at: Date) =>
  executor
    .updateTable('walk_ins')
    .set({ notified_at: at })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export const deleteWalkIn = (executor: Executor, businessId: string, id: string) =>
  executor
    .deleteFrom('walk_ins')
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** What quoting a walk-in's wait and telling them their table is ready need of the venue. */
export const venueOfQueue = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select(['name', 'timezone', 'notification_language', 'sms_enabled', 'guest_emails_enabled'])
    .where('id', '=', businessId)
    .executeTakeFirst();
