import { sql } from 'kysely';
import { itsCustomer } from '../customers/customers.queries.ts';
import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';

export interface FeedRow {
  id: string;
  resource_id: string | null;
  private_notes: boolean;
  created_at: Date;
}

const FEED_COLUMNS = ['id', 'resource_id', 'private_notes', 'created_at'] as const;

export const insertFeed = (
  executor: Executor,
  feed: { business_id: string; resource_id: string | null; private_notes: boolean; token_hash: string },
) => executor.insertInto('calendar_feeds').values(feed).returning(FEED_COLUMNS).executeTakeFirstOrThrow();

export const listFeedsOf = <T>(executor: Executor, page: PageRequest, view: (row: FeedRow) => T) =>
  keysetPage(
    executor.selectFrom('calendar_feeds').select(FEED_COLUMNS).where('business_id', '=', page.owner),
    { name: 'calendar_feeds', keys: sortedBy('created_at', 'timestamptz') },
    page,
    view,
  );

export const deleteFeedRow = businessRows('calendar_feeds', FEED_COLUMNS).delete;

/** The feed a token opens, with the names its calendar shows; across businesses, by the token's hash. */
export const feedByTokenHash = (executor: Executor, tokenHash: string) =>
  executor
    .selectFrom('calendar_feeds as f')
    .innerJoin('businesses as b', 'b.id', 'f.business_id')
    .leftJoin('resources as r', (join) =>
      join.onRef('r.business_id', '=', 'f.business_id').onRef('r.id', '=', 'f.resource_id'),
    )
    .select([
      'f.business_id',
      'f.resource_id',
      'f.private_notes',
      'b.name as business_name',
      'b.notification_language as language',
      'r.name as resource_name',
    ])
    .where('f.token_hash', '=', tokenHash)
    .executeTakeFirst();

export interface FeedBookingRow {
  id: string;
  status: string;
  starts_at: Date;
  ends_at: Date;
  capacity: number;
  confirmation_code: string;
  customer_notes: string | null;
  staff_notes: string | null;
  allergies: string | null;
  guest_name: string;
  table_names: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The bookings a feed lists: those overlapping `[from, to)`, of the business or holding one
 * resource (alone or in a combination); cancelled ones only while cancelled since `cancelledSince`.
 */
export const feedBookings = (
  executor: Executor,
  businessId: string,
  resourceId: string | null,
  window: { from: Date; to: Date; cancelledSince: Date },
): Promise<FeedBookingRow[]> => {
  let query = executor
    .selectFrom('bookings as bk')
    .innerJoin('customers as c', (join) => join.on(itsCustomer('bk')))
    .select([
      'bk.id',
      'bk.status',
      'bk.starts_at',
      'bk.ends_at',
      'bk.capacity',
      'bk.confirmation_code',
      'bk.customer_notes',
      'bk.staff_notes',
      'c.allergies',
      'bk.created_at',
      'bk.updated_at',
      sql<string>`trim(coalesce(bk.guest_first_name, c.first_name) || ' ' || coalesce(bk.guest_last_name, c.last_name))`.as(
        'guest_name',
      ),
      sql<string | null>`(SELECT string_agg(r.name, ', ' ORDER BY r.display_order, r.name) FROM resources r
        WHERE r.business_id = bk.business_id AND (r.id = bk.resource_id OR r.id = ANY (bk.joined_resource_ids)))`.as(
        'table_names',
      ),
    ])
    .where('bk.business_id', '=', businessId)
    .where('bk.ends_at', '>', window.from)
    .where('bk.starts_at', '<', window.to)
    .where((eb) =>
      eb.or([eb('bk.status', '<>', 'cancelled'), eb('bk.updated_at', '>', window.cancelledSince)]),
    );
  if (resourceId !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('bk.resource_id', '=', resourceId),
        sql<boolean>`${resourceId}::uuid = ANY (bk.joined_resource_ids)`,
      ]),
    );
  }
  return query.orderBy('bk.starts_at').orderBy('bk.id').execute() as Promise<FeedBookingRow[]>;
};
