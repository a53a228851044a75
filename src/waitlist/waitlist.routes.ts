import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { acceptCustomerFlatOrNested } from '../customers/customer-fields.ts';
import { isTrustedCaller } from '../customers/customers.service.ts';
import { GuestSchema, toGuestView } from '../customers/guest.ts';
import { optionalCredential, principalOf, requireBusiness } from '../platform/access.ts';
import { withTx } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursorStrings,
  foreignCursor,
  PageQuery,
  pageEnvelope,
  toPage,
} from '../platform/pagination.ts';
import {
  DateString,
  ErrorResponses,
  IdParams,
  isUuid,
  Nullable,
  Timestamp,
  Uuid,
} from '../platform/schemas.ts';
import {
  addToWaitlist,
  isCursorTimestamp,
  listWaitlist,
  removeWaitlistEntry,
  type WaitlistPosition,
  type WaitlistRow,
} from './waitlist.queries.ts';

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

const WaitlistEntrySchema = Type.Object({
  id: Uuid,
  customer: Type.Object({
    id: Uuid,
    first_name: Type.String(),
    last_name: Type.String(),
    phone: Type.String(),
    email: Nullable(Type.String()),
  }),
  guest: GuestSchema,
  preferred_date: Nullable(DateString),
  service_id: Nullable(Uuid),
  capacity: Type.Integer(),
  notes: Nullable(Type.String()),
  position: Type.Integer({ description: '1-based among the entries of the same preferred date' }),
  created_at: Timestamp,
});

const toEntryView = (row: WaitlistRow) => ({
  id: row.id,
  customer: {
    id: row.customer_id,
    first_name: row.customer_first_name,
    last_name: row.customer_last_name,
    phone: row.customer_phone,
    email: row.customer_email,
  },
  guest: toGuestView(row),
  preferred_date: row.preferred_date,
  service_id: row.service_id,
  capacity: row.capacity,
  notes: row.notes,
  position: row.position,
  created_at: row.created_at.toISOString(),
});

function decodeWaitlistCursor(cursor: string | undefined): WaitlistPosition | null {
  const values = decodeCursorStrings(cursor, 2);
  if (!values) return null;
  const [createdAt, id] = values as [string, string];
  if (!isCursorTimestamp(createdAt) || !isUuid(id)) {
    throw foreignCursor();
  }
  return { createdAt, id };
}

export const waitlistRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/waitlist/:business_id',
    {
      onRequest: optionalCredential,
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
      const created = await withTx(app.db, (tx) =>
        addToWaitlist(
          tx,
          request.params.business_id,
          {
            customer: body.customer,
            preferred_date: body.preferred_date,
            service_id: body.service_id,
            capacity: body.capacity ?? 1,
            notes: body.notes,
          },
          isTrustedCaller(request.principal),
        ),
      );
      return reply.status(201).send(created);
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
        response: { 200: pageEnvelope(WaitlistEntrySchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await listWaitlist(app.db, businessId, {
        preferredDate: request.query.preferred_date,
        limit,
        after: decodeWaitlistCursor(request.query.cursor),
      });
      return toPage(rows, limit, (row) => [row.cursor_created_at, row.id], toEntryView);
    },
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
      await withTx(app.db, async (tx) => {
        const removed = await removeWaitlistEntry(tx, principal.businessId, request.params.entry_id);
        if (!removed) throw notFound('waitlist entry');
        await recordAudit(tx, principal, {
          action: 'waitlist.removed',
          entityType: 'waitlist_entry',
          entityId: removed.id,
          before: { ...removed, created_at: removed.created_at.toISOString() },
        });
      });
      return reply.status(204).send(null);
    },
  );
};
