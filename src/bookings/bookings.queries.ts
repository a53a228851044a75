import { sql, type Updateable } from 'kysely';
import type { BookingStatus } from '../engine/status.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import { escapeLike } from '../platform/sql.ts';
import type { DB } from '../schema.ts';
import type { BookingView } from './bookings.view.ts';
import type {
  ChangeBookingParams,
  ChangeBookingResult,
  PlaceBookingParams,
  PlaceBookingResult,
} from './statements.model.ts';

/**
 * Bookings as the API shows them (`view`, built by db/views/booking_views.sql, the one place their
 * wire shape is made), beside the booking's columns lists filter and sort on.
 */
export const selectBookingViews = (executor: Executor) =>
  executor.selectFrom('booking_views as v').select('v.view').$narrowType<{ view: BookingView }>();

/**
 * Bookings as the host stand reads them (the manage list and detail): the view with the guest's
 * allergies and tags in its `customer`, which no stored copy of a view (audit, event) holds.
 */
const selectHostBookingViews = (executor: Executor) =>
  executor
    .selectFrom('booking_views as v')
    .select(
      sql<BookingView>`jsonb_set(v.view, '{customer}', (v.view -> 'customer') || v.guest_profile)`.as('view'),
    );

export interface BookingFilters {
  date?: string;
  fromDate?: string;
  toDate?: string;
  statuses?: BookingStatus[];
  /** Part of the confirmation code, any case. */
  code?: string;
  resourceId?: string;
  customerId?: string;
  /** Newest created first instead of by date and start time. */
  latest?: boolean;
}

/** The business's bookings, filtered, by date and start time or newest first. */
export function listBookings(executor: Executor, page: PageRequest, filters: BookingFilters) {
  let query = selectHostBookingViews(executor).where('v.business_id', '=', page.owner);
  if (filters.date) query = query.where('v.booking_date', '=', filters.date);
  if (filters.fromDate) query = query.where('v.booking_date', '>=', filters.fromDate);
  if (filters.toDate) query = query.where('v.booking_date', '<=', filters.toDate);
  if (filters.statuses) query = query.where('v.status', 'in', filters.statuses);
  if (filters.code) query = query.where('v.confirmation_code', 'ilike', `%${escapeLike(filters.code)}%`);
  if (filters.resourceId) {
    // A combined booking is one of each table's bookings.
    const id = filters.resourceId;
    query = query.where((eb) =>
      eb.or([
        eb('v.resource_id', '=', id),
        eb(sql<string>`${id}::uuid`, '=', eb.fn.any('v.joined_resource_ids')),
      ]),
    );
  }
  if (filters.customerId) query = query.where('v.customer_id', '=', filters.customerId);
  const list = filters.latest
    ? {
        name: 'bookings-latest',
        direction: 'desc' as const,
        keys: [
          { ref: 'v.created_at', type: 'timestamptz' as const },
          { ref: 'v.id', type: 'uuid' as const },
        ],
      }
    : {
        name: 'bookings',
        keys: [
          { ref: 'v.booking_date', type: 'date' as const },
          { ref: 'v.start_time', type: 'time' as const },
          { ref: 'v.id', type: 'uuid' as const },
        ],
      };
  return keysetPage(query, list, page, (row) => row.view);
}

export const findBookingView = async (
  executor: Executor,
  businessId: string,
  bookingId: string,
  reader: 'host' | 'record' = 'record',
) =>
  (
    await (reader === 'host' ? selectHostBookingViews : selectBookingViews)(executor)
      .where('v.id', '=', bookingId)
      .where('v.business_id', '=', businessId)
      .executeTakeFirst()
  )?.view;

/** The stored booking, locked for the rest of the transaction. */
export const lockBooking = (tx: Tx, businessId: string, bookingId: string) =>
  tx
    .selectFrom('bookings')
    .selectAll()
    .where('id', '=', bookingId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();

export type StoredBooking = NonNullable<Awaited<ReturnType<typeof lockBooking>>>;

/**
 * Places the booking in one statement: customer, booking on the first free candidate, deposit,
 * audit row, outbox event and the month's count. Answers the booking as the API shows it with the
 * UTC dates it holds; a refusal raises (sqlstates.model.ts) and nothing is written.
 */
export async function placeBooking(
  executor: Executor,
  booking: PlaceBookingParams,
): Promise<PlaceBookingResult> {
  const { rows } = await sql<{ placed: PlaceBookingResult }>`
    SELECT slotwise_place_booking(${JSON.stringify(booking)}::jsonb) AS placed`.execute(executor);
  return rows[0]!.placed;
}

/**
 * The booking as the API shows it, with the UTC dates it holds, its held time and the version a
 * change is made on.
 */
export const findBookingToChange = (executor: Executor, businessId: string, bookingId: string) =>
  selectBookingViews(executor)
    .innerJoin('bookings as b', (join) =>
      join.onRef('b.business_id', '=', 'v.business_id').onRef('b.id', '=', 'v.id'),
    )
    .select(['v.held_dates', sql<string>`b.xmin::text`.as('version'), 'b.during'])
    .where('v.id', '=', bookingId)
    .where('v.business_id', '=', businessId)
    .executeTakeFirst();

/**
 * Makes the change in one statement: placement, status, audit rows and events. Answers the booking
 * as the change left it with the UTC dates it holds, or `stale` when the booking changed since it
 * was read; a refusal raises (sqlstates.model.ts) and nothing is written.
 */
export async function runBookingChange(
  executor: Executor,
  change: ChangeBookingParams,
): Promise<Exclude<ChangeBookingResult, { stale: true }> | 'stale'> {
  const { rows } = await sql<{ result: ChangeBookingResult }>`
    SELECT slotwise_change_booking(${JSON.stringify(change)}::jsonb) AS result`.execute(executor);
  const result = rows[0]!.result;
  return 'stale' in result ? 'stale' : result;
}

export const updateBooking = (
  tx: Tx,
  businessId: string,
  bookingId: string,
  changes: Updateable<DB['bookings']>,
) =>
  tx
    .updateTable('bookings')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', bookingId)
    .where('business_id', '=', businessId)
    .execute();

/** Active resources that fit `capacity` and are free during the booking's held range, but its own. */
export const freeResourcesFor = (
  executor: Executor,
  businessId: string,
  booking: { id: string; resource_id: string; capacity: number; during: string },
) =>
  executor
    .selectFrom('resources as r')
    .select([
      'r.id',
      'r.name',
      'r.resource_type',
      'r.capacity_min',
      'r.capacity_max',
      'r.section',
      'r.display_order',
    ])
    .where('r.business_id', '=', businessId)
    .where('r.deleted_at', 'is', null)
    .where('r.is_active', '=', true)
    .where('r.id', '<>', booking.resource_id)
    .where('r.capacity_min', '<=', booking.capacity)
    .where('r.capacity_max', '>=', booking.capacity)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('booking_holds as o')
            .select('o.booking_id')
            .whereRef('o.business_id', '=', 'r.business_id')
            .whereRef('o.resource_id', '=', 'r.id')
            .where('o.booking_id', '<>', booking.id)
            .where(sql<boolean>`o.during && ${booking.during}::tstzrange`),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('resource_blocks as k')
            .select('k.id')
            .whereRef('k.business_id', '=', 'r.business_id')
            .whereRef('k.resource_id', '=', 'r.id')
            .where(sql<boolean>`k.during && ${booking.during}::tstzrange`),
        ),
      ),
    )
    .orderBy('r.display_order')
    .orderBy('r.id')
    .execute();

/** The booking's placement, for `freeResourcesFor`; undefined when it is not the business's. */
export const bookingPlacement = (executor: Executor, businessId: string, bookingId: string) =>
  executor
    .selectFrom('bookings')
    .select(['id', 'resource_id', 'capacity', 'during'])
    .where('id', '=', bookingId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();

/**
 * The bookings holding resources during `[start, end)` (epoch milliseconds), as re-seating weighs
 * them: each resource it holds, its held range and start, its party, and what may keep it where it
 * is (its status, its lock, its service, a class's seat).
 */
export async function heldBookingsDuring(
  executor: Executor,
  businessId: string,
  span: { start: number; end: number },
) {
  const { rows } = await sql<{
    id: string;
    resource_ids: string[];
    start_ms: number;
    end_ms: number;
    starts_ms: number;
    capacity: number;
    status: BookingStatus;
    table_locked: boolean;
    bound: boolean;
  }>`
    SELECT b.id, b.resource_id || b.joined_resource_ids AS resource_ids,
      date_part('epoch', lower(b.during)) * 1000 AS start_ms, date_part('epoch', upper(b.during)) * 1000 AS end_ms,
      date_part('epoch', b.starts_at) * 1000 AS starts_ms, b.capacity, b.status, b.table_locked,
      (b.service_id IS NOT NULL OR b.class_seat) AS bound
    FROM bookings b
    WHERE b.business_id = ${businessId} AND slotwise_status_holds(b.status)
      AND b.during && tstzrange(${new Date(span.start)}, ${new Date(span.end)})`.execute(executor);
  return rows;
}
