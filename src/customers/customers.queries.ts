import { sql } from 'kysely';
import { selectBookingRows } from '../bookings/bookings.view.ts';
import type { Executor } from '../platform/db.ts';
import { normalizePhone } from './customers.service.ts';

export const RECENT_BOOKINGS_LIMIT = 20;

const CUSTOMER_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'phone',
  'email',
  'created_at',
  'updated_at',
] as const;

/**
 * Written exactly as the expression of `customers_search_idx` (migration 0003), so the trigram
 * index serves the ILIKE.
 */
const searchableText = sql<string>`(first_name || ' ' || last_name || ' ' || phone || ' ' || coalesce(email, ''))`;

/** A search made only of phone characters also matches the normalised phone, whatever its formatting. */
const PHONE_LIKE = /^[\d\s+()./-]+$/;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface CustomerPosition {
  lastName: string;
  firstName: string;
  id: string;
}

/** The business's customers by last name, first name, id; `after` is the keyset position of the previous page. */
export function listCustomers(
  executor: Executor,
  businessId: string,
  options: { search?: string; limit: number; after: CustomerPosition | null },
) {
  let query = executor
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('business_id', '=', businessId)
    .orderBy('last_name')
    .orderBy('first_name')
    .orderBy('id')
    .limit(options.limit + 1);
  const search = options.search?.trim();
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    const digits = normalizePhone(search);
    query = query.where((eb) =>
      PHONE_LIKE.test(search) && /\d/.test(digits)
        ? eb.or([
            eb(searchableText, 'ilike', pattern),
            eb('phone_normalized', 'like', `%${escapeLike(digits)}%`),
          ])
        : eb(searchableText, 'ilike', pattern),
    );
  }
  const { after } = options;
  if (after) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('last_name', 'first_name', 'id'),
        '>',
        eb.tuple(after.lastName, after.firstName, after.id),
      ),
    );
  }
  return query.execute();
}

export interface NewCustomer {
  business_id: string;
  first_name: string;
  last_name: string;
  phone: string;
  phone_normalized: string;
  email: string | null;
}

/** Inserts the customer, or makes a returning one (same normalised phone) take this name and email. */
export const upsertCustomerRow = (executor: Executor, customer: NewCustomer) =>
  executor
    .insertInto('customers')
    .values(customer)
    .onConflict((oc) =>
      oc.columns(['business_id', 'phone_normalized']).doUpdateSet((eb) => ({
        first_name: eb.ref('excluded.first_name'),
        last_name: eb.ref('excluded.last_name'),
        phone: eb.ref('excluded.phone'),
        email: eb.fn.coalesce(eb.ref('excluded.email'), eb.ref('customers.email')),
        updated_at: new Date(),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

/** Inserts the customer unless one with this normalised phone exists (then undefined, nothing changed). */
export const insertCustomerIfNew = (executor: Executor, customer: NewCustomer) =>
  executor
    .insertInto('customers')
    .values(customer)
    .onConflict((oc) => oc.columns(['business_id', 'phone_normalized']).doNothing())
    .returningAll()
    .executeTakeFirst();

export const findCustomerByPhone = (executor: Executor, businessId: string, phoneNormalized: string) =>
  executor
    .selectFrom('customers')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('phone_normalized', '=', phoneNormalized)
    .executeTakeFirstOrThrow();

export function findCustomer(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('id', '=', customerId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

export function recentBookingsOf(executor: Executor, businessId: string, customerId: string) {
  return selectBookingRows(executor)
    .where('b.business_id', '=', businessId)
    .where('b.customer_id', '=', customerId)
    .orderBy('b.booking_date', 'desc')
    .orderBy('b.start_time', 'desc')
    .orderBy('b.id', 'desc')
    .limit(RECENT_BOOKINGS_LIMIT)
    .execute();
}

/** The detail's `stats` in one aggregate over all of the customer's bookings. */
export function customerStats(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('bookings')
    .where('business_id', '=', businessId)
    .where('customer_id', '=', customerId)
    .select((eb) => [
      eb.fn.countAll<number>().as('total_bookings'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'completed').as('completed'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'cancelled').as('cancelled'),
      eb.fn.countAll<number>().filterWhere('status', '=', 'no_show').as('no_shows'),
      eb.fn
        .countAll<number>()
        .filterWhere((w) =>
          w.and([
            w('status', 'in', ['pending', 'confirmed', 'checked_in']),
            w('starts_at', '>', sql<Date>`now()`),
          ]),
        )
        .as('upcoming'),
      eb.fn
        .coalesce(eb.fn.sum<number>('capacity').filterWhere('status', '!=', 'cancelled'), sql<number>`0`)
        .as('total_covers'),
      eb.fn.min<string | null>('booking_date').as('first_booking_date'),
      eb.fn.max<string | null>('booking_date').as('last_booking_date'),
    ])
    .executeTakeFirstOrThrow();
}
