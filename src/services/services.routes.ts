import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { example, IdParams, NonBlankString, Nullable, Uuid } from '../platform/schemas.ts';
import { changeService, createService, deleteService, findServices } from './services.service.ts';
import { ServiceView } from './services.view.ts';

const BufferMinutes = (description: string) =>
  Type.Integer({ format: 'int32', minimum: 0, maximum: 240, description });
const ServiceFields = {
  name: NonBlankString({ maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 2000 })),
  duration_minutes: Type.Integer({
    format: 'int32',
    minimum: 5,
    maximum: 480,
    description: 'length of a booking of it',
  }),
  buffer_before_minutes: BufferMinutes('kept free on the resource before each booking'),
  buffer_after_minutes: BufferMinutes('kept free on the resource after each booking'),
  price_cents: Nullable(
    Type.Integer({ format: 'int32', minimum: 0, maximum: 100_000_000, description: 'EUR cents' }),
  ),
  resource_ids: Type.Array(Uuid, {
    maxItems: 500,
    description: 'resources of the business that may perform it; empty means any',
  }),
  is_active: Type.Boolean({ description: 'inactive services are hidden from the list by default' }),
  requirements: Type.Array(
    Type.Object(
      {
        name: NonBlankString({ maxLength: 60, description: 'what the group is, e.g. Stylist or Chair' }),
        resource_ids: Type.Array(Uuid, {
          minItems: 1,
          maxItems: 50,
          description: 'the group: resources of the business, in no other group',
        }),
        count: Type.Optional(
          Type.Integer({
            format: 'int32',
            minimum: 1,
            maximum: 6,
            default: 1,
            description: 'how many of the group a booking holds',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    {
      maxItems: 4,
      description:
        'resources a booking holds together for its whole span, `count` of each group (one of the stylists and one of the chairs), at most 6 in all; a time is free when every group has enough free resources. Empty (the default): one resource, of `resource_ids`. Not with `resource_ids` or `seats`',
    },
  ),
  seats: Nullable(
    Type.Integer({
      format: 'int32',
      minimum: 2,
      maximum: 500,
      description:
        'a class: the seats of one start of it. Its first booking at a start holds one resource for the class, and later bookings of it at that start join it there, each taking its `capacity` in seats, until the seats are taken; null (the default) for a service each booking holds a resource of alone',
    }),
  ),
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
    seats: Type.Optional(ServiceFields.seats),
    requirements: Type.Optional(ServiceFields.requirements),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(Type.Object(ServiceFields), { additionalProperties: false });

export const serviceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Services'] });

  routes.route('GET', '/v1/manage/services', {
    operationId: 'listServices',
    summary: 'List services by name; inactive ones only with include_inactive=true',
    querystring: Type.Object(
      { ...PageQuery, include_inactive: Type.Optional(Type.Boolean({ default: false })) },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(ServiceView) },
    handler: async (request) =>
      findServices(app.db, pageOf(request), { includeInactive: request.query.include_inactive ?? false }),
  });

  routes.change('POST', '/v1/manage/services', {
    operationId: 'createService',
    summary: 'Create a bookable service (e.g. a haircut or a tasting menu)',
    body: example(CreateBody, { name: 'Dinner', duration_minutes: 90 }),
    response: { 201: ServiceView },
    change: (tx, principal, { body }) => createService(tx, principal, body),
  });

  routes.change('PATCH', '/v1/manage/services/:service_id', {
    operationId: 'updateService',
    summary: 'Change any field of a service; fields left out stay as they are',
    params: IdParams('service_id'),
    body: example(PatchBody, { duration_minutes: 120 }),
    response: { 200: ServiceView },
    change: (tx, principal, { params, body }) => changeService(tx, principal, params.service_id, body),
  });

  routes.remove('/v1/manage/services/:service_id', {
    operationId: 'deleteService',
    summary: 'Delete a service; bookings made for it keep it',
    params: IdParams('service_id'),
    change: (tx, principal, { params }) => deleteService(tx, principal, params.service_id),
  });
};
