import { type Static, Type } from 'typebox';
import { CustomerSummary, GuestSchema } from '../customers/entry-customer.view.ts';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { DEPOSIT_STATUSES } from './bookings.model.ts';

/** A booking's deposit as clients see it; the processor's own ids beyond the payment stay inside. */
export const DepositSchema = Type.Object(
  {
    status: Type.String({ description: `one of ${DEPOSIT_STATUSES.join(', ')}` }),
    type: Type.Union([Type.Literal('charge'), Type.Literal('authorization_hold')]),
    amount_cents: Type.Integer({ format: 'int32' }),
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
    duration_minutes: Type.Integer({ format: 'int32' }),
    capacity: Type.Integer({ format: 'int32' }),
    source: Type.String({
      description:
        '`online`, `staff`, `sandbox`, or `partner`: made by a reservation partner (`partner` names it)',
    }),
    resource_id: Uuid,
    resource_ids: Type.Array(Uuid, {
      description: 'every resource the booking holds: the tables of a combination, or its one resource',
    }),
    service_id: Nullable(Uuid),
    customer_id: Uuid,
    customer: CustomerSummary,
    guest: GuestSchema,
    series_id: Nullable({
      ...Uuid,
      description:
        'the series of a staff booking placed with its other occurrences (`recurrence`); null otherwise',
    }),
    table_locked: Type.Boolean({
      description:
        'staff keep the booking on its table: re-seating never moves it to make room for another (PATCH `table_locked`)',
    }),
    partner: Nullable(
      Type.Object(
        { id: Uuid, name: Type.String() },
        { description: 'the reservation partner that made the booking (source `partner`); null otherwise' },
      ),
    ),
    resource: Type.Object({
      id: Uuid,
      name: Type.String(),
      capacity_max: Type.Integer({ format: 'int32' }),
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

/** The one shape of a booking on the wire, as `BookingSchema` types it. */
export type BookingView = Static<typeof BookingSchema>;

/** A created booking's answer: with a deposit, what the guest pays with and which kind it is. */
export const withPaymentSecret = (
  booking: BookingView,
  prepared: { clientSecret: string; type: 'charge' | 'authorization_hold' } | null,
) =>
  prepared
    ? { ...booking, payment_client_secret: prepared.clientSecret, deposit_type: prepared.type }
    : booking;
