import { sql, type Updateable } from 'kysely';
import type { NewCustomer } from '../customers/customers.queries.ts';
import type { NewDepositRow } from '../deposits/deposits.queries.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import { escapeLike } from '../platform/sql.ts';
import type { BookingStatus, DB } from '../schema.ts';
import { type BookingView, selectBookingRows, toBookingView } from './bookings.view.ts';
import { ACTIVE_STATUSES } from './status.ts';

/** The business's smallest and largest party, which every booking's party size stays within. */
export const partyLimits = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('businesses')
    .select(['min_capacity', 'max_capacity'])
    .where('id', '=', businessId)
    .executeTakeFirstOrThrow();

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
 * The resource if it is active and not deleted, after taking the turn of placing a booking on it
 * during `heldRange` (`slotwise_take_turn`, migrations/0018): its row stays locked in share mode
 * until the transaction ends, so it cannot be deactivated or deleted under the booking, and
 * placements whose times can meet take turns, so the exclusion constraint never deadlocks them.
 */
export const lockUsableResource = async (tx: Tx, businessId: string, resourceId: string, heldRange: string) =>
  (
    await sql<{ id: string; capacity_min: number; capacity_max: number }>`
      SELECT id, capacity_min, capacity_max
      FROM slotwise_take_turn(${businessId}::uuid, ${resourceId}::uuid, ${heldRange}::tstzrange)`.execute(tx)
  ).rows[0];

/** The resources a service may use (empty: any); undefined when there is no such service. */
export const serviceResourceIds = async (executor: Executor, businessId: string, serviceId: string) =>
  (
    await executor
      .selectFrom('services')
      .select('resource_ids')
      .where('id', '=', serviceId)
      .where('business_id', '=', businessId)
      .executeTakeFirst()
  )?.resource_ids;

/** Whether another active booking or an external block holds the resource during `heldRange`. */
export async function resourceIsBusy(
  executor: Executor,
  businessId: string,
  resourceId: string,
  heldRange: string,
  excludeBookingId: string,
): Promise<boolean> {
  const clash = await executor
    .selectFrom('bookings')
    .select('id')
    .where('business_id', '=', businessId)
    .where('resource_id', '=', resourceId)
    .where('id', '<>', excludeBookingId)
    .where('status', 'in', ACTIVE_STATUSES)
    .where(sql<boolean>`during && ${heldRange}::tstzrange`)
    .union(
      executor
        .selectFrom('resource_blocks')
        .select('id')
        .where('business_id', '=', businessId)
        .where('resource_id', '=', resourceId)
        .where(sql<boolean>`during && ${heldRange}::tstzrange`),
    )
    .limit(1)
    .executeTakeFirst();
  return clash !== undefined;
}

/** What `slotwise_place_booking` (migrations/0017) is given to place one booking. */
export interface BookingToPlace {
  id: string;
  business_id: string;
  service_id: string | null;
  booking_date: string;
  start_time: string;
  end_time: string;
  duration_minutes: number;
  starts_at: Date;
  ends_at: Date;
  /** The held range, buffers included, as a tstzrange literal. */
  during: string;
  status: BookingStatus;
  capacity: number;
  source: 'online' | 'staff' | 'sandbox';
  customer_notes: string | null;
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string | null;
  customer: Omit<NewCustomer, 'business_id'>;
  /** Whether the caller may rewrite a returning customer's name and email. */
  trusted: boolean;
  /** The resources to try, in order. */
  candidates: string[];
  /** Confirmation codes to try, in order, should one be taken. */
  codes: string[];
  deposit?: Omit<NewDepositRow, 'business_id' | 'booking_id'>;
  /** Who the audit row names, and its action. */
  actor: string;
  action: string;
  quota?: { developer_id: string; month: string; limit: number };
}

/**
 * Places the booking in one statement: customer, booking on the first free candidate, deposit,
 * audit row, outbox event and the monthly count. Answers the booking as the API shows it, or why
 * it was refused (nothing is written then).
 */
export async function placeBooking(
  executor: Executor,
  booking: BookingToPlace,
): Promise<BookingView | 'slot_taken' | 'quota_reached'> {
  const params = JSON.stringify({ ...booking, view: placedBookingView(booking) });
  try {
    const { rows } = await sql<{ booking: BookingView }>`
      SELECT slotwise_place_booking(${params}::jsonb) AS booking`.execute(executor);
    return rows[0]!.booking;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SWB09') return 'slot_taken';
    if (code === 'SWQ02') return 'quota_reached';
    throw error;
  }
}

/**
 * The placed booking's view as far as it is known before the statement runs; the statement fills
 * in the rest (confirmation code, resource, customer, timestamps). One shape: `toBookingView`'s.
 */
function placedBookingView(booking: BookingToPlace): BookingView {
  const { deposit } = booking;
  return toBookingView({
    ...booking,
    confirmation_code: '',
    resource_id: '',
    customer_id: '',
    staff_notes: null,
    created_at: booking.starts_at,
    updated_at: booking.starts_at,
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
}

/** Moves a booking to another time or resource; refused like an insert when the resource is taken. */
/** What `slotwise_move_booking` (migrations/0018) is given to move one booking. */
export interface BookingMove {
  business_id: string;
  booking_id: string;
  /** The resources to try, in order. */
  candidates: string[];
  booking_date: string;
  start_time: string;
  end_time: string;
  starts_at: Date;
  ends_at: Date;
  /** The held range, buffers included, as a tstzrange literal. */
  during: string;
  capacity: number;
  /** How long before the start a pending deposit's hold is taken. */
  hold_lead_ms: number;
}

/**
 * Moves the booking in one statement to the first candidate still free, with a deposit's hold
 * following its start; answers the resource it went to, or `slot_taken` (nothing is changed then).
 */
export async function moveBooking(tx: Tx, move: BookingMove): Promise<string | 'slot_taken'> {
  try {
    const { rows } = await sql<{ resource_id: string }>`
      SELECT slotwise_move_booking(${JSON.stringify(move)}::jsonb) AS resource_id`.execute(tx);
    return rows[0]!.resource_id;
  } catch (error) {
    if ((error as { code?: string }).code === 'SWB09') return 'slot_taken';
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
