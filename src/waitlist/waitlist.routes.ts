import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { acceptCustomerFlatOrNested } from '../customers/customer-fields.ts';
import { isTrustedCaller } from '../customers/customers.service.ts';
import { optionalCredential, principalOf, requireBusiness } from '../platform/access.ts';
import { commitReply } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { DateString, ErrorResponses, IdParams, Nullable, Uuid } from '../platform/schemas.ts';
import { listEntries, WaitlistEntryView } from './waitlist.queries.ts';
import { joinWaitlist, removeFromWaitlist } from './waitlist.service.ts';

const NewEntryBody = Type.Object(
  {
    customer: Type.Object(
      {
        first_name: Type.String({ minLength: 1, maxLength: 100 }),
        last_name: Type.String({ minLength: 1, maxLength: 100 }),
        phone: Type.String({ minLength: 7, maxLength: 20 }),
        email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
      },
      { additionalProperties: false },
    ),
    preferred_date: Type.Union([DateString, Type.Null()], {
      description: 'the day wanted (not in the past); null for any day',
    }),
    service_id: Type.Optional(Nullable(Uuid)),
    capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 1 })),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  },
  {
    additionalProperties: false,
    description:
      'The customer may also come flat (`first_name`, `last_name`, `phone`, `email` beside the other fields); errors name the fields as `customer.*`.',
  },
);

export const waitlistRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/waitlist/:business_id',
    {
      onRequest: optionalCredential,
      config: { publishable: true },
      preValidation: acceptCustomerFlatOrNested('nested'),
      schema: {
        tags: ['Waitlist'],
        summary: 'Join a business’s waitlist (public); returns the position for the preferred date',
        security: [],
        params: IdParams('business_id'),
        body: NewEntryBody,
        response: {
          201: Type.Object({ waitlist_id: Uuid, position: Type.Integer({ minimum: 1 }) }),
          ...ErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const trusted = isTrustedCaller(request.principal, request.params.business_id);
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
          },
          trusted,
          app.clock.now(),
        ),
      );
    },
  );

  app.get(
    '/v1/manage/waitlist',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Waitlist'],
        summary:
          'List waitlist entries in the order they were added; `preferred_date` keeps that date and the undated entries',
        querystring: Type.Object(
          {
            preferred_date: Type.Optional(DateString),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: pageEnvelope(WaitlistEntryView), ...ErrorResponses },
      },
    },
    async (request) => listEntries(app.db, pageOf(request), request.query.preferred_date),
  );

  app.delete(
    '/v1/manage/waitlist/:entry_id',
    {
      onRequest: requireBusiness({ scope: 'write', staff: true }),
      schema: {
        tags: ['Waitlist'],
        summary: 'Remove a waitlist entry',
        params: IdParams('entry_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 204, (tx) =>
        removeFromWaitlist(tx, principal, request.params.entry_id),
      );
    },
  );
};
