import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

/** Why a merge was refused, or `merged` (db/functions/slotwise_merge_guests.sql). */
export type MergeOutcome = 'merged' | 'missing' | 'erased';

export async function mergeGuests(
  executor: Executor,
  businessId: string,
  duplicateId: string,
  keptId: string,
  actor: string,
): Promise<MergeOutcome> {
  const { rows } = await sql<{ outcome: MergeOutcome }>`
    SELECT slotwise_merge_guests(${businessId}::uuid, ${duplicateId}::uuid, ${keptId}::uuid, ${actor}) AS outcome`.execute(
    executor,
  );
  return rows[0]!.outcome;
}

/** Erases the guest's profile and those merged into it, when it is a live profile not erased yet. */
export async function eraseGuest(executor: Executor, businessId: string, customerId: string, actor: string) {
  await sql`SELECT slotwise_erase_guest(${businessId}::uuid, ${customerId}::uuid, ${actor})`.execute(
    executor,
  );
}

/** The profiles merged into this one, as they were when merged (their phones still reach it). */
export function mergedProfilesOf(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('customers')
    .select(['id', 'first_name', 'last_name', 'phone', 'email', 'created_at'])
    .where('business_id', '=', businessId)
    .where('merged_into', '=', customerId)
    .orderBy('created_at')
    .execute();
}

/**
 * Guests whose profiles have had no booking (and no change) for `months` months, in businesses
 * that keep guest data that long only; at most `limit`, oldest first.
 */
export function guestsPastRetention(executor: Executor, limit: number) {
  return executor
    .selectFrom('customers as c')
    .innerJoin('businesses as b', 'b.id', 'c.business_id')
    .select(['c.business_id', 'c.id'])
    .where('b.guest_data_retention_months', 'is not', null)
    .where('c.merged_into', 'is', null)
    .where('c.erased_at', 'is', null)
    .where(sql<boolean>`c.updated_at < now() - make_interval(months => b.guest_data_retention_months)`)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('bookings as k')
            .select(sql`1`.as('one'))
            .whereRef('k.business_id', '=', 'c.business_id')
            .whereRef('k.customer_id', '=', 'c.id')
            .where(
              sql<boolean>`k.starts_at >= now() - make_interval(months => b.guest_data_retention_months)`,
            ),
        ),
      ),
    )
    .orderBy('c.updated_at')
    .limit(limit)
    .execute();
}
