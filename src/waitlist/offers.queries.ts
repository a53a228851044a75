import { sql } from 'kysely';
import { SUBSCRIPTION_COLUMNS } from '../billing/subscription.queries.ts';
import { itsCustomer } from '../customers/customers.queries.ts';
import type { Executor, Tx } from '../platform/db.ts';

/**
 * One opening of any business, claimed and removed: another process's run skips it
 * (`SKIP LOCKED`), and should this transaction fail it stays queued for the next run.
 */
export const claimOpening = async (tx: Tx) =>
  (
    await sql<{ business_id: string; booking_date: string }>`
      DELETE FROM waitlist_openings
      WHERE (business_id, id) = (
        SELECT business_id, id FROM waitlist_openings ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING business_id, booking_date::text AS booking_date`.execute(tx)
  ).rows[0];

/** Open offers past their time, of any business, expired; each date is queued again as an opening. */
export async function expireOffers(tx: Tx, now: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ business_id: string; booking_date: string }>`
    UPDATE waitlist_offers SET status = 'expired'
    WHERE (business_id, id) IN (
      SELECT business_id, id FROM waitlist_offers
      WHERE status = 'open' AND expires_at <= ${now}
      ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING business_id, booking_date::text AS booking_date`.execute(tx);
  if (rows.length > 0) await tx.insertInto('waitlist_openings').values(rows).execute();
  return rows.length;
}

/** What an offer of the business is made with: its zone, name, language and how long an offer lasts. */
export const offerTerms = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select(['id', 'name', 'timezone', 'notification_language', 'waitlist_offer_minutes'])
    .where('id', '=', businessId)
    .executeTakeFirst();

/**
 * The entries of the date still waiting (no booking made for them, no open offer), oldest first,
 * with the contact their offer goes to, and the start times each was offered before and let lapse.
 */
export const waitingEntries = (executor: Executor, businessId: string, date: string) =>
  executor
    .selectFrom('waitlist_entries as w')
    .innerJoin('customers as c', (join) => join.on(itsCustomer('w')))
    .select((eb) => [
      'w.id',
      'w.capacity',
      'w.service_id',
      'w.preferred_time_from',
      'w.preferred_time_to',
      eb.fn.coalesce('w.guest_first_name', 'c.first_name').as('first_name'),
      eb.fn.coalesce('w.guest_last_name', 'c.last_name').as('last_name'),
      // Where the offer goes: the one rule of a guest's message address (db/functions).
      sql<string | null>`slotwise_guest_contact('email', w.guest_email, c.email, c.phone)`.as('email'),
      'c.phone',
      sql<string[]>`coalesce((SELECT array_agg(o.start_time::text) FROM waitlist_offers o
        WHERE o.business_id = w.business_id AND o.waitlist_entry_id = w.id
          AND o.booking_date = w.preferred_date), '{}')`.as('offered_times'),
    ])
    .where('w.business_id', '=', businessId)
    .where('w.preferred_date', '=', date)
    .where('w.booked_booking_id', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('waitlist_offers as o')
            .select('o.id')
            .whereRef('o.business_id', '=', 'w.business_id')
            .whereRef('o.waitlist_entry_id', '=', 'w.id')
            .where('o.status', '=', 'open'),
        ),
      ),
    )
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();

/** The start times of the date under an open offer. */
export const openOfferTimes = async (executor: Executor, businessId: string, date: string) =>
  (
    await executor
      .selectFrom('waitlist_offers')
      .select(sql<string>`start_time::text`.as('start_time'))
      .where('business_id', '=', businessId)
      .where('booking_date', '=', date)
      .where('status', '=', 'open')
      .execute()
  ).map((row) => row.start_time);

export interface NewOfferRow {
  business_id: string;
  waitlist_entry_id: string;
  booking_date: string;
  start_time: string;
  resource_ids: string[];
  party: number;
  token_hash: string;
  expires_at: Date;
}

/**
 * Writes the offer and stamps its entry; undefined when another open offer took the time first
 * (the unique index of open offers decides).
 */
export async function insertOffer(tx: Tx, offer: NewOfferRow, now: Date) {
  const inserted = await tx
    .insertInto('waitlist_offers')
    .values({ ...offer, created_at: now })
    .onConflict((conflict) =>
      conflict
        .columns(['business_id', 'booking_date', 'start_time'])
        .where('status', '=', 'open')
        .doNothing(),
    )
    .returning(['id'])
    .executeTakeFirst();
  if (!inserted) return undefined;
  await tx
    .updateTable('waitlist_entries')
    .set({ offered_at: now })
    .where('business_id', '=', offer.business_id)
    .where('id', '=', offer.waitlist_entry_id)
    .execute();
  return inserted.id;
}

/**
 * An offer by its link's token hash, with what its page shows and the booking is made with: the
 * business and its developer's subscription, the entry's customer and names, the booking's code.
 */
function offersWithContext(executor: Executor) {
  return executor
    .selectFrom('waitlist_offers as o')
    .innerJoin('businesses', 'businesses.id', 'o.business_id')
    .innerJoin('developers', 'developers.id', 'businesses.developer_id')
    .innerJoin('waitlist_entries as w', (join) =>
      join.onRef('w.business_id', '=', 'o.business_id').onRef('w.id', '=', 'o.waitlist_entry_id'),
    )
    .innerJoin('customers as c', (join) => join.on(itsCustomer('w')))
    .leftJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'o.business_id').onRef('b.id', '=', 'o.booked_booking_id'),
    )
    .select((eb) => [
      'o.id',
      'o.business_id',
      'o.waitlist_entry_id',
      'o.booking_date',
      sql<string>`o.start_time::text`.as('start_time'),
      'o.party',
      'o.status',
      'o.expires_at',
      'o.booked_booking_id',
      'b.confirmation_code',
      'w.service_id',
      'businesses.name as business_name',
      'businesses.timezone',
      'businesses.notification_language',
      'businesses.time_format',
      'businesses.is_dev',
      'developers.id as developer_id',
      ...SUBSCRIPTION_COLUMNS,
      'c.phone',
      eb.fn.coalesce('w.guest_first_name', 'c.first_name').as('first_name'),
      eb.fn.coalesce('w.guest_last_name', 'c.last_name').as('last_name'),
      eb.fn.coalesce('w.guest_email', 'c.email').as('email'),
    ]);
}

export const findOfferByToken = (executor: Executor, tokenHash: string) =>
  offersWithContext(executor).where('o.token_hash', '=', tokenHash).executeTakeFirst();

export type OfferRow = NonNullable<Awaited<ReturnType<typeof findOfferByToken>>>;

/** The offer's status and expiry as they are now, its row locked until the transaction ends. */
export const lockOffer = (tx: Tx, businessId: string, offerId: string) =>
  tx
    .selectFrom('waitlist_offers')
    .select(['status', 'expires_at'])
    .where('business_id', '=', businessId)
    .where('id', '=', offerId)
    .forUpdate()
    .executeTakeFirstOrThrow();

/** The offer is taken by its booking, and its entry waits no more. */
export async function markOfferTaken(tx: Tx, offer: OfferRow, bookingId: string): Promise<void> {
  await tx
    .updateTable('waitlist_offers')
    .set({ status: 'taken', booked_booking_id: bookingId })
    .where('business_id', '=', offer.business_id)
    .where('id', '=', offer.id)
    .execute();
  await tx
    .updateTable('waitlist_entries')
    .set({ booked_booking_id: bookingId })
    .where('business_id', '=', offer.business_id)
    .where('id', '=', offer.waitlist_entry_id)
    .execute();
}
