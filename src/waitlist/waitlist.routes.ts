import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { acceptCustomerFlatOrNested } from '../customers/customer-fields.http.ts';
import { optionalCredential, requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitReply } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import {
  DateString,
  example,
  IdParams,
  Nullable,
  PartySize,
  PhoneString,
  TimeString,
  Uuid,
} from '../platform/schemas.ts';
import { findEntries, joinWaitlist, removeFromWaitlist } from './waitlist.service.ts';
import { WaitlistEntryView } from './waitlist.view.ts';

const NewEntryBody = Type.Object(
  {
    customer: Type.Object(
      {
        first_name: Type.String({ minLength: 1, maxLength: 100 }),
        last_name: Type.String({ minLength: 1, maxLength: 100 }),
        phone: PhoneString,
        email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
      },
      { additionalProperties: false },
    ),
    preferred_date: Type.Union([DateString, Type.Null()], {
      description: 'the day wanted (not in the past); null for any day',
    }),
    service_id: Type.Optional(Nullable(Uuid)),
    capacity: Type.Optional(PartySize({ default: 1 })),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    preferred_time_from: Type.Optional(Nullable(TimeString)),
    preferred_time_to: Type.Optional(Nullable(TimeString)),
  },
  {
    additionalProperties: false,
    description:
      'The customer may also come flat (`first_name`, `last_name`, `phone`, `email` beside the other fields); errors name the fields as `customer.*`. `preferred_time_from` and `preferred_time_to` (venue time, both or neither, from before to) bound the start times a waitlist offer may propose, both included.',
  },
);

export const waitlistRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['Waitlist'],
    write: requireBusiness({ scope: 'write', staff: true }),
  });
  app.post(
    '/v1/waitlist/:business_id',
    {
      onRequest: optionalCredential,
      config: { publishable: true },
      preValidation: acceptCustomerFlatOrNested('nested'),
      schema: {
        operationId: 'joinWaitlist',
        tags: ['Waitlist'],
        summary: 'Join a business’s waitlist (public); returns the position for the preferred date',
        security: [],
        params: IdParams('business_id'),
        body: example(NewEntryBody, {
          customer: {
            first_name: 'Grace',
            last_name: 'Hopper',
            email: 'grace@example.com',
            phone: '+49 30 5550 1234',
          },
          preferred_date: '2026-12-04',
          capacity: 2,
        }),
        response: {
          201: Type.Object({ waitlist_id: Uuid, position: Type.Integer({ format: 'int32', minimum: 1 }) }),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      return commitReply(request, reply, 201, (tx) =>
        joinWaitlist(
          tx,
          request.params.business_id,
          {
            customer: body.customer,
            preferred_date: body.preferred_date,
            service_id: body.service_id,
            capacity: body.capacity ?? 1,
            notes: body.notes,
            preferred_time_from: body.preferred_time_from ?? null,
            preferred_time_to: body.preferred_time_to ?? null,
          },
          request.principal,
          app.clock.now(),
        ),
      );
    },
  );

  routes.route('GET', '/v1/manage/waitlist', {
    operationId: 'listWaitlist',
    summary:
      'List waitlist entries in the order they were added; `preferred_date` keeps that date and the undated entries',
    querystring: Type.Object(
      {
        preferred_date: Type.Optional(DateString),
        ...PageQuery,
      },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(WaitlistEntryView) },
    handler: async (request) => findEntries(app.db, pageOf(request), request.query.preferred_date),
  });

  routes.remove('/v1/manage/waitlist/:entry_id', {
    operationId: 'removeWaitlistEntry',
    summary: 'Remove a waitlist entry',
    params: IdParams('entry_id'),
    change: (tx, principal, { params }) => removeFromWaitlist(tx, principal, params.entry_id),
  });
};
