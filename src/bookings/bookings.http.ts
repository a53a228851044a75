/**
 * What the booking routes of bookings/ and deposits/ share of HTTP: a staff booking's body, its
 * aliases and its mapping, and how a route runs the booking use case as its caller.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { customerOf } from '../customers/customers.service.ts';
import type { WallTime } from '../engine/index.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import type { AreaRoutes } from '../platform/change-route.ts';
import { validationError } from '../platform/errors.ts';
import { commitStatement } from '../platform/idempotency.ts';
import { DateString, PartySize, PhoneString, TimeString, Uuid } from '../platform/schemas.ts';
import type { BookingCall } from './new-booking.service.ts';

const ALIASES: Record<string, string> = { booking_date: 'date', start_time: 'time' };

/** The public booking's field names are accepted too; renamed before validation so errors name `date`/`time`. */
export async function acceptAliases(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const renamed = { ...body };
  for (const [alias, name] of Object.entries(ALIASES)) {
    if (alias in renamed && !(name in renamed)) {
      renamed[name] = renamed[alias];
      delete renamed[alias];
    }
  }
  request.body = renamed;
}

/** The fields of a staff booking's body, with or without a deposit. */
export const StaffBookingFields = {
  date: DateString,
  time: TimeString,
  capacity: Type.Optional(PartySize({ default: 1 })),
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  phone: PhoneString,
  email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
  notes: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  service_id: Type.Optional(Uuid),
  resource_id: Type.Optional(Uuid),
};

export const ALIASES_ACCEPTED = '`booking_date` and `start_time` are accepted for `date` and `time`.';

const WALK_IN =
  "A walk-in (`walk_in: true`) needs only `capacity`: it is booked at the venue's current minute unless `date` and `time` say otherwise, its names and phone are optional (without a phone the guest gets a profile of their own), and it is seated at once (`checked_in`). Any other staff booking needs `date`, `time`, `first_name`, `last_name` and `phone`.";

export const StaffBookingBody = Type.Object(
  {
    ...StaffBookingFields,
    date: Type.Optional(StaffBookingFields.date),
    time: Type.Optional(StaffBookingFields.time),
    first_name: Type.Optional(StaffBookingFields.first_name),
    last_name: Type.Optional(StaffBookingFields.last_name),
    phone: Type.Optional(StaffBookingFields.phone),
    walk_in: Type.Optional(Type.Boolean({ default: false, description: WALK_IN })),
    recurrence: Type.Optional(
      Type.Object(
        {
          every_weeks: Type.Integer({ format: 'int32', minimum: 1, maximum: 4, default: 1 }),
          count: Type.Optional(Type.Integer({ format: 'int32', minimum: 2, maximum: 52 })),
          until: Type.Optional(DateString),
        },
        {
          additionalProperties: false,
          description:
            'A series: this booking and the next ones every `every_weeks` weeks, on the same weekday at the same wall-clock time, `count` of them or each up to `until` (at most 52); answered as `{series_id, bookings, not_placed}`.',
        },
      ),
    ),
    all_or_nothing: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'With `recurrence`: any occurrence that cannot be placed refuses the series (its first refusal, the dates named); otherwise those are listed in `not_placed` and the others placed.',
      }),
    ),
  },
  { additionalProperties: false, description: `${ALIASES_ACCEPTED} ${WALK_IN}` },
);

/** What a staff booking that is not a walk-in must name. */
const SCHEDULED_FIELDS = ['date', 'time', 'first_name', 'last_name', 'phone'] as const;

/**
 * A staff booking's body as the booking use case takes it; a walk-in's missing date and time are
 * `venueNow`, the venue's wall clock as the request came.
 */
export function staffBookingOf(body: Static<typeof StaffBookingBody>, venueNow?: WallTime) {
  const walkIn = body.walk_in === true && venueNow !== undefined;
  const missing = walkIn ? [] : SCHEDULED_FIELDS.filter((field) => body[field] === undefined);
  if (missing.length) {
    throw validationError(missing.map((field) => ({ field, message: 'is required unless walk_in is true' })));
  }
  return {
    date: body.date ?? venueNow!.date,
    time: body.time ?? venueNow!.time,
    partySize: body.capacity ?? 1,
    serviceId: body.service_id,
    resourceId: body.resource_id,
    customer: customerOf({
      first_name: body.first_name ?? '',
      last_name: body.last_name ?? '',
      phone: body.phone ?? '',
      email: body.email,
    }),
    customerNotes: body.notes,
    source: 'staff' as const,
    seated: walkIn,
  };
}

/**
 * How a booking route runs the one booking use case: as its caller, at the app's now, committing
 * the booking with its answer and `status` (`commitReply` when the deposit writes beside it).
 */
export const bookingCall = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: 201,
  commit: typeof commitStatement = commitStatement,
): BookingCall<FastifyReply> => ({
  caller: principalOf(request),
  now: request.server.clock.now(),
  request,
  commit: (work) => commit(request, reply, status, work),
});

/**
 * What the routes of bookings share, whichever area declares them: staff may call them, and what
 * they change is only bookings (their writes announce booking changes, not the business's).
 */
export const BOOKING_ROUTES = {
  read: requireBusiness({ scope: 'read', staff: true }),
  write: requireBusiness({ scope: 'write', staff: true }),
  config: { writes: 'bookings' },
} satisfies Omit<AreaRoutes, 'tags'>;
