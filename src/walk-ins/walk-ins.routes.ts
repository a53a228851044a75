import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { venueWallClock } from '../availability/availability.service.ts';
import { bookingCall, staffBookingOf } from '../bookings/bookings.http.ts';
import { BookingSchema } from '../bookings/bookings.view.ts';
import { book } from '../bookings/new-booking.service.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitReply } from '../platform/idempotency.ts';
import {
  errorResponses,
  example,
  IdParams,
  Nullable,
  PartySize,
  PhoneString,
  Uuid,
} from '../platform/schemas.ts';
import {
  joinQueue,
  leaveQueue,
  notifyWalkIn,
  QUEUE_MAX,
  queuedWalkIn,
  walkInQueue,
} from './walk-ins.service.ts';
import { WalkInSchema } from './walk-ins.view.ts';

const NewWalkInBody = Type.Object(
  {
    capacity: PartySize(),
    first_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    last_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    phone: Type.Optional(Nullable(PhoneString)),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  },
  {
    additionalProperties: false,
    description:
      'Only the party is needed; a phone or an email lets the venue tell the guest their table is ready.',
  },
);

const SeatBody = Type.Object(
  { resource_id: Type.Optional(Uuid) },
  {
    additionalProperties: false,
    description: 'Without `resource_id` the API picks a free table that seats the party.',
  },
);

const WalkInParams = IdParams('walk_in_id');

/** Text given as blank is none. */
const given = (text: string | null | undefined) => (text?.trim() ? text.trim() : null);

export const walkInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['Walk-ins'],
    write: requireBusiness({ scope: 'write', staff: true }),
  });
  routes.route('GET', '/v1/manage/walk-ins', {
    operationId: 'listWalkIns',
    summary: 'The walk-in queue in the order it was joined, each party with its quoted wait',
    response: { 200: Type.Object({ items: Type.Array(WalkInSchema) }) },
    handler: async (request) => ({
      items: await walkInQueue(app.db, app.availability, principalOf(request).businessId, app.clock.now()),
    }),
  });

  routes.change('POST', '/v1/manage/walk-ins', {
    config: { writes: 'bookings' },
    operationId: 'joinWalkInQueue',
    summary: `Add a walk-in party to the end of the queue (at most ${QUEUE_MAX}); answered with its quoted wait`,
    body: example(NewWalkInBody, { capacity: 3, first_name: 'Ada', phone: '+49 30 5550 1234' }),
    response: { 201: Type.Object({ walk_in: WalkInSchema }), ...errorResponses(409) },
    change: async (tx, { businessId }, { body }) => ({
      walk_in: await joinQueue(
        tx,
        app.availability,
        businessId,
        {
          capacity: body.capacity,
          first_name: given(body.first_name),
          last_name: given(body.last_name),
          phone: given(body.phone),
          email: given(body.email),
          notes: given(body.notes),
        },
        app.clock.now(),
      ),
    }),
  });

  routes.change('POST', '/v1/manage/walk-ins/:walk_in_id/notify', {
    config: { writes: 'bookings' },
    operationId: 'notifyWalkIn',
    summary: 'Tell the party its table is ready, by SMS or else by email',
    description:
      'By SMS when the party gave a phone and the venue sends SMS, else by email when it gave an address and the venue sends guest email; 409 when neither reaches it. The message goes through the outbox and its SMS limits.',
    params: WalkInParams,
    response: { 200: Type.Object({ walk_in: WalkInSchema }), ...errorResponses(404, 409) },
    change: async (tx, { businessId }, { params }) => ({
      walk_in: await notifyWalkIn(tx, app.availability, businessId, params.walk_in_id, app.clock.now()),
    }),
  });

  routes.route('POST', '/v1/manage/walk-ins/:walk_in_id/seat', {
    config: { writes: 'bookings' },
    operationId: 'seatWalkIn',
    summary: 'Seat the party now: a walk-in booking, checked in, and the party off the queue, in one step',
    description:
      'The booking is a staff walk-in at the venue’s current minute (`POST /v1/manage/bookings/staff` with `walk_in: true`) with the party’s name and contact; 409 `slot_unavailable` when no table that seats it is free now, and the party stays queued.',
    params: WalkInParams,
    body: example(SeatBody, { resource_id: '0b6f3c2e-4d1a-4c5e-9f8a-2e7d6c5b4a39' }),
    response: { 201: Type.Object({ booking: BookingSchema }), ...errorResponses(404) },
    handler: async (request, reply) => {
      const { businessId } = principalOf(request);
      const id = request.params.walk_in_id;
      const entry = await queuedWalkIn(app.db, businessId, id);
      const call = bookingCall(request, reply, 201, commitReply);
      // Seated as a staff walk-in with the party's name and contact: one rule for both.
      return book(
        app.availability,
        null,
        staffBookingOf(
          {
            walk_in: true,
            capacity: entry.capacity,
            resource_id: request.body?.resource_id,
            first_name: entry.first_name ?? undefined,
            last_name: entry.last_name ?? undefined,
            phone: entry.phone ?? undefined,
            email: entry.email,
            notes: entry.notes,
          },
          await venueWallClock(app.availability, businessId, app.clock.now()),
        ),
        {
          ...call,
          // Two hosts seating the same party: the one that takes it off the queue books it.
          commit: (work) =>
            call.commit(async (tx) => {
              await leaveQueue(tx, businessId, id);
              return work(tx);
            }),
        },
      );
    },
  });

  routes.remove('/v1/manage/walk-ins/:walk_in_id', {
    config: { writes: 'bookings' },
    operationId: 'removeWalkIn',
    summary: 'Take a party off the queue (it left)',
    params: WalkInParams,
    refusals: errorResponses(404),
    change: (tx, { businessId }, { params }) => leaveQueue(tx, businessId, params.walk_in_id),
  });
};
