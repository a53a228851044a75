import { Type } from 'typebox';
import {
  CUSTOMER_SUMMARY_COLUMNS,
  CustomerSummary,
  GuestSchema,
  toCustomerSummary,
  toGuestView,
} from '../customers/entry-customer.ts';
import type { Executor } from '../platform/db.ts';
import { DateString, hhmm, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { DEPOSIT_STATUSES } from './model.ts';

/** A booking's deposit as clients see it; the processor's own ids beyond the payment stay inside. */
export const DepositSchema = Type.Object(
  {
    status: Type.String({ description: `one of ${DEPOSIT_STATUSES.join(', ')}` }),
    type: Type.Union([Type.Literal('charge'), Type.Literal('authorization_hold')]),
    amount_cents: Type.Integer(),
    processor_payment_id: Nullable(Type.String({ description: 'the payment intent, `pi_...`' })),
  },
  {
    description:
      '`requires_payment` until the guest pays; a charge becomes `paid` (`refunded` when given back), a hold `held`, then `captured` on a no-show or `released`; `failed` when unpaid in time or declined',
    $id: 'Deposit',
  },
);

/** The one shape of a booking on the wire, in create, list, detail and change responses. */
export const BookingSchema = Type.Object(
  {
    id: Uuid,
    business_id: Uuid,
    status: Type.String(),
    confirmation_code: Type.String(),
    booking_date: DateString,
    start_time: Type.String(),
    end_time: Type.String(),
    duration_minutes: Type.Integer(),
    capacity: Type.Integer(),
    source: Type.String(),
    resource_id: Uuid,
    service_id: Nullable(Uuid),
    customer_id: Uuid,
    customer: CustomerSummary,
    guest: GuestSchema,
    resource: Type.Object({
      id: Uuid,
      name: Type.String(),
      capacity_max: Type.Integer(),
      section: Nullable(Type.String()),
    }),
    customer_notes: Nullable(Type.String()),
    staff_notes: Nullable(Type.String()),
    deposit: Nullable(DepositSchema),
    starts_at: Timestamp,
    ends_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Booking' },
);

const ONLY_TRUSTED =
  'only for a caller trusted with customers (a secret API key, a dashboard user, a developer): a publishable key is answered what it sent (`guest`), never the customer matched by the phone';

/** A created booking: with a deposit, what the guest pays with and the kind of deposit. */
export const CreatedBookingSchema = Type.Object(
  {
    ...BookingSchema.properties,
    customer_id: Type.Optional({ ...Uuid, description: ONLY_TRUSTED }),
    customer: Type.Optional({ ...CustomerSummary, description: ONLY_TRUSTED }),
    guest: {
      ...GuestSchema,
      description:
        'the name and email given with this booking; to a caller not trusted with customers, what it sent, phone included',
    },
    payment_client_secret: Type.Optional(
      Type.String({
        description:
          "the payment intent's client secret (`pi_..._secret_...`), or for a hold far ahead the setup intent's (`seti_..._secret_...`) that saves the card; only with a deposit",
      }),
    ),
    deposit_type: Type.Optional(
      Type.Union([Type.Literal('charge'), Type.Literal('authorization_hold')], {
        description: 'only with a deposit',
      }),
    ),
  },
  { $id: 'CreatedBooking' },
);

/** Bookings joined with their customer, resource and deposit, ready for `toBookingView`. */
export function selectBookingRows(executor: Executor) {
  return executor
    .selectFrom('bookings as b')
    .innerJoin('customers as c', (join) =>
      join.onRef('c.business_id', '=', 'b.business_id').onRef('c.id', '=', 'b.customer_id'),
    )
    .innerJoin('resources as r', (join) =>
      join.onRef('r.business_id', '=', 'b.business_id').onRef('r.id', '=', 'b.resource_id'),
    )
    .leftJoin('deposits as d', (join) =>
      join.onRef('d.business_id', '=', 'b.business_id').onRef('d.booking_id', '=', 'b.id'),
    )
    .select([
      'b.id',
      'b.business_id',
      'b.status',
      'b.confirmation_code',
      'b.booking_date',
      'b.start_time',
      'b.end_time',
      'b.duration_minutes',
      'b.capacity',
      'b.source',
      'b.resource_id',
      'b.service_id',
      'b.customer_id',
      'b.customer_notes',
      'b.staff_notes',
      'b.guest_first_name',
      'b.guest_last_name',
      'b.guest_email',
      'b.starts_at',
      'b.ends_at',
      'b.created_at',
      'b.updated_at',
      ...CUSTOMER_SUMMARY_COLUMNS,
      'r.name as resource_name',
      'r.capacity_max as resource_capacity_max',
      'r.section as resource_section',
      'd.status as deposit_status',
      'd.type as deposit_type',
      'd.amount_cents as deposit_amount_cents',
      'd.processor_payment_id as deposit_payment_id',
    ]);
}

export type BookingRow = Awaited<ReturnType<ReturnType<typeof selectBookingRows>['executeTakeFirstOrThrow']>>;

export function toBookingView(row: BookingRow) {
  return {
    id: row.id,
    business_id: row.business_id,
    status: row.status,
    confirmation_code: row.confirmation_code,
    booking_date: row.booking_date,
    start_time: hhmm(row.start_time),
    end_time: hhmm(row.end_time),
    duration_minutes: row.duration_minutes,
    capacity: row.capacity,
    source: row.source,
    resource_id: row.resource_id,
    service_id: row.service_id,
    customer_id: row.customer_id,
    customer: toCustomerSummary(row),
    guest: toGuestView(row),
    resource: {
      id: row.resource_id,
      name: row.resource_name,
      capacity_max: row.resource_capacity_max,
      section: row.resource_section,
    },
    customer_notes: row.customer_notes,
    staff_notes: row.staff_notes,
    deposit:
      row.deposit_status && row.deposit_type && row.deposit_amount_cents !== null
        ? {
            status: row.deposit_status,
            type: row.deposit_type,
            amount_cents: row.deposit_amount_cents,
            processor_payment_id: row.deposit_payment_id,
          }
        : null,
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type BookingView = ReturnType<typeof toBookingView>;

/** A created booking's answer: with a deposit, what the guest pays with and which kind it is. */
export const withPaymentSecret = (
  booking: BookingView,
  prepared: { clientSecret: string; type: 'charge' | 'authorization_hold' } | null,
) =>
  prepared
    ? { ...booking, payment_client_secret: prepared.clientSecret, deposit_type: prepared.type }
    : booking;
