import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  bookingCall,
  CUSTOMER_FLAT_OR_NESTED,
  DEPOSIT_RULES,
  OnlineBookingFields,
} from '../bookings/bookings.routes.ts';
import { CreatedBookingSchema } from '../bookings/bookings.view.ts';
import { book } from '../bookings/new-booking.service.ts';
import { acceptCustomerFlatOrNested } from '../customers/customer-fields.ts';
import { customerOf } from '../customers/customers.service.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import {
  DateString,
  errorResponses,
  example,
  hhmm,
  IdParams,
  Nullable,
  TimeString,
  Uuid,
} from '../platform/schemas.ts';
import { checkDynamicStart } from './dynamic.service.ts';

const DURATION_DEFAULT = 60;
const Duration = Type.Integer({
  minimum: 5,
  maximum: 480,
  default: DURATION_DEFAULT,
  description: 'minutes, 5-480',
});
const PartySize = Type.Integer({ minimum: 1, maximum: 50 });

const PLAN_AND_MODE =
  'Top plan only (402 `plan_upgrade_required` otherwise; sandbox businesses have it); a business in `scheduled` mode answers 400.';

const StartQuery = Type.Object(
  {
    booking_date: Type.Optional(DateString),
    date: Type.Optional(DateString),
    start_time: TimeString,
    duration_minutes: Type.Optional(Duration),
    capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 1 })),
  },
  { additionalProperties: false, description: '`date` is accepted for `booking_date`.' },
);

const StartResponse = Type.Object({
  business_id: Uuid,
  booking_date: DateString,
  start_time: Type.String(),
  duration_minutes: Type.Integer(),
  capacity: Type.Integer(),
  available: Type.Boolean(),
  remaining_resources: Type.Integer(),
  free_resources: Type.Array(Type.String(), {
    description: 'names of the free active resources that fit the party, in display order',
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
          'why the start cannot be booked: `outside_operating_hours` (closed, blackout, outside hours, after the last booking time, ending after closing, a time the clocks skip), `outside_booking_window` (past, inside minimum notice, beyond the window), `slot_unavailable` (no fitting resource free); null when available',
      },
    ),
  ),
});

const DynamicBookingBody = Type.Object(
  {
    ...OnlineBookingFields,
    duration_minutes: Type.Optional(Duration),
    capacity: PartySize,
  },
  { additionalProperties: false, description: CUSTOMER_FLAT_OR_NESTED },
);

export const dynamicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/dynamic/availability/:business_id',
    {
      onRequest: requireBusiness({ scope: 'read', staff: true }),
      config: { publishable: true },
      schema: {
        operationId: 'getDynamicAvailability',
        tags: ['Dynamic mode'],
        summary: 'Whether a booking may start at any minute, for any length (dynamic mode)',
        description: `A point check with every rule of a booking but the slot grid. A start that cannot be booked answers 200 with \`available: false\` and the reason. ${PLAN_AND_MODE}`,
        params: IdParams('business_id'),
        querystring: StartQuery,
        response: { 200: StartResponse, ...errorResponses(400) },
      },
    },
    async (request) => {
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
  );

  app.post(
    '/v1/dynamic/bookings',
    {
      onRequest: requireBusiness({ scope: 'write', staff: true }),
      preValidation: acceptCustomerFlatOrNested('flat'),
      // With a deposit the answer carries the payment's client secret.
      config: { sensitive: true, publishable: true, writes: 'bookings' },
      schema: {
        operationId: 'createDynamicBooking',
        tags: ['Dynamic mode'],
        summary: 'Book any start minute for any length (dynamic mode)',
        description: `Every rule is re-checked in one transaction and the best-fitting free resource taken; when none is free, 409 \`slot_unavailable\` with \`detail\` beside \`error\`. ${PLAN_AND_MODE} ${DEPOSIT_RULES}`,
        body: example(DynamicBookingBody, {
          business_id: '0b6f3e62-5d1c-4c55-9a43-0f4c2a1b7e10',
          booking_date: '2026-12-04',
          start_time: '19:10',
          duration_minutes: 45,
          capacity: 2,
          first_name: 'Grace',
          last_name: 'Hopper',
          email: 'grace@example.com',
          phone: '+49 30 5550 1234',
        }),
        response: { 201: Type.Object({ booking: CreatedBookingSchema }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      return book(
        app.availability,
        app.publicBookingDeposits,
        {
          businessId: body.business_id,
          date: body.booking_date,
          time: body.start_time,
          durationMinutes: body.duration_minutes ?? DURATION_DEFAULT,
          partySize: body.capacity,
          customer: customerOf(body),
          customerNotes: body.customer_notes,
          source: 'online',
          mode: 'dynamic',
        },
        bookingCall(request, reply, 201),
      );
    },
  );
};
