import { sql } from 'kysely';
import { SUBSCRIPTION_COLUMNS } from '../billing/subscription.queries.ts';
import type { BookingView } from '../bookings/bookings.view.ts';
import { HOLDING_STATUSES } from '../engine/status.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

/** What a partner's listing shows: never its secret's hash. */
const VIEW_COLUMNS = ['partners.id', 'partners.name', 'partners.username', 'partners.created_at'] as const;

export const insertPartner = (
  executor: Executor,
  values: { developer_id: string; name: string; username: string; secret_hash: string },
) => executor.insertInto('partners').values(values).returning(VIEW_COLUMNS).executeTakeFirstOrThrow();

export const insertListings = (executor: Executor, partnerId: string, businessIds: readonly string[]) =>
  executor
    .insertInto('partner_listings')
    .values(businessIds.map((business_id) => ({ business_id, partner_id: partnerId })))
    .execute();

/** Of the businesses named, those the developer owns. */
export const businessesOfDeveloper = (
  executor: Executor,
  developerId: string,
  businessIds: readonly string[],
) =>
  executor
    .selectFrom('businesses')
    .select('id')
    .where('developer_id', '=', developerId)
    .where('id', 'in', businessIds)
    .execute();

/** A page of the partners the business lists with, oldest first. */
export const listPartnersOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor
      .selectFrom('partner_listings')
      .innerJoin('partners', 'partners.id', 'partner_listings.partner_id')
      .select([...VIEW_COLUMNS, 'partner_listings.created_at as listed_at'])
      .where('partner_listings.business_id', '=', page.owner),
    { name: 'partners', keys: sortedBy('partner_listings.created_at', 'timestamptz', 'partners.id') },
    page,
  );

/** Ends the business's listing with the partner; undefined when it was not listed. */
export const deleteListing = (executor: Executor, businessId: string, partnerId: string) =>
  executor
    .deleteFrom('partner_listings')
    .where('business_id', '=', businessId)
    .where('partner_id', '=', partnerId)
    .returning('partner_id')
    .executeTakeFirst();

/** The partner a Basic user name names, with its secret's hash and its developer's subscription. */
export const partnerByUsername = (executor: Executor, username: string) =>
  executor
    .selectFrom('partners')
    .innerJoin('developers', 'developers.id', 'partners.developer_id')
    .select([
      'partners.id',
      'partners.name',
      'partners.secret_hash',
      'partners.developer_id',
      ...SUBSCRIPTION_COLUMNS,
    ])
    .where('partners.username', '=', username)
    .executeTakeFirst();

/**
 * A business the partner reaches, with what a booking of it is counted for: its developer's
 * subscription, as the authenticator reads it for a key. Undefined when it is not listed.
 */
export const listedBusiness = (executor: Executor, partnerId: string, businessId: string) =>
  executor
    .selectFrom('partner_listings')
    .innerJoin('businesses', 'businesses.id', 'partner_listings.business_id')
    .innerJoin('developers', 'developers.id', 'businesses.developer_id')
    .select(['businesses.id', 'businesses.developer_id', 'businesses.is_dev', ...SUBSCRIPTION_COLUMNS])
    .where('partner_listings.partner_id', '=', partnerId)
    .where('partner_listings.business_id', '=', businessId)
    .executeTakeFirst();

/** The businesses the partner reaches, for its feeds. */
export const listedBusinessIds = async (executor: Executor, partnerId: string) =>
  (
    await executor
      .selectFrom('partner_listings')
      .select('business_id')
      .where('partner_id', '=', partnerId)
      .orderBy('business_id')
      .execute()
  ).map((row) => row.business_id);

export const insertPartnerBooking = (
  executor: Executor,
  values: {
    business_id: string;
    booking_id: string;
    partner_id: string;
    user_id: string | null;
    idempotency_token: string;
  },
) => executor.insertInto('partner_bookings').values(values).execute();

/** The booking the partner made of the business under this token, if any, and the user it was for. */
export const bookingOfToken = (executor: Executor, partnerId: string, businessId: string, token: string) =>
  executor
    .selectFrom('partner_bookings')
    .select(['booking_id', 'user_id'])
    .where('partner_id', '=', partnerId)
    .where('business_id', '=', businessId)
    .where('idempotency_token', '=', token)
    .executeTakeFirst();

/**
 * The bookings the partner made for one of its users still to come and held (not cancelled), at the
 * businesses still listed with it, soonest first; at most `limit` (a partner names its users).
 */
export const upcomingBookingsOfUser = (
  executor: Executor,
  partnerId: string,
  userId: string,
  now: Date,
  limit: number,
) =>
  executor
    .selectFrom('partner_bookings as pb')
    .innerJoin('partner_listings as l', (join) =>
      join.onRef('l.business_id', '=', 'pb.business_id').onRef('l.partner_id', '=', 'pb.partner_id'),
    )
    .innerJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'pb.business_id').onRef('b.id', '=', 'pb.booking_id'),
    )
    .innerJoin('booking_views as v', (join) =>
      join.onRef('v.business_id', '=', 'b.business_id').onRef('v.id', '=', 'b.id'),
    )
    .select('v.view')
    .$narrowType<{ view: BookingView }>()
    .where('pb.partner_id', '=', partnerId)
    .where('pb.user_id', '=', userId)
    .where('b.ends_at', '>', now)
    .where('b.status', 'in', HOLDING_STATUSES)
    .orderBy('b.starts_at')
    .limit(limit)
    .execute();

/** The business's active services a guest may book, by name. */
export const activeServicesOf = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('services')
    .select(['id', 'name', 'description', 'duration_minutes', 'seats'])
    .where('business_id', '=', businessId)
    .where('is_active', '=', true)
    .where('deleted_at', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();

/** What a partner's merchant feed tells of a business beyond its public answer. */
export const merchantFacts = async (executor: Executor, businessIds: readonly string[]) =>
  businessIds.length === 0
    ? []
    : executor
        .selectFrom('businesses')
        .select(['id', 'business_type', 'notification_language'])
        .where('id', 'in', businessIds)
        .execute();

/** The partner's booking of any business still listed with it, with the user it was made for. */
export const partnerBooking = (executor: Executor, partnerId: string, bookingId: string) =>
  executor
    .selectFrom('partner_bookings as pb')
    .innerJoin('partner_listings as l', (join) =>
      join.onRef('l.business_id', '=', 'pb.business_id').onRef('l.partner_id', '=', 'pb.partner_id'),
    )
    .select(['pb.business_id', 'pb.user_id'])
    .where('pb.partner_id', '=', partnerId)
    .where('pb.booking_id', '=', bookingId)
    .executeTakeFirst();

/** The seats of the business's active tables and combinations, each a range of parties it takes. */
export const seatingOf = async (executor: Executor, businessId: string) => [
  ...(await executor
    .selectFrom('resources')
    .select(['capacity_min', 'capacity_max'])
    .where('business_id', '=', businessId)
    .where('is_active', '=', true)
    .where('deleted_at', 'is', null)
    .execute()),
  ...(await executor
    .selectFrom('combinations')
    .select(['capacity_min', 'capacity_max'])
    .where('business_id', '=', businessId)
    .where('is_active', '=', true)
    .execute()),
];

/** Holds the partner's idempotency token at the business until the transaction ends: its calls take turns. */
export async function lockToken(tx: Tx, partnerId: string, businessId: string, token: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`partner-token:${partnerId}:${businessId}:${token}`}, 0))`.execute(
    tx,
  );
}
