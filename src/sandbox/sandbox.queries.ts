import { sql } from 'kysely';
import { insertBusiness, insertDeveloper } from '../developers/developers.queries.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { upsertWeek } from '../settings/hours.queries.ts';

/** The shared demo business of the sandbox surface is found by this slug, which no name can take (names never slug to a leading dash). */
export const SANDBOX_SLUG = '-sandbox';

export const findSandboxBusiness = (executor: Executor) =>
  executor
    .selectFrom('businesses')
    .select(['id', 'timezone', 'default_slot_duration_minutes'])
    .where('slug', '=', SANDBOX_SLUG)
    .where('is_dev', '=', true)
    .executeTakeFirst();

export interface SandboxSeed {
  developer: { email: string; password_hash: string; first_name: string; last_name: string };
  business: { name: string; business_type: string };
  settings: {
    timezone: string;
    default_slot_interval_minutes: number;
    default_slot_duration_minutes: number;
    booking_window_days: number;
    max_capacity: number;
  };
  hours: {
    day_of_week: number;
    is_open: boolean;
    open_time: string;
    close_time: string;
    last_booking_time: null;
  }[];
  resources: { name: string; section: string; capacity_min: number; capacity_max: number }[];
}

/** Processes starting together seed the sandbox once: the second waits here, then finds it. */
export const lockSandboxSeed = (tx: Tx) =>
  sql`SELECT pg_advisory_xact_lock(hashtext('sandbox-seed'))`.execute(tx);

/** Inserts the sandbox business with its developer, settings, hours and resources; answers its id. */
export async function insertSandbox(tx: Tx, seed: SandboxSeed): Promise<string> {
  const developer = await insertDeveloper(tx, seed.developer);
  const business = await insertBusiness(tx, {
    developer_id: developer.id,
    name: seed.business.name,
    slug: SANDBOX_SLUG,
    business_type: seed.business.business_type,
    is_dev: true,
  });
  await tx.updateTable('businesses').set(seed.settings).where('id', '=', business.id).execute();
  await upsertWeek(tx, business.id, seed.hours);
  await tx
    .insertInto('resources')
    .values(
      seed.resources.map((resource, index) => ({
        ...resource,
        business_id: business.id,
        resource_type: 'table',
        display_order: index + 1,
      })),
    )
    .execute();
  return business.id;
}

export const listSandboxResources = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('resources')
    .select(['id', 'name', 'section', 'capacity_min', 'capacity_max'])
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .orderBy('display_order')
    .orderBy('id')
    .execute();

/**
 * Deletes the sandbox's bookings (and then customers without bookings, and audit rows) made
 * before `before`; answers how many bookings went.
 */
export async function deleteSandboxBookingsBefore(tx: Tx, businessId: string, before: Date): Promise<number> {
  const deleted = await tx
    .deleteFrom('bookings')
    .where('business_id', '=', businessId)
    .where('created_at', '<', before)
    .executeTakeFirst();
  await tx
    .deleteFrom('customers')
    .where('business_id', '=', businessId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('bookings').select('id').whereRef('bookings.customer_id', '=', 'customers.id'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('waitlist_entries')
            .select('id')
            .whereRef('waitlist_entries.customer_id', '=', 'customers.id'),
        ),
      ),
    )
    .execute();
  await tx
    .deleteFrom('audit_logs')
    .where('business_id', '=', businessId)
    .where('created_at', '<', before)
    .execute();
  return Number(deleted.numDeletedRows);
}
