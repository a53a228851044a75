import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { type Executor, withTx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import {
  decodeCursorStrings,
  foreignCursor,
  PageQuery,
  pageEnvelope,
  toPage,
} from '../platform/pagination.ts';
import { ErrorResponses, IdParams, isUuid, Nullable, Uuid } from '../platform/schemas.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import { findService, SERVICE_COLUMNS, ServiceView, toServiceView } from './services.queries.ts';

const BufferMinutes = (description: string) => Type.Integer({ minimum: 0, maximum: 240, description });
const ServiceFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 2000 })),
  duration_minutes: Type.Integer({ minimum: 5, maximum: 480, description: 'length of a booking of it' }),
  buffer_before_minutes: BufferMinutes('kept free on the resource before each booking'),
  buffer_after_minutes: BufferMinutes('kept free on the resource after each booking'),
  price_cents: Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'EUR cents' })),
  resource_ids: Type.Array(Uuid, {
    maxItems: 500,
    description: 'resources of the business that may perform it; empty means any',
  }),
  is_active: Type.Boolean({ description: 'inactive services are hidden from the list by default' }),
};

const CreateBody = Type.Object(
  {
    name: ServiceFields.name,
    duration_minutes: ServiceFields.duration_minutes,
    description: Type.Optional(ServiceFields.description),
    buffer_before_minutes: Type.Optional(ServiceFields.buffer_before_minutes),
    buffer_after_minutes: Type.Optional(ServiceFields.buffer_after_minutes),
    price_cents: Type.Optional(ServiceFields.price_cents),
    resource_ids: Type.Optional(ServiceFields.resource_ids),
    is_active: Type.Optional(ServiceFields.is_active),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(Type.Object(ServiceFields), { additionalProperties: false });

/** The ids once each, after checking every one is a live resource of the business. */
async function checkResourceIds(executor: Executor, businessId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const unknown = await unknownResourceIds(executor, businessId, unique);
  if (unknown.length)
    throw invalidField('resource_ids', `not resources of this business: ${unknown.join(', ')}`);
  return unique;
}

const sameIds = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((id, index) => id === b[index]);

export const serviceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/services',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Services'],
        summary: 'List services by name; inactive ones only with include_inactive=true',
        querystring: Type.Object(
          { ...PageQuery, include_inactive: Type.Optional(Type.Boolean({ default: false })) },
          { additionalProperties: false },
        ),
        response: { 200: pageEnvelope(ServiceView), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 2);
      if (after && !isUuid(after[1]!)) throw foreignCursor();
      let query = app.db
        .selectFrom('services')
        .select(SERVICE_COLUMNS)
        .where('business_id', '=', businessId)
        .where('deleted_at', 'is', null)
        .orderBy('name')
        .orderBy('id')
        .limit(limit + 1);
      if (!request.query.include_inactive) query = query.where('is_active', '=', true);
      if (after)
        query = query.where((eb) => eb(eb.refTuple('name', 'id'), '>', eb.tuple(after[0]!, after[1]!)));
      return toPage(await query.execute(), limit, (row) => [row.name, row.id], toServiceView);
    },
  );

  app.post(
    '/v1/manage/services',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Services'],
        summary: 'Create a bookable service (e.g. a haircut or a tasting menu)',
        body: CreateBody,
        response: { 201: ServiceView, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      const created = await withTx(app.db, async (tx) => {
        const row = await tx
          .insertInto('services')
          .values({
            business_id: principal.businessId,
            name: body.name,
            description: body.description ?? null,
            duration_minutes: body.duration_minutes,
            buffer_before_minutes: body.buffer_before_minutes ?? 0,
            buffer_after_minutes: body.buffer_after_minutes ?? 0,
            price_cents: body.price_cents ?? null,
            resource_ids: await checkResourceIds(tx, principal.businessId, body.resource_ids ?? []),
            is_active: body.is_active ?? true,
          })
          .returning(SERVICE_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'service.created',
          entityType: 'service',
          entityId: row.id,
          after: toServiceView(row),
        });
        return row;
      });
      return reply.status(201).send(toServiceView(created));
    },
  );

  app.patch(
    '/v1/manage/services/:service_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Services'],
        summary: 'Change any field of a service; fields left out stay as they are',
        params: IdParams('service_id'),
        body: PatchBody,
        response: { 200: ServiceView, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const patch = request.body;
      return withTx(app.db, async (tx) => {
        const before = await findService(tx, principal.businessId, request.params.service_id, {
          forUpdate: true,
        });
        if (!before) throw notFound('service');
        const merged = { ...before, ...patch };
        if (patch.resource_ids)
          merged.resource_ids = await checkResourceIds(tx, principal.businessId, patch.resource_ids);
        const changed = (Object.keys(patch) as (keyof typeof patch)[]).filter((field) =>
          field === 'resource_ids'
            ? !sameIds(merged.resource_ids, before.resource_ids)
            : merged[field] !== before[field],
        );
        if (changed.length === 0) return toServiceView(before);
        const after = await tx
          .updateTable('services')
          .set(Object.fromEntries(changed.map((field) => [field, merged[field]])))
          .where('id', '=', before.id)
          .returning(SERVICE_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'service.updated',
          entityType: 'service',
          entityId: before.id,
          before: toServiceView(before),
          after: toServiceView(after),
          meta: { changed },
        });
        return toServiceView(after);
      });
    },
  );

  app.delete(
    '/v1/manage/services/:service_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Services'],
        summary: 'Delete a service; bookings made for it keep it',
        params: IdParams('service_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const service = await findService(tx, principal.businessId, request.params.service_id, {
          forUpdate: true,
        });
        if (!service) throw notFound('service');
        await tx
          .updateTable('services')
          .set({ deleted_at: new Date() })
          .where('id', '=', service.id)
          .execute();
        await recordAudit(tx, principal, {
          action: 'service.deleted',
          entityType: 'service',
          entityId: service.id,
          before: toServiceView(service),
        });
      });
      return reply.status(204).send(null);
    },
  );
};
