import { sql } from 'kysely';
import { itsCustomer } from '../customers/customers.queries.ts';
import { CUSTOMER_SUMMARY_COLUMNS, type GuestNames } from '../customers/entry-customer.view.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

export const businessZone = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select(['id', 'timezone'])
    .where('id', '=', businessId)
    .executeTakeFirst();

/** Entries of one business are added one at a time: positions answered are then the ones listed. */
export async function lockWaitlist(executor: Executor, businessId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`waitlist:${businessId}`}))`.execute(executor);
}

export interface NewEntryRow extends GuestNames {
  business_id: string;
  customer_id: string;
  preferred_date: string | null;
  service_id: string | null;
  capacity: number;
  notes: string | null;
  preferred_time_from: string | null;
  preferred_time_to: string | null;
}

/** Inserts an entry stamped with the clock time after the waitlist lock, so creation order is list order. */
export async function insertEntry(executor: Executor, entry: NewEntryRow): Promise<string> {
  const row = await executor
    .insertInto('waitlist_entries')
    .values({ ...entry, created_at: sql<Date>`clock_timestamp()` })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The business's entries, each with its position among the entries of its date (null dates count among themselves). */
function rankedEntries(executor: Executor, businessId: string) {
  return executor
    .selectFrom('waitlist_entries')
    .select((eb) => [
      'id',
      'business_id',
      'customer_id',
      'preferred_date',
      'service_id',
      'capacity',
      'notes',
      'guest_first_name',
      'guest_last_name',
      'guest_email',
      'preferred_time_from',
      'preferred_time_to',
      'offered_at',
      'booked_booking_id',
      'created_at',
      eb.fn
        .agg<number>('row_number')
        .over((over) => over.partitionBy('preferred_date').orderBy('created_at').orderBy('id'))
        .as('position'),
    ])
    .where('business_id', '=', businessId);
}

/** Ranked entries with their customer, in the columns `toEntryView` reads. */
function entriesWithCustomer(executor: Executor, ranked: ReturnType<typeof rankedEntries>) {
  return executor
    .selectFrom(ranked.as('w'))
    .innerJoin('customers as c', (join) => join.on(itsCustomer('w')))
    .select([
      'w.id',
      'w.preferred_date',
      'w.service_id',
      'w.capacity',
      'w.notes',
      'w.guest_first_name',
      'w.guest_last_name',
      'w.guest_email',
      'w.preferred_time_from',
      'w.preferred_time_to',
      'w.offered_at',
      'w.booked_booking_id',
      'w.position',
      'w.created_at',
      'c.id as customer_id',
      ...CUSTOMER_SUMMARY_COLUMNS,
    ]);
}

export type EntryRow = Awaited<ReturnType<ReturnType<typeof entriesWithCustomer>['executeTakeFirstOrThrow']>>;

/**
 * The business's entries by creation, each with its position among the entries of its date (null
 * dates count among themselves). The position is ranked before paging, so a page's cut never
 * changes it. With `preferredDate`, that date's entries and the undated ones. Each as `view` makes it.
 */
export function listEntries<T>(
  executor: Executor,
  page: PageRequest,
  view: (row: EntryRow) => T,
  preferredDate?: string,
) {
  let ranked = rankedEntries(executor, page.owner);
  if (preferredDate) {
    ranked = ranked.where((eb) =>
      eb.or([eb('preferred_date', '=', preferredDate), eb('preferred_date', 'is', null)]),
    );
  }
  return keysetPage(
    entriesWithCustomer(executor, ranked),
    { name: 'waitlist', keys: sortedBy('w.created_at', 'timestamptz', 'w.id') },
    page,
    view,
  );
}

/** One entry as the list shows it. */
export function findEntry(executor: Executor, businessId: string, entryId: string) {
  return entriesWithCustomer(executor, rankedEntries(executor, businessId))
    .where('w.id', '=', entryId)
    .executeTakeFirstOrThrow();
}

export const deleteEntry = (executor: Executor, businessId: string, entryId: string) =>
  executor
    .deleteFrom('waitlist_entries')
    .where('id', '=', entryId)
    .where('business_id', '=', businessId)
    .returning(['id', 'customer_id', 'preferred_date', 'service_id', 'capacity', 'notes', 'created_at'])
    .executeTakeFirst();
