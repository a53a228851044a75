import { sql } from 'kysely';
import { todayIn } from '../availability/engine/index.ts';
import { type CustomerInput, upsertCustomer } from '../customers/customers.service.ts';
import { guestNamesOf } from '../customers/guest.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import { isDate } from '../platform/schemas.ts';

export interface NewWaitlistEntry {
  customer: CustomerInput;
  preferred_date: string | null;
  service_id?: string | null;
  capacity: number;
  notes?: string | null;
}

/**
 * Adds a customer to the business's waitlist and answers their 1-based position among the entries
 * for the same date. Entries of one business are added one at a time (a transaction lock), and each
 * takes the clock time after that lock: the position answered is then the one the list shows.
 */
export async function addToWaitlist(tx: Tx, businessId: string, entry: NewWaitlistEntry, trusted: boolean) {
  const business = await tx
    .selectFrom('businesses')
    .select(['id', 'timezone'])
    .where('id', '=', businessId)
    .executeTakeFirst();
  if (!business) throw notFound('business');
  // Today as the availability engine sees it, and without asking the database about the zone.
  if (entry.preferred_date !== null && entry.preferred_date < todayIn(business.timezone, Date.now())) {
    throw invalidField('preferred_date', 'is in the past');
  }
  if (entry.service_id) {
    const service = await tx
      .selectFrom('services')
      .select('id')
      .where('id', '=', entry.service_id)
      .where('business_id', '=', businessId)
      .where('is_active', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!service) throw invalidField('service_id', 'is not an active service of this business');
  }

  await sql`SELECT pg_advisory_xact_lock(hashtext(${`waitlist:${businessId}`}))`.execute(tx);
  const customer = await upsertCustomer(tx, businessId, entry.customer, trusted);
  const created = await tx
    .insertInto('waitlist_entries')
    .values({
      business_id: businessId,
      customer_id: customer.id,
      preferred_date: entry.preferred_date,
      service_id: entry.service_id ?? null,
      capacity: entry.capacity,
      notes: entry.notes ?? null,
      ...guestNamesOf(entry.customer),
      created_at: sql<Date>`clock_timestamp()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { position } = await tx
    .selectFrom('waitlist_entries as w')
    .select((eb) => eb.fn.countAll<number>().as('position'))
    .where('w.business_id', '=', businessId)
    .where('w.preferred_date', 'is not distinct from', entry.preferred_date)
    .where(
      sql<boolean>`(w.created_at, w.id) <= (SELECT created_at, id FROM waitlist_entries WHERE id = ${created.id})`,
    )
    .executeTakeFirstOrThrow();
  return { waitlist_id: created.id, position };
}

/** Keyset position in the list: `created_at` travels as text with microseconds, so nothing is skipped or repeated. */
export interface WaitlistPosition {
  createdAt: string;
  id: string;
}

const CURSOR_TIME = /^T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z$/;

/** Whether a cursor's `createdAt` is a real instant within the years dates may take, as the list writes it. */
export const isCursorTimestamp = (value: string) =>
  isDate(value.slice(0, 10)) && CURSOR_TIME.test(value.slice(10));

/**
 * The business's entries by creation, each with its position among the entries of its date (null
 * dates count among themselves). The position is ranked before paging, so a page's cut never
 * changes it. With `preferredDate`, that date's entries and the undated ones.
 */
export function listWaitlist(
  executor: Executor,
  businessId: string,
  options: { preferredDate?: string; limit: number; after: WaitlistPosition | null },
) {
  let ranked = executor
    .selectFrom('waitlist_entries')
    .select((eb) => [
      'id',
      'customer_id',
      'preferred_date',
      'service_id',
      'capacity',
      'notes',
      'guest_first_name',
      'guest_last_name',
      'guest_email',
      'created_at',
      eb.fn
        .agg<number>('row_number')
        .over((over) => over.partitionBy('preferred_date').orderBy('created_at').orderBy('id'))
        .as('position'),
    ])
    .where('business_id', '=', businessId);
  const { preferredDate, after } = options;
  if (preferredDate) {
    ranked = ranked.where((eb) =>
      eb.or([eb('preferred_date', '=', preferredDate), eb('preferred_date', 'is', null)]),
    );
  }
  let query = executor
    .selectFrom(ranked.as('w'))
    .innerJoin('customers as c', 'c.id', 'w.customer_id')
    .select([
      'w.id',
      'w.preferred_date',
      'w.service_id',
      'w.capacity',
      'w.notes',
      'w.guest_first_name',
      'w.guest_last_name',
      'w.guest_email',
      'w.position',
      'w.created_at',
      sql<string>`to_char(w.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        'cursor_created_at',
      ),
      'c.id as customer_id',
      'c.first_name as customer_first_name',
      'c.last_name as customer_last_name',
      'c.phone as customer_phone',
      'c.email as customer_email',
    ])
    .orderBy('w.created_at')
    .orderBy('w.id')
    .limit(options.limit + 1);
  if (after) {
    query = query.where(
      sql<boolean>`(w.created_at, w.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
    );
  }
  return query.execute();
}

export type WaitlistRow = Awaited<ReturnType<typeof listWaitlist>>[number];

export function removeWaitlistEntry(executor: Executor, businessId: string, entryId: string) {
  return executor
    .deleteFrom('waitlist_entries')
    .where('id', '=', entryId)
    .where('business_id', '=', businessId)
    .returning(['id', 'customer_id', 'preferred_date', 'service_id', 'capacity', 'notes', 'created_at'])
    .executeTakeFirst();
}
