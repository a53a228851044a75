import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { PARTY_SIZE_MAX } from '../availability/engine/party.ts';
import { customerOf } from '../customers/customers.service.ts';
import { requireBusiness } from '../platform/access.ts';
import { DateString, errorResponses, example, PhoneString, TimeString, Uuid } from '../platform/schemas.ts';
import { bookingCall } from './bookings.routes.ts';
import { BookingSchema } from './bookings.view.ts';
import { book } from './new-booking.service.ts';

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
  capacity: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: PARTY_SIZE_MAX, default: 1 })),
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  phone: PhoneString,
  email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
  notes: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  service_id: Type.Optional(Uuid),
  resource_id: Type.Optional(Uuid),
};

export const ALIASES_ACCEPTED = '`booking_date` and `start_time` are accepted for `date` and `time`.';

const StaffBookingBody = Type.Object(StaffBookingFields, {
  additionalProperties: false,
  description: ALIASES_ACCEPTED,
});

/** A staff booking's body as the booking use case takes it. */
export const staffBookingOf = (body: Static<typeof StaffBookingBody>) => ({
  date: body.date,
  time: body.time,
  partySize: body.capacity ?? 1,
  serviceId: body.service_id,
  resourceId: body.resource_id,
  customer: customerOf(body),
  customerNotes: body.notes,
  source: 'staff' as const,
});

export const staffBookingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/manage/bookings/staff',
    {
      onRequest: requireBusiness({ scope: 'write', staff: true }),
      config: { writes: 'bookings' },
      preValidation: acceptAliases,
      schema: {
        operationId: 'createStaffBooking',
        tags: ['Bookings'],
        summary: 'Staff booking (walk-ins, phone calls): any minute inside hours, auto-assigned resource',
        description:
          'No minimum notice or booking window; always confirmed; 409 `slot_unavailable` when nothing is free.',
        body: example(StaffBookingBody, {
          date: '2026-12-04',
          time: '19:30',
          capacity: 4,
          first_name: 'Grace',
          last_name: 'Hopper',
          phone: '+49 30 5550 1234',
        }),
        response: { 201: Type.Object({ booking: BookingSchema }), ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      book(app.availability, null, staffBookingOf(request.body), bookingCall(request, reply, 201)),
  );
};
