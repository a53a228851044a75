import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DepositSchema } from '../bookings/bookings.view.ts';
import { GuestSchema } from '../customers/entry-customer.view.ts';
import { optionalCredential } from '../platform/access.ts';
import { commitReply } from '../platform/idempotency.ts';
import {
  DateString,
  errorResponses,
  example,
  Nullable,
  PartySize,
  PhoneString,
  TimeString,
  Timestamp,
  Uuid,
} from '../platform/schemas.ts';
import {
  cancelGuestBooking,
  changeGuestBooking,
  type GuestContact,
  viewGuestBooking,
} from './guest-bookings.service.ts';

const Contact = {
  email: Type.Optional(
    Type.String({ format: 'email', maxLength: 254, description: 'the email given with the booking' }),
  ),
  phone: Type.Optional({ ...PhoneString, description: 'the phone given with the booking, in any spelling' }),
};
const CONTACT_RULE =
  'The guest proves the booking is theirs with the email or the phone given with it (both must match when both are sent; neither is 422). A wrong code, email or phone is the same 404. Limited to 10 calls a minute per client IP.';

const CodeParams = Type.Object(
  { confirmation_code: Type.String({ minLength: 1, maxLength: 20 }) },
  { additionalProperties: false },
);

const GuestBooking = Type.Object({
  confirmation_code: Type.String(),
  status: Type.String(),
  business: Type.Object({ id: Uuid, name: Type.String(), slug: Type.String(), timezone: Type.String() }),
  booking_date: DateString,
  start_time: Type.String(),
  end_time: Type.String(),
  duration_minutes: Type.Integer({ format: 'int32' }),
  capacity: Type.Integer({ format: 'int32' }),
  service_id: Nullable(Uuid),
  guest: GuestSchema,
  customer_notes: Nullable(Type.String()),
  deposit: Nullable(Type.Omit(DepositSchema, ['processor_payment_id'])),
  starts_at: Timestamp,
  ends_at: Timestamp,
  created_at: Timestamp,
  cancellable_until: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'until when the guest may cancel online (`cancellation_cutoff_hours` before the start); null once the booking is cancelled, checked in or closed',
    }),
  ),
  can_cancel: Type.Boolean({ description: 'whether a cancellation now would be accepted' }),
  changeable_until: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'until when the guest may change the time or party online (`guest_change_cutoff_hours` before the start); null once the booking is cancelled, checked in or closed',
    }),
  ),
  can_change: Type.Boolean({ description: 'whether a change now would be considered' }),
});

const contactOf = (fields: GuestContact): GuestContact => ({ email: fields.email, phone: fields.phone });

/** A guest's own booking, by its confirmation code: without credentials, or with a publishable key. */
export const guestBookingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/public/bookings/:confirmation_code',
    {
      onRequest: optionalCredential,
      // Personal data: never kept by a cache.
      config: { publishable: true, sensitive: true },
      schema: {
        operationId: 'getGuestBooking',
        tags: ['Public'],
        summary: "A guest's own booking, by confirmation code and the guest's email or phone",
        description: `What the guest may see: times in the business's zone, party, the name and email given, the deposit, and whether and until when it may be cancelled online. ${CONTACT_RULE}`,
        security: [],
        params: CodeParams,
        querystring: Type.Object(Contact, { additionalProperties: false }),
        response: { 200: GuestBooking },
      },
    },
    async (request) =>
      viewGuestBooking(
        app.db,
        request.params.confirmation_code,
        contactOf(request.query),
        request.principal?.businessId ?? undefined,
        app.clock.now(),
      ),
  );

  app.post(
    '/v1/public/bookings/:confirmation_code/cancel',
    {
      onRequest: optionalCredential,
      config: { publishable: true, sensitive: true },
      schema: {
        operationId: 'cancelGuestBooking',
        tags: ['Public'],
        summary: 'A guest cancels their own booking, until the business’s cancellation cut-off',
        description: `A \`pending\` or \`confirmed\` booking is cancelled (\`booking.cancelled\` fires; a deposit is left as a staff cancellation leaves it) until \`cancellation_cutoff_hours\` before its start: later, 409 \`cancellation_cutoff_passed\`. Another status is 409 \`conflict\`. ${CONTACT_RULE}`,
        security: [],
        params: CodeParams,
        body: example(Type.Object(Contact, { additionalProperties: false }), { email: 'grace@example.com' }),
        response: { 200: GuestBooking, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const businessId = request.principal?.businessId ?? undefined;
      const contact = contactOf(request.body ?? {});
      return commitReply(request, reply, 200, (tx) =>
        cancelGuestBooking(
          tx,
          app.availability,
          request.params.confirmation_code,
          contact,
          businessId,
          app.clock.now(),
        ),
      );
    },
  );

  app.post(
    '/v1/public/bookings/:confirmation_code/change',
    {
      onRequest: optionalCredential,
      config: { publishable: true, sensitive: true },
      schema: {
        operationId: 'changeGuestBooking',
        tags: ['Public'],
        summary:
          'A guest moves their own booking to another time or party, until the business’s change cut-off',
        description: `A \`pending\` or \`confirmed\` booking moves to the new \`booking_date\`, \`start_time\` and/or \`capacity\` (at least one) under every rule of a new online booking: the grid, notice, window, hours, the online party limit, pacing and a free resource (409 \`slot_unavailable\` and the others a booking gets). One statement: the old time stays held until the new one is taken, and a refusal changes nothing. \`booking.rescheduled\` fires and the guest is emailed the new time when they were emailed the booking. Until \`guest_change_cutoff_hours\` before the start: later, 409 \`change_cutoff_passed\`. With a deposit, a new party (or a new time of a card hold) is 409 \`deposit_would_change\`: the business changes it. ${CONTACT_RULE}`,
        security: [],
        params: CodeParams,
        body: example(
          Type.Object(
            {
              ...Contact,
              booking_date: Type.Optional(DateString),
              start_time: Type.Optional(TimeString),
              capacity: Type.Optional(PartySize()),
            },
            { additionalProperties: false },
          ),
          { email: 'grace@example.com', start_time: '20:00', capacity: 4 },
        ),
        response: { 200: GuestBooking, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const { booking_date, start_time, capacity, ...contact } = request.body;
      return commitReply(request, reply, 200, (tx) =>
        changeGuestBooking(
          tx,
          app.availability,
          request.params.confirmation_code,
          contactOf(contact),
          request.principal?.businessId ?? undefined,
          { booking_date, start_time, capacity },
          app.clock.now(),
        ),
      );
    },
  );
};
