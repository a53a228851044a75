import { type Static, Type } from 'typebox';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { BookingStatus, DepositStatus } from '../schema.ts';
import { BookingSchema, type BookingView } from './bookings.view.ts';
import { DEPOSIT_STATUSES } from './model.ts';
import { BOOKING_STATUSES } from './status.ts';

/**
 * The contract between the booking use cases and the SQL functions of db/functions/ that take and
 * answer JSON: one schema per parameter and result, the TypeScript types taken from them. The
 * functions read their parameter by key (`p->>'field'`) and refuse one that lacks a required key
 * (`slotwise_require`), so a key renamed on one side only fails loudly instead of reading as NULL;
 * statements.test.ts calls each function with these shapes on both engines.
 */

const Status = Type.Unsafe<BookingStatus>(Type.String({ enum: BOOKING_STATUSES }));
/** A held range, buffers included, as a tstzrange literal (`rangeLiteral`). */
const HeldRange = Type.String({ pattern: '^\\[[^,]+,[^,]+\\)$' });
/** A wall-clock time as PostgreSQL reads a `time`: `HH:MM` or `HH:MM:SS`. */
const WallTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$' });

/**
 * The booking as the API shows it. Its type is `toBookingView`'s, the one mapping of a booking;
 * its schema is the wire schema the routes answer with.
 */
const View = Type.Unsafe<BookingView>(BookingSchema);

/** The parts of the placed booking's view only the statement knows; the rest is sent. */
const FILLED_BY_PLACEMENT = [
  'confirmation_code',
  'resource_id',
  'resource',
  'customer_id',
  'customer',
  'created_at',
  'updated_at',
] as const;
export type FilledByPlacement = (typeof FILLED_BY_PLACEMENT)[number];

const NullableString = Nullable(Type.String());

/** The deposit a booking is placed with, as the `deposits` row takes it. */
export const DepositToPlace = Type.Object({
  type: Type.Union([Type.Literal('charge'), Type.Literal('authorization_hold')]),
  status: Type.Unsafe<DepositStatus>(Type.String({ enum: DEPOSIT_STATUSES })),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  processor: Type.Union([Type.Literal('stripe'), Type.Literal('simulated')]),
  processor_payment_id: Type.Optional(NullableString),
  processor_setup_id: Type.Optional(NullableString),
  processor_checkout_id: Type.Optional(NullableString),
  processor_customer_id: Type.Optional(NullableString),
  processor_payment_method_id: Type.Optional(NullableString),
  checkout_url: Type.Optional(NullableString),
  expires_at: Type.Optional(Nullable(Timestamp)),
  hold_due_at: Type.Optional(Nullable(Timestamp)),
});
export type DepositToPlace = Static<typeof DepositToPlace>;

/** `slotwise_place_booking(p)`: one booking to place on the first free candidate. */
export const PlaceBookingParams = Type.Object({
  id: Uuid,
  business_id: Uuid,
  service_id: Nullable(Uuid),
  booking_date: DateString,
  start_time: WallTime,
  end_time: WallTime,
  duration_minutes: Type.Integer(),
  starts_at: Timestamp,
  ends_at: Timestamp,
  during: HeldRange,
  status: Status,
  capacity: Type.Integer(),
  source: Type.Union([Type.Literal('online'), Type.Literal('staff'), Type.Literal('sandbox')]),
  customer_notes: NullableString,
  guest_first_name: Type.String(),
  guest_last_name: Type.String(),
  guest_email: NullableString,
  customer: Type.Object({
    first_name: Type.String(),
    last_name: Type.String(),
    phone: Type.String(),
    phone_normalized: Type.String(),
    email: NullableString,
  }),
  /** Whether the caller may rewrite a returning customer's name and email. */
  trusted: Type.Boolean(),
  /** The resources to try, in order. */
  candidates: Type.Array(Uuid),
  /** Confirmation codes to try, in order, should one be taken. */
  codes: Type.Array(Type.String(), { minItems: 1 }),
  deposit: Type.Optional(DepositToPlace),
  /** Who the audit row names, and its action. */
  actor: Type.String(),
  action: Type.String(),
  quota: Type.Optional(Type.Object({ developer_id: Uuid, month: DateString, limit: Type.Integer() })),
  /** The booking's view as far as it is known before the statement runs. */
  view: Type.Unsafe<Omit<BookingView, FilledByPlacement>>(Type.Omit(BookingSchema, FILLED_BY_PLACEMENT)),
});
export type PlaceBookingParams = Static<typeof PlaceBookingParams>;

/** What `slotwise_place_booking` answers: the placed booking (refusals raise). */
export const PlaceBookingResult = View;
export type PlaceBookingResult = Static<typeof PlaceBookingResult>;

/** A reschedule, `slotwise_change_booking`'s `p.move`: the new time, on the first free candidate. */
export const BookingMove = Type.Object({
  /** The resources to try, in order. */
  candidates: Type.Array(Uuid),
  booking_date: DateString,
  start_time: WallTime,
  end_time: WallTime,
  starts_at: Timestamp,
  ends_at: Timestamp,
  during: HeldRange,
  capacity: Type.Integer(),
  /** How long before the start a pending deposit's hold is taken. */
  hold_lead_ms: Type.Integer(),
  /** The fields of the booking's view the new time changes. */
  view: Type.Pick(BookingSchema, ['booking_date', 'start_time', 'end_time', 'starts_at', 'ends_at']),
});
export type BookingMove = Static<typeof BookingMove>;

/** `slotwise_move_booking(p)`: the move (its view is the change's), with the booking it moves and when. */
export const MoveBookingParams = Type.Object({
  ...Type.Omit(BookingMove, ['view']).properties,
  business_id: Uuid,
  booking_id: Uuid,
  updated_at: Type.Optional(Timestamp),
});
export type MoveBookingParams = Static<typeof MoveBookingParams>;

/** What `slotwise_move_booking` answers: the resource it moved to, or null when none was free. */
export const MoveBookingResult = Nullable(Uuid);

/** `slotwise_change_booking(p)`: a staff change of one booking, made on the version read. */
export const ChangeBookingParams = Type.Object({
  business_id: Uuid,
  booking_id: Uuid,
  /** The version of the booking that was read; the change is made on that version only. */
  version: Type.String(),
  /** The booking as it was read. */
  view: View,
  /** Who the audit rows name. */
  actor: Type.String(),
  move: Type.Optional(BookingMove),
  /** Another resource or party size at the same time. */
  place: Type.Optional(Type.Object({ resource_id: Uuid, capacity: Type.Integer(), during: HeldRange })),
  status: Type.Optional(Status),
  /** The status machine's refusal of the status asked for, answered after the placement's own. */
  status_refused: Type.Optional(Type.String()),
  /** The events to send, in order, each with the booking as the change left it. */
  events: Type.Array(Type.String()),
});
export type ChangeBookingParams = Static<typeof ChangeBookingParams>;

/** Why `slotwise_change_booking` refused a change; nothing was written. */
export const ChangeRefused = Type.Union([
  Type.Object({
    refused: Type.Union([
      Type.Literal('slot_taken'),
      Type.Literal('resource_inactive'),
      Type.Literal('not_performed'),
    ]),
  }),
  Type.Object({
    refused: Type.Union([Type.Literal('party_size'), Type.Literal('resource_fit')]),
    min: Type.Integer(),
    max: Type.Integer(),
  }),
]);
export type ChangeRefused = Static<typeof ChangeRefused>;

/** What `slotwise_change_booking` answers: the changed booking, a refusal, or that it was stale. */
export const ChangeBookingResult = Type.Union([
  View,
  ChangeRefused,
  Type.Object({ stale: Type.Literal(true) }, { additionalProperties: false }),
]);
export type ChangeBookingResult = Static<typeof ChangeBookingResult>;
