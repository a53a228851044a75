import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { UNOFFERED_REASONS } from '../engine/index.ts';
import { optionalCredential, principalOf, requireBusiness } from '../platform/access.ts';
import { holdsSecretCredentialOf } from '../platform/auth.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import {
  DateString,
  errorResponses,
  hhmm,
  IdParams,
  Nullable,
  PartySize,
  TimeString,
  Uuid,
} from '../platform/schemas.ts';
import { availabilityOfDay, checkDynamicStart } from './availability.service.ts';
import { DURATION_DEFAULT, Duration, PLAN_AND_MODE } from './availability.view.ts';
import type { PartyChannel } from './day-rules.service.ts';

/** What Fastify names a JSON reply it serializes itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

const SlotSchema = Type.Object(
  {
    time: Type.String(),
    available: Type.Boolean(),
    remaining_resources: Type.Optional(Type.Integer({ format: 'int32' })),
    duration_minutes: Type.Optional(
      Type.Integer({
        format: 'int32',
        description:
          "the booking's length at this start: the turn time of the party in the start's period, else the service's or the venue's length (plain view only)",
      }),
    ),
    seats_left: Type.Optional(
      Type.Integer({
        format: 'int32',
        description:
          'asked with the `service_id` of a class (a service with `seats`): the seats left at the time, those of the class already booked there, else all of them while a resource is free to hold it; 0 when none is. A party larger than it is not offered the time',
      }),
    ),
    missing_requirements: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'with `explain=true`, for a service with `requirements`: the groups (by name) without enough free resources at the time',
      }),
    ),
    resource_id: Type.Optional(Uuid),
    resource_name: Type.Optional(Type.String()),
    combination_id: Type.Optional({
      ...Uuid,
      description:
        'view=resources: the free combination of joined resources this entry offers; resource_name is then its name and resource_ids its resources',
    }),
    resource_ids: Type.Optional(Type.Array(Uuid)),
    period: Nullable(
      Type.Object(
        { id: Uuid, name: Type.String() },
        {
          description:
            "the service period whose grid holds the start (its id and the venue's name for it, e.g. Lunch or Dinner), so a booking page can list each period's times under its name; null on a day without service periods",
        },
      ),
    ),
    reasons: Type.Optional(
      Type.Array(Type.Enum(UNOFFERED_REASONS), {
        description:
          "with `explain=true` only: why the time is not offered, empty when it is. `past` (before now), `notice` (inside minimum notice), `window` (the date is beyond the booking window), `closed` (after the last booking time, a booking that would end after closing, or a time the clocks skip), `blackout`, `outside_period` (outside every service period of the day, or after a period's last start or a booking that would end after it), `pacing` (the period's pacing is full for the party), `class_full` (the class at the time has fewer seats left than the party), `requirement_busy` (a group of the service's `requirements` has too few free resources: `missing_requirements` names it), `no_resource_fits_party` (no active resource allowed by the service and the period takes the party), `all_resources_busy` (bookings hold every fitting resource), `blocked` (none is free, and an external block alone holds at least one; told only to a secret credential of the business: others see `all_resources_busy`)",
      }),
    ),
  },
  { $id: 'Slot' },
);

const AvailabilityResponse = Type.Object({
  business_id: Uuid,
  booking_date: DateString,
  capacity: Type.Integer({ format: 'int32' }),
  slots: Type.Array(SlotSchema),
  reason: Nullable(
    Type.Union(
      [
        Type.Literal('past'),
        Type.Literal('closed'),
        Type.Literal('blackout'),
        Type.Literal('outside_booking_window'),
        Type.Literal('outside_period'),
        Type.Literal('no_free_resource'),
      ],
      {
        description:
          'why `slots` is empty: `past` (before today in the business zone), `closed` (no opening hours that day, or too short for one booking), `blackout`, `outside_booking_window` (beyond the window, or every start inside minimum notice), `outside_period` (open, but the service periods of that weekday leave no start inside its hours), `no_free_resource` (view=resources: no fitting resource free at any start); null when there are slots',
      },
    ),
  ),
});

/** The query of both availability routes; `capacity` is optional on the public one only. */
const dayQueryString = <C extends TSchema>(capacity: C) =>
  Type.Object(
    {
      booking_date: Type.Optional(DateString),
      date: Type.Optional(DateString),
      capacity,
      service_id: Type.Optional(Uuid),
      resource_id: Type.Optional(Uuid),
      view: Type.Optional(Type.Union([Type.Literal('slots'), Type.Literal('resources')])),
      explain: Type.Optional(
        Type.Boolean({
          description:
            'list every grid time of the day, each with its `reasons` (empty when offered); the slots view only (400 with view=resources)',
        }),
      ),
    },
    { additionalProperties: false },
  );
type DayQueryString = Omit<Static<ReturnType<typeof dayQueryString>>, 'capacity'>;

const DynamicStartQuery = Type.Object(
  {
    booking_date: Type.Optional(DateString),
    date: Type.Optional(DateString),
    start_time: TimeString,
    duration_minutes: Type.Optional(Duration),
    capacity: Type.Optional(PartySize({ default: 1 })),
  },
  { additionalProperties: false, description: '`date` is accepted for `booking_date`.' },
);

const StartResponse = Type.Object({
  business_id: Uuid,
  booking_date: DateString,
  start_time: Type.String(),
  duration_minutes: Type.Integer({ format: 'int32' }),
  capacity: Type.Integer({ format: 'int32' }),
  available: Type.Boolean(),
  remaining_resources: Type.Integer({ format: 'int32' }),
  free_resources: Type.Array(Type.String(), {
    description:
      'names of the free active resources that fit the party, in display order, then of the free combinations that take it, tightest first',
  }),
  reason: Nullable(
    Type.Union(
      [
        Type.Literal('outside_operating_hours'),
        Type.Literal('outside_booking_window'),
        Type.Literal('slot_unavailable'),
      ],
      {
        description:
          "why the start cannot be booked: `outside_operating_hours` (closed, blackout, outside hours or the day's service periods, after the last booking time, ending after closing, a time the clocks skip), `outside_booking_window` (past, inside minimum notice, beyond the window), `slot_unavailable` (no fitting resource free); null when available",
      },
    ),
  ),
});

export const availabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Availability'] });

  /**
   * Both routes answer the same question; only where the business and the party size come from
   * differs, and whose question it is (a guest's stays within the online party limit).
   */
  /**
   * The body is the route's own serializer's (`reply.serialize`, the documented schema), made once
   * per cached day: a day asked again is sent as the same bytes without serializing its slots again.
   */
  const answer = async (
    reply: FastifyReply,
    businessId: string,
    q: DayQueryString,
    partySize: number,
    channel: PartyChannel,
    publicReasons: boolean,
  ) => {
    const body = await availabilityOfDay(
      app.availability,
      {
        channel,
        businessId,
        date: q.booking_date ?? q.date,
        partySize,
        serviceId: q.service_id,
        resourceId: q.resource_id,
        perResource: q.view === 'resources',
        explain: q.explain === true,
        publicReasons,
      },
      // fast-json-stringify, the serializer of every route here, makes strings.
      (day) => reply.serialize(day) as string,
    );
    return reply.type(JSON_TYPE).send(body);
  };

  app.get(
    '/v1/availability/:business_id',
    {
      onRequest: optionalCredential,
      config: { publishable: true },
      schema: {
        operationId: 'getAvailability',
        tags: ['Availability'],
        summary: 'Bookable slots of one day (public)',
        description:
          "Slots of the grid inside operating hours, minimum notice and booking window, each with the number of free resources that fit the party and, on a day with service periods, the `period` it belongs to (null otherwise), in time order. `view=resources` lists one entry per free (time, resource) pair instead, with the same `period`. `explain=true` lists every grid time of the day instead (the hours' grid outside service periods, each period's own grid inside it), a time not offered with `available: false`, `remaining_resources: 0` and its `reasons`; `reason` stays that of the plain answer.",
        security: [],
        params: IdParams('business_id'),
        querystring: dayQueryString(Type.Optional(PartySize())),
        response: { 200: AvailabilityResponse },
      },
    },
    (request, reply) =>
      answer(
        reply,
        request.params.business_id,
        request.query,
        request.query.capacity ?? 1,
        'online',
        !holdsSecretCredentialOf(request.principal, request.params.business_id),
      ),
  );

  app.get(
    '/v1/availability/:business_id/days',
    {
      onRequest: optionalCredential,
      config: { publishable: true },
      schema: {
        operationId: 'getAvailabilityDays',
        tags: ['Availability'],
        summary:
          'A summary of each day of a range, up to 62 days (public): what a booking calendar greys out',
        description:
          "`from` defaults to today in the business's zone, `to` to 30 days later. Each day: `available` (a start with a free resource that fits the party), `first_time`, `slot_count` (such starts) and, when none, `reason`: `closed` (no hours, or too short for one booking), `blackout`, `fully_booked` (starts, but nothing free), `outside_booking_window` (past, inside notice or beyond the window) or `outside_period` (open, but the service periods of that weekday leave no start inside its hours).",
        security: [],
        params: IdParams('business_id'),
        querystring: Type.Object(
          {
            from: Type.Optional(DateString),
            to: Type.Optional(DateString),
            capacity: Type.Optional(PartySize()),
            service_id: Type.Optional(Uuid),
            resource_id: Type.Optional(Uuid),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            business_id: Uuid,
            from: DateString,
            to: DateString,
            capacity: Type.Integer({ format: 'int32' }),
            days: Type.Array(
              Type.Object({
                date: DateString,
                available: Type.Boolean(),
                first_time: Nullable(Type.String()),
                slot_count: Type.Integer({ format: 'int32' }),
                reason: Nullable(
                  Type.Union([
                    Type.Literal('closed'),
                    Type.Literal('blackout'),
                    Type.Literal('fully_booked'),
                    Type.Literal('outside_booking_window'),
                    Type.Literal('outside_period'),
                  ]),
                ),
                note: Nullable(
                  Type.String({
                    description:
                      "on a `blackout` day, what the venue tells guests of it (the closed day's `reason`); null otherwise",
                  }),
                ),
              }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const businessId = request.params.business_id;
      const capacity = q.capacity ?? 1;
      const range = await app.availability.daysOf({
        businessId,
        from: q.from,
        to: q.to,
        partySize: capacity,
        serviceId: q.service_id,
        resourceId: q.resource_id,
      });
      return { business_id: businessId, from: range.from, to: range.to, capacity, days: range.days };
    },
  );

  routes.route('GET', '/v1/manage/availability', {
    onRequest: requireBusiness({ scope: 'read', staff: true }),
    operationId: 'getManagedAvailability',
    summary: "Slots of one day for the staff's own business",
    querystring: dayQueryString(PartySize()),
    response: { 200: AvailabilityResponse },
    handler: (request, reply) =>
      answer(reply, principalOf(request).businessId, request.query, request.query.capacity, 'staff', false),
  });

  routes.route('GET', '/v1/dynamic/availability/:business_id', {
    onRequest: requireBusiness({ scope: 'read', staff: true }),
    config: { publishable: true },
    operationId: 'getDynamicAvailability',
    tags: ['Dynamic mode'],
    summary: 'Whether a booking may start at any minute, for any length (dynamic mode)',
    description: `A point check with every rule of a booking but the slot grid. A start that cannot be booked answers 200 with \`available: false\` and the reason. ${PLAN_AND_MODE}`,
    params: IdParams('business_id'),
    querystring: DynamicStartQuery,
    response: { 200: StartResponse, ...errorResponses(400) },
    handler: async (request) => {
      const principal = principalOf(request);
      const q = request.query;
      const date = q.booking_date ?? q.date;
      if (!date) throw invalidField('booking_date', 'is required');
      if (request.params.business_id !== principal.businessId) throw notFound('business');
      const start = {
        date,
        time: hhmm(q.start_time),
        partySize: q.capacity ?? 1,
        durationMinutes: q.duration_minutes ?? DURATION_DEFAULT,
      };
      const answer = await checkDynamicStart(app.availability, principal, start, app.clock.now());
      return {
        business_id: principal.businessId,
        booking_date: date,
        start_time: start.time,
        duration_minutes: start.durationMinutes,
        capacity: start.partySize,
        ...answer,
      };
    },
  });
};
