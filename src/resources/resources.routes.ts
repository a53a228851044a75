import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { withTx } from '../platform/db.ts';
import { conflict, invalidField, notFound } from '../platform/errors.ts';
import { decodeCursor, foreignCursor, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, IdParams, isUuid, Nullable } from '../platform/schemas.ts';
import {
  hasUpcomingBookings,
  lockResource,
  nextDisplayOrder,
  RESOURCE_COLUMNS,
  ResourceView,
  toResourceView,
} from './resources.queries.ts';

const Capacity = (description: string) => Type.Integer({ minimum: 1, maximum: 50, description });
const ResourceFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  resource_type: Nullable(Type.String({ maxLength: 50, description: 'e.g. table, staff, room' })),
  capacity_min: Capacity('smallest party it takes'),
  capacity_max: Capacity('largest party it takes'),
  section: Nullable(Type.String({ maxLength: 100, description: 'grouping label, e.g. Terrace' })),
  display_order: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  is_active: Type.Boolean({ description: 'false hides it from availability at once, without deleting it' }),
};

const CreateBody = Type.Object(
  {
    name: ResourceFields.name,
    resource_type: Type.Optional(ResourceFields.resource_type),
    capacity_min: ResourceFields.capacity_min,
    capacity_max: ResourceFields.capacity_max,
    section: Type.Optional(ResourceFields.section),
    display_order: Type.Optional({
      ...ResourceFields.display_order,
      description: 'defaults to after the last one',
    }),
    is_active: Type.Optional(ResourceFields.is_active),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(Type.Object(ResourceFields), { additionalProperties: false });

function checkCapacityRange(min: number, max: number, changedMax: boolean): void {
  if (min <= max) return;
  throw changedMax
    ? invalidField('capacity_max', `must not be below capacity_min (${min})`)
    : invalidField('capacity_min', `must not exceed capacity_max (${max})`);
}

export const resourceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/resources',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Resources'],
        summary: 'List resources by display order, inactive ones included',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(ResourceView), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursor(request.query.cursor, 2);
      const afterOrder = after?.[0];
      const inRange =
        typeof afterOrder === 'number' &&
        Number.isInteger(afterOrder) &&
        afterOrder >= 0 &&
        afterOrder <= 2_147_483_647;
      if (after && !(inRange && typeof after[1] === 'string' && isUuid(after[1]))) {
        throw foreignCursor();
      }
      let query = app.db
        .selectFrom('resources')
        .select(RESOURCE_COLUMNS)
        .where('business_id', '=', businessId)
        .where('deleted_at', 'is', null)
        .orderBy('display_order')
        .orderBy('id')
        .limit(limit + 1);
      if (after) {
        const [order, id] = after as [number, string];
        query = query.where((eb) => eb(eb.refTuple('display_order', 'id'), '>', eb.tuple(order, id)));
      }
      return toPage(await query.execute(), limit, (row) => [row.display_order, row.id], toResourceView);
    },
  );

  app.post(
    '/v1/manage/resources',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Resources'],
        summary: 'Create a resource (a table, a stylist, a room)',
        body: CreateBody,
        response: { 201: ResourceView, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      checkCapacityRange(body.capacity_min, body.capacity_max, false);
      const created = await withTx(app.db, async (tx) => {
        const row = await tx
          .insertInto('resources')
          .values({
            business_id: principal.businessId,
            name: body.name,
            resource_type: body.resource_type ?? null,
            capacity_min: body.capacity_min,
            capacity_max: body.capacity_max,
            section: body.section ?? null,
            display_order: body.display_order ?? (await nextDisplayOrder(tx, principal.businessId)),
            is_active: body.is_active ?? true,
          })
          .returning(RESOURCE_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'resource.created',
          entityType: 'resource',
          entityId: row.id,
          after: toResourceView(row),
        });
        return row;
      });
      return reply.status(201).send(toResourceView(created));
    },
  );

  app.patch(
    '/v1/manage/resources/:resource_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Resources'],
        summary: 'Change any field of a resource; is_active false hides it from availability',
        params: IdParams('resource_id'),
        body: PatchBody,
        response: { 200: ResourceView, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const patch = request.body;
      return withTx(app.db, async (tx) => {
        const before = await lockResource(tx, principal.businessId, request.params.resource_id);
        if (!before) throw notFound('resource');
        const merged = { ...before, ...patch };
        checkCapacityRange(merged.capacity_min, merged.capacity_max, patch.capacity_min === undefined);
        const changed = (Object.keys(patch) as (keyof typeof patch)[]).filter(
          (field) => merged[field] !== before[field],
        );
        if (changed.length === 0) return toResourceView(before);
        const after = await tx
          .updateTable('resources')
          .set(Object.fromEntries(changed.map((field) => [field, merged[field]])))
          .where('id', '=', before.id)
          .returning(RESOURCE_COLUMNS)
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: after.is_active !== before.is_active ? 'resource.toggled' : 'resource.updated',
          entityType: 'resource',
          entityId: before.id,
          before: toResourceView(before),
          after: toResourceView(after),
          meta: { changed },
        });
        return toResourceView(after);
      });
    },
  );

  app.delete(
    '/v1/manage/resources/:resource_id',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Resources'],
        summary: 'Delete a resource; refused with 409 while bookings to come hold it',
        description: 'Past bookings keep showing the resource they were made on.',
        params: IdParams('resource_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const resource = await lockResource(tx, principal.businessId, request.params.resource_id);
        if (!resource) throw notFound('resource');
        if (await hasUpcomingBookings(tx, resource.id)) {
          throw conflict('the resource has upcoming bookings; cancel or move them first, or deactivate it');
        }
        await tx
          .updateTable('resources')
          .set({ deleted_at: new Date() })
          .where('id', '=', resource.id)
          .execute();
        await recordAudit(tx, principal, {
          action: 'resource.deleted',
          entityType: 'resource',
          entityId: resource.id,
          before: toResourceView(resource),
        });
      });
      return reply.status(204).send(null);
    },
  );
};
