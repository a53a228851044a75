import { type Static, Type } from 'typebox';
import { BOOKING_STATUSES, type BookingStatus } from '../engine/status.ts';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { BOOKING_SOURCES, type BookingSource, type DepositStatus } from '../schema.ts';
import { DEPOSIT_STATUSES } from './bookings.model.ts';
import { BookingSchema } from './bookings.view.ts';

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

/** The UTC dates (`YYYY-MM-DD`) a booking's held time touches, as `slotwise_utc_days` counts them. */
const HeldDates = Type.Array(DateString);

/**
 * A booking as a statement leaves it: as `booking_views` shows it (the wire schema the routes
 * answer with), and the UTC dates its held time touches.
 */
const Held = Type.Object({ booking: BookingSchema, held_dates: HeldDates });

const NullableString = Nullable(Type.String());

/**
 * The pacing of the start a booking is placed at, which `slotwise_check_pacing` enforces: the caps
 * of its service period (null: none), and the start as the refusal names it.
 */
export const PacingToCheck = Type.Object({
  starts_at: Timestamp,
  booking_date: DateString,
  start_time: WallTime,
  max_covers: Nullable(Type.Integer({ format: 'int32' })),
  max_bookings: Nullable(Type.Integer({ format: 'int32' })),
  /** A staff booking passes a full start; its audit row's meta says `pacing_overridden`. */
  override: Type.Boolean(),
});
export type PacingToCheck = Static<typeof PacingToCheck>;

/**
 * A booking that takes seats of a class, which `slotwise_take_seats` counts: the class's seats, and
 * its start as the refusal names it.
 */
export const ClassToJoin = Type.Object({
  seats: Type.Integer({ format: 'int32' }),
  starts_at: Timestamp,
  booking_date: DateString,
  start_time: WallTime,
});
export type ClassToJoin = Static<typeof ClassToJoin>;

/**
 * The sets of resources to try, in order: one resource, or the tables of a combination (the first
 * is the booking's `resource_id`). A set is taken only when every resource of it is free.
 */
const Candidates = Type.Array(Type.Array(Uuid, { minItems: 1, maxItems: 6 }));

/** The deposit a booking is placed with, as the `deposits` row takes it. */
export const DepositToPlace = Type.Object({
  type: Type.Union([Type.Literal('charge'), Type.Literal('authorization_hold')]),
  status: Type.Unsafe<DepositStatus>(Type.String({ enum: DEPOSIT_STATUSES })),
  amount_cents: Type.Integer({ format: 'int32' }),
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
  duration_minutes: Type.Integer({ format: 'int32' }),
  starts_at: Timestamp,
  ends_at: Timestamp,
  during: HeldRange,
  status: Status,
  capacity: Type.Integer({ format: 'int32' }),
  source: Type.Unsafe<BookingSource>(Type.String({ enum: BOOKING_SOURCES })),
  partner_id: Type.Optional(Uuid),
  customer_notes: NullableString,
  guest_first_name: Type.String(),
  guest_last_name: Type.String(),
  guest_email: NullableString,
  customer: Type.Object({
    first_name: Type.String(),
    last_name: Type.String(),
    phone: Type.String(),
    /** Null for a guest without a phone: a profile of their own (slotwise_upsert_customer). */
    phone_normalized: NullableString,
    email: NullableString,
  }),
  /** Whether the caller may rewrite a returning customer's name and email. */
  trusted: Type.Boolean(),
  /** The guest ticked the venue's news and offers on the booking form: their profile keeps the consent. */
  marketing_opt_in: Type.Optional(Type.Literal(true)),
  candidates: Candidates,
  /** Absent or null when no period's pacing caps the start. */
  pacing: Type.Optional(Nullable(PacingToCheck)),
  /** The class the booking takes seats of; absent or null for a service that is no class. */
  class: Type.Optional(Nullable(ClassToJoin)),
  /** Re-seating: other bookings moved to other tables at their times first, in this order (planReseating). */
  reseat: Type.Optional(
    Type.Array(Type.Object({ booking_id: Uuid, from_resource: Uuid, to_resource: Uuid }), { maxItems: 3 }),
  ),
  /** Confirmation codes to try, in order, should one be taken. */
  codes: Type.Array(Type.String(), { minItems: 1 }),
  deposit: Type.Optional(DepositToPlace),
  /** Who the audit row names, and its action. */
  actor: Type.String(),
  action: Type.String(),
  /** The staff series the booking is an occurrence of. */
  series_id: Type.Optional(Uuid),
  /** The developer's month the booking is counted in, below the plan's quota. */
  quota: Type.Optional(
    Type.Object({
      developer_id: Uuid,
      month: DateString,
      limit: Type.Integer({ format: 'int32' }),
      plan_id: Type.String(),
    }),
  ),
  /** A sandbox business's month the booking is counted in, below its cap. */
  sandbox_cap: Type.Optional(Type.Object({ month: DateString, cap: Type.Integer({ format: 'int32' }) })),
});
export type PlaceBookingParams = Static<typeof PlaceBookingParams>;

/** What `slotwise_place_booking` answers: the placed booking (refusals raise). */
export const PlaceBookingResult = Held;
export type PlaceBookingResult = Static<typeof PlaceBookingResult>;

/** A reschedule, `slotwise_change_booking`'s `p.move`: the new time, on the first free candidate. */
export const BookingMove = Type.Object({
  candidates: Candidates,
  booking_date: DateString,
  start_time: WallTime,
  end_time: WallTime,
  starts_at: Timestamp,
  ends_at: Timestamp,
  duration_minutes: Type.Integer({ format: 'int32' }),
  during: HeldRange,
  capacity: Type.Integer({ format: 'int32' }),
  /** How long before the start a pending deposit's hold is taken. */
  hold_lead_ms: Type.Integer({ format: 'int32' }),
  /** Absent or null when no period's pacing caps the new start; the booking does not count against itself. */
  pacing: Type.Optional(Nullable(PacingToCheck)),
  /** The class at the new start the booking takes seats of; absent or null for no class. */
  class: Type.Optional(Nullable(ClassToJoin)),
});
export type BookingMove = Static<typeof BookingMove>;

/** `slotwise_move_booking(p)`: the move, with the booking it moves and when. */
export const MoveBookingParams = Type.Object({
  ...BookingMove.properties,
  business_id: Uuid,
  booking_id: Uuid,
  updated_at: Type.Optional(Timestamp),
});
export type MoveBookingParams = Static<typeof MoveBookingParams>;

/** What `slotwise_move_booking` answers: the resource it moved to (SWB09 raised when none was free). */
export const MoveBookingResult = Uuid;

/** `slotwise_change_booking(p)`: a staff change of one booking, made on the version read. */
export const ChangeBookingParams = Type.Object({
  business_id: Uuid,
  booking_id: Uuid,
  /** The version of the booking that was read; the change is made on that version only. */
  version: Type.String(),
  /** Who the audit rows name. */
  actor: Type.String(),
  move: Type.Optional(BookingMove),
  /** Another resource or party size at the same time. */
  place: Type.Optional(
    Type.Object({
      resource_id: Uuid,
      capacity: Type.Integer({ format: 'int32' }),
      during: HeldRange,
      /** The start's pacing when the party grows. */
      pacing: Type.Optional(Nullable(PacingToCheck)),
    }),
  ),
  status: Type.Optional(Status),
  /** Keep the booking on its table, or let re-seating move it again. */
  table_locked: Type.Optional(Type.Boolean()),
  /** The status machine's refusal of the status asked for, answered after the placement's own. */
  status_refused: Type.Optional(Type.String()),
  /** A booking cancelled before its deposit was paid gives its month's unit back. */
  give_unit_back: Type.Optional(Type.Boolean()),
  /** The events to send, in order, each with the booking as the change left it. */
  events: Type.Array(Type.String()),
});
export type ChangeBookingParams = Static<typeof ChangeBookingParams>;

/** What `slotwise_change_booking` answers: the changed booking, or that it was stale (refusals raise). */
export const ChangeBookingResult = Type.Union([
  Held,
  Type.Object({ stale: Type.Literal(true) }, { additionalProperties: false }),
]);
export type ChangeBookingResult = Static<typeof ChangeBookingResult>;
