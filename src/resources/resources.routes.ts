import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
import { errorResponses, example, IdParams, NonBlankString, Nullable } from '../platform/schemas.ts';
import { changeResource, createResource, deleteResource, findResources } from './resources.service.ts';
import { ResourceView, SeatRangeFields } from './resources.view.ts';

const ResourceFields = {
  name: NonBlankString({ maxLength: 100 }),
  resource_type: Nullable(Type.String({ maxLength: 50, description: 'e.g. table, staff, room' })),
  ...SeatRangeFields,
  section: Nullable(Type.String({ maxLength: 100, description: 'grouping label, e.g. Terrace' })),
  display_order: Type.Integer({ format: 'int32', minimum: 0, maximum: 1_000_000 }),
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

export const resourceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Resources'] });

  routes.list('/v1/manage/resources', {
    operationId: 'listResources',
    summary: 'List resources by display order, inactive ones included',
    item: ResourceView,
    list: (request) => findResources(app.db, pageOf(request)),
  });

  routes.change('POST', '/v1/manage/resources', {
    operationId: 'createResource',
    summary: 'Create a resource (a table, a stylist, a room)',
    body: example(CreateBody, {
      name: 'Table 4',
      resource_type: 'table',
      capacity_min: 2,
      capacity_max: 4,
      section: 'Terrace',
    }),
    response: { 201: ResourceView },
    change: (tx, principal, { body }) => createResource(tx, principal, body),
  });

  routes.change('PATCH', '/v1/manage/resources/:resource_id', {
    operationId: 'updateResource',
    summary: 'Change any field of a resource; is_active false hides it from availability',
    params: IdParams('resource_id'),
    body: example(PatchBody, { capacity_max: 6, is_active: true }),
    response: { 200: ResourceView },
    change: (tx, principal, { params, body }) => changeResource(tx, principal, params.resource_id, body),
  });

  routes.remove('/v1/manage/resources/:resource_id', {
    operationId: 'deleteResource',
    summary: 'Delete a resource; refused with 409 while bookings to come hold it',
    description: 'Past bookings keep showing the resource they were made on.',
    params: IdParams('resource_id'),
    refusals: errorResponses(409),
    change: (tx, principal, { params }) => deleteResource(tx, principal, params.resource_id),
  });
};
