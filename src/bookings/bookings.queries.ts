import { sql, type Updateable } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import { escapeLike } from '../platform/sql.ts';
import { ACTIVE_STATUSES, type BookingStatus, type DB } from '../schema.ts';
import { type BookingView, selectBookingRows, toBookingView } from './bookings.view.ts';
import { raised, SQLSTATE } from './sqlstates.ts';
import type {
  ChangeBookingParams,
  ChangeBookingResult,
  ChangeRefused,
  FilledByPlacement,
  PlaceBookingParams,
  PlaceBookingResult,
} from './statements.ts';

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
  let query = selectBookingRows(executor).where('b.business_id', '=', page.owner);
  if (filters.date) query = query.where('b.booking_date', '=', filters.date);
  if (filters.fromDate) query = query.where('b.booking_date', '>=', filters.fromDate);
  if (filters.toDate) query = query.where('b.booking_date', '<=', filters.toDate);
  if (filters.statuses) query = query.where('b.status', 'in', filters.statuses);
  if (filters.code) query = query.where('b.confirmation_code', 'ilike', `%${escapeLike(filters.code)}%`);
  if (filters.resourceId) query = query.where('b.resource_id', '=', filters.resourceId);
  if (filters.customerId) query = query.where('b.customer_id', '=', filters.customerId);
  const list = filters.latest
    ? {
        name: 'bookings-latest',
        direction: 'desc' as const,
        keys: [
          { ref: 'b.created_at', type: 'timestamptz' as const },
          { ref: 'b.id', type: 'uuid' as const },
        ],
      }
    : {
        name: 'bookings',
        keys: [
          { ref: 'b.booking_date', type: 'date' as const },
          { ref: 'b.start_time', type: 'time' as const },
          { ref: 'b.id', type: 'uuid' as const },
        ],
      };
  return keysetPage(query, list, page, toBookingView);
}

export const findBookingRow = (executor: Executor, businessId: string, bookingId: string) =>
  selectBookingRows(executor)
    .where('b.id', '=', bookingId)
    .where('b.business_id', '=', businessId)
    .executeTakeFirst();

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
 * audit row, outbox event and the monthly count. Answers the booking as the API shows it, or why
 * it was refused (nothing is written then).
 */
export async function placeBooking(
  executor: Executor,
  booking: Omit<PlaceBookingParams, 'view'>,
): Promise<BookingView | 'slot_taken' | 'quota_reached'> {
  const params = placeBookingParams(booking);
  try {
    const { rows } = await sql<{ booking: PlaceBookingResult }>`
      SELECT slotwise_place_booking(${JSON.stringify(params)}::jsonb) AS booking`.execute(executor);
    return rows[0]!.booking;
  } catch (error) {
    if (raised(error, SQLSTATE.SLOT_TAKEN)) return 'slot_taken';
    if (raised(error, SQLSTATE.QUOTA_REACHED)) return 'quota_reached';
    throw error;
  }
}

/** The statement's parameter: the booking with its view as far as it is known. */
export const placeBookingParams = (booking: Omit<PlaceBookingParams, 'view'>): PlaceBookingParams => ({
  ...booking,
  view: placedBookingView(booking),
});

/**
 * The placed booking's view as far as it is known before the statement runs; the statement fills
 * in the rest (confirmation code, resource, customer, timestamps). One shape: `toBookingView`'s.
 */
function placedBookingView(booking: Omit<PlaceBookingParams, 'view'>): PlaceBookingParams['view'] {
  const { deposit } = booking;
  const starts = new Date(booking.starts_at);
  const {
    confirmation_code,
    resource_id,
    resource,
    customer_id,
    customer,
    created_at,
    updated_at,
    ...known
  }: Record<FilledByPlacement, unknown> & PlaceBookingParams['view'] = toBookingView({
    ...booking,
    starts_at: starts,
    ends_at: new Date(booking.ends_at),
    confirmation_code: '',
    resource_id: '',
    customer_id: '',
    staff_notes: null,
    created_at: starts,
    updated_at: starts,
    customer_first_name: '',
    customer_last_name: '',
    customer_phone: '',
    customer_email: null,
    resource_name: '',
    resource_capacity_max: 0,
    resource_section: null,
    deposit_status: deposit?.status ?? null,
    deposit_type: deposit?.type ?? null,
    deposit_amount_cents: deposit?.amount_cents ?? null,
    deposit_payment_id: deposit?.processor_payment_id ?? null,
  });
  return known;
}

/** The booking as the API shows it, with its held time and the version a change is made on. */
export const findBookingToChange = (executor: Executor, businessId: string, bookingId: string) =>
  selectBookingRows(executor)
    .select([sql<string>`b.xmin::text`.as('version'), 'b.during'])
    .where('b.id', '=', bookingId)
    .where('b.business_id', '=', businessId)
    .executeTakeFirst();

/** Why `slotwise_change_booking` refused a change (nothing was written), or the status machine did. */
export type ChangeRefusal = ChangeRefused | { refused: 'status'; message: string };

/**
 * Makes the change in one statement: placement, status, audit rows and events. Answers the booking
 * as the change left it, why it was refused, or `stale` when the booking changed since it was read.
 */
export async function runBookingChange(
  executor: Executor,
  change: ChangeBookingParams,
): Promise<BookingView | ChangeRefusal | 'stale'> {
  try {
    const { rows } = await sql<{ result: ChangeBookingResult }>`
      SELECT slotwise_change_booking(${JSON.stringify(change)}::jsonb) AS result`.execute(executor);
    const result = rows[0]!.result;
    return 'stale' in result ? 'stale' : result;
  } catch (error) {
    // Raised, not answered: the placement was made by then, and the raise takes it back.
    if (raised(error, SQLSTATE.STATUS_REFUSED))
      return { refused: 'status', message: (error as Error).message };
    throw error;
  }
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
          selectFrom('bookings as o')
            .select('o.id')
            .whereRef('o.business_id', '=', 'r.business_id')
            .whereRef('o.resource_id', '=', 'r.id')
            .where('o.id', '<>', booking.id)
            .where('o.status', 'in', ACTIVE_STATUSES)
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
