import { type Selectable, sql } from 'kysely';
import { HOLDING_STATUSES, VISITED_STATUSES } from '../engine/status.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
import { escapeLike } from '../platform/sql.ts';
import type { DB, NotificationLanguage } from '../schema.ts';

const CUSTOMER_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'phone',
  'email',
  'tags',
  'allergies',
  'staff_notes',
  'marketing_opt_in',
  'preferred_language',
  'erased_at',
  'created_at',
  'updated_at',
] as const;

/** What a guest's bookings tell of them, counted when read, never stored. */
export interface GuestCounts {
  visits: number | null;
  no_shows: number | null;
  cancellations: number | null;
  last_visit: string | null;
  total_covers: number | null;
}

export interface CustomerRow extends GuestCounts {
  id: string;
  first_name: string;
  last_name: string;
  phone: string;
  email: string | null;
  tags: string[];
  allergies: string | null;
  staff_notes: string | null;
  marketing_opt_in: boolean;
  preferred_language: NotificationLanguage | null;
  erased_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The profiles a business sees: a duplicate merged away is reached through the one it went into. */
const liveCustomers = (executor: Executor, businessId: string) =>
  executor
    .selectFrom('customers')
    .where('customers.business_id', '=', businessId)
    .where('customers.merged_into', 'is', null)
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('bookings as b')
          .whereRef('b.business_id', '=', 'customers.business_id')
          .whereRef('b.customer_id', '=', 'customers.id')
          .select((agg) => [
            agg.fn.countAll<number>().filterWhere('b.status', 'in', VISITED_STATUSES).as('visits'),
            agg.fn.countAll<number>().filterWhere('b.status', '=', 'no_show').as('no_shows'),
            agg.fn.countAll<number>().filterWhere('b.status', '=', 'cancelled').as('cancellations'),
            agg.fn
              .max<string | null>('b.booking_date')
              .filterWhere('b.status', 'in', VISITED_STATUSES)
              .as('last_visit'),
            agg.fn
              .coalesce(
                agg.fn.sum<number>('b.capacity').filterWhere('b.status', 'in', VISITED_STATUSES),
                sql<number>`0`,
              )
              .as('total_covers'),
          ])
          .as('counts'),
      (join) => join.onTrue(),
    )
    .select([
      ...CUSTOMER_COLUMNS.map((column) => `customers.${column}` as const),
      'counts.visits',
      'counts.no_shows',
      'counts.cancellations',
      'counts.last_visit',
      'counts.total_covers',
    ]);

export interface CustomerSearch {
  /**
   * Matched anywhere in the names, phone or email, as `foldForSearch` made it of the text typed:
   * whatever the case and accents.
   */
  folded: string;
  /**
   * When the search is a phone number: its digits (a leading `+` kept), matched anywhere in the
   * normalised phone, and the search itself, whose national part is matched in the phone's.
   */
  phone: { digits: string; typed: string } | null;
}

/**
 * `text` as the stored keys hold it (db/functions/slotwise_search_fold.sql). Folding may turn a
 * character into a wildcard of LIKE (fullwidth `％` into `%`), so a pattern escapes what this
 * answers, never what was typed.
 */
export async function foldForSearch(executor: Executor, text: string): Promise<string> {
  const { rows } = await sql<{ folded: string }>`SELECT slotwise_search_fold(${text}) AS folded`.execute(
    executor,
  );
  return rows[0]!.folded;
}

/**
 * `%<national part>%` of a typed phone (db/functions/slotwise_phone_national.sql); null, matching
 * nothing, when it has none (a lone "+49").
 */
const nationalPattern = (typed: string) =>
  sql<string>`'%' || nullif(slotwise_phone_national(${typed}), '') || '%'`;

/**
 * The business's customers by last name, first name, id, each as `view` makes it, optionally only
 * those a search matches.
 */
export function listCustomers<T>(
  executor: Executor,
  page: PageRequest,
  view: (row: CustomerRow) => T,
  search?: CustomerSearch,
  tag?: string,
) {
  let query = liveCustomers(executor, page.owner).where('customers.erased_at', 'is', null);
  if (tag !== undefined) query = query.where('customers.tags', '@>', sql<string[]>`ARRAY[${tag}]::text[]`);
  if (search) {
    const { folded, phone } = search;
    query = query.where((eb) =>
      eb.or([
        eb('search_text', 'like', `%${escapeLike(folded)}%`),
        ...(phone
          ? [
              eb('phone_normalized', 'like', `%${escapeLike(phone.digits)}%`),
              eb('phone_national', 'like', nationalPattern(phone.typed)),
            ]
          : []),
      ]),
    );
  }
  return keysetPage(
    query,
    {
      name: 'customers',
      keys: [
        { ref: 'last_name', type: 'text' },
        { ref: 'first_name', type: 'text' },
        { ref: 'id', type: 'uuid' },
      ],
    },
    page,
    view,
  );
}

export interface NewCustomer {
  business_id: string;
  first_name: string;
  last_name: string;
  phone: string;
  /** Null: no phone, a profile no other booking reaches. */
  phone_normalized: string | null;
  email: string | null;
}

/**
 * The customer with this normalised phone, written by the one SQL function that matches customers
 * (`db/functions/slotwise_upsert_customer.sql`): a trusted caller's name and email become the
 * record's, anyone else's attach to it unchanged. The booking statement calls the same function.
 */
export async function upsertCustomerRow(executor: Executor, customer: NewCustomer, trusted: boolean) {
  const { rows } = await sql<Selectable<DB['customers']>>`
    SELECT * FROM slotwise_upsert_customer(${customer.business_id}::uuid, ${customer.first_name},
      ${customer.last_name}, ${customer.phone}, ${customer.phone_normalized}, ${customer.email}, ${trusted})`.execute(
    executor,
  );
  return rows[0]!;
}

export function findCustomer(executor: Executor, businessId: string, customerId: string) {
  return liveCustomers(executor, businessId).where('customers.id', '=', customerId).executeTakeFirst();
}

/** A profile the business sees, locked for a change until the transaction ends. */
export function lockCustomer(executor: Executor, businessId: string, customerId: string) {
  return executor
    .selectFrom('customers')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', customerId)
    .where('merged_into', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

export type ProfileChanges = Partial<
  Pick<
    Selectable<DB['customers']>,
    | 'first_name'
    | 'last_name'
    | 'email'
    | 'tags'
    | 'allergies'
    | 'staff_notes'
    | 'marketing_opt_in'
    | 'preferred_language'
  >
>;

export async function updateCustomer(
  executor: Executor,
  businessId: string,
  customerId: string,
  changes: ProfileChanges,
) {
  await executor
    .updateTable('customers')
    .set({ ...changes, updated_at: sql<Date>`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', customerId)
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
          w.and([w('status', 'in', HOLDING_STATUSES), w('starts_at', '>', sql<Date>`now()`)]),
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

/** Why a profile is a likely duplicate of another: the same email (any case) or national phone. */
export type DuplicateMatch = 'email' | 'phone';

/**
 * The business's other live profiles that share this one's email, whatever its case, or its
 * national phone (the phone without its country code), oldest first: likely the same guest.
 */
export async function duplicatesOf(
  executor: Executor,
  businessId: string,
  customerId: string,
  limit: number,
) {
  const source = await executor
    .selectFrom('customers')
    .select([sql<string | null>`lower(email)`.as('email_key'), 'phone_national'])
    .where('business_id', '=', businessId)
    .where('id', '=', customerId)
    .where('merged_into', 'is', null)
    .where('erased_at', 'is', null)
    .executeTakeFirst();
  if (!source) return undefined;
  const { email_key: emailKey, phone_national: phoneNational } = source;
  if (!emailKey && !phoneNational) return [];
  const rows = await liveCustomers(executor, businessId)
    .select(sql<string | null>`lower(customers.email)`.as('email_key'))
    .select('customers.phone_national')
    .where('customers.erased_at', 'is', null)
    .where('customers.id', '<>', customerId)
    .where((eb) =>
      eb.or([
        ...(emailKey ? [eb(sql<string>`lower(customers.email)`, '=', emailKey)] : []),
        ...(phoneNational ? [eb('customers.phone_national', '=', phoneNational)] : []),
      ]),
    )
    .orderBy('customers.created_at')
    .orderBy('customers.id')
    .limit(limit)
    .execute();
  return rows.map(({ email_key, phone_national, ...row }) => ({
    row: row as CustomerRow,
    match: [
      ...(emailKey && email_key === emailKey ? (['email'] as const) : []),
      ...(phoneNational && phone_national === phoneNational ? (['phone'] as const) : []),
    ] as DuplicateMatch[],
  }));
}

/**
 * Joins `customers as c` to the row aliased `alias`: its customer is the one of its own business,
 * the composite key every customer reference is (a customer id alone never crosses businesses).
 */
export const itsCustomer = (alias: string) =>
  sql<boolean>`c.business_id = ${sql.ref(`${alias}.business_id`)} and c.id = ${sql.ref(`${alias}.customer_id`)}`;
