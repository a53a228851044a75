import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
import { example, IdParams, NonBlankString, Uuid } from '../platform/schemas.ts';
import {
  changeCombination,
  createCombination,
  deleteCombination,
  findCombinations,
} from './combinations.service.ts';
import { CombinationView } from './combinations.view.ts';
import { SeatRangeFields } from './resources.view.ts';

const CombinationFields = {
  name: NonBlankString({ maxLength: 60 }),
  resource_ids: Type.Array(Uuid, {
    minItems: 2,
    maxItems: 6,
    description:
      'the joined resources: 2 to 6 distinct active resources of the business; the first is the one a booking on it shows as resource_id',
  }),
  ...SeatRangeFields,
  is_active: Type.Boolean({ description: 'false stops offering it at once, without deleting it' }),
};

const CreateBody = Type.Object(
  { ...CombinationFields, is_active: Type.Optional(CombinationFields.is_active) },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(Type.Object(CombinationFields), { additionalProperties: false });

export const combinationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Resources'] });

  routes.list('/v1/manage/combinations', {
    operationId: 'listCombinations',
    summary: 'List table combinations by name, inactive ones included',
    item: CombinationView,
    list: (request) => findCombinations(app.db, pageOf(request)),
  });

  routes.change('POST', '/v1/manage/combinations', {
    operationId: 'createCombination',
    summary: 'Join resources for larger parties (tables 4 and 5 seat ten)',
    description:
      'Offered after single resources, only while every resource of it is active; a booking on it holds them all.',
    body: example(CreateBody, {
      name: 'Tables 4 + 5',
      resource_ids: ['5b2d4c9e-8f1a-4b7c-9d3e-2a1f0e9c8b7a', '9c8b7a6f-5e4d-4c3b-8a2f-1e0d9c8b7a6f'],
      capacity_min: 7,
      capacity_max: 10,
    }),
    response: { 201: CombinationView },
    change: (tx, principal, { body }) => createCombination(tx, principal, body),
  });

  routes.change('PATCH', '/v1/manage/combinations/:combination_id', {
    operationId: 'updateCombination',
    summary: 'Change any field of a combination; is_active false stops offering it',
    params: IdParams('combination_id'),
    body: example(PatchBody, { capacity_max: 12 }),
    response: { 200: CombinationView },
    change: (tx, principal, { params, body }) =>
      changeCombination(tx, principal, params.combination_id, body),
  });

  routes.remove('/v1/manage/combinations/:combination_id', {
    operationId: 'deleteCombination',
    summary: 'Delete a combination',
    description: 'Bookings made on it keep holding its resources.',
    params: IdParams('combination_id'),
    change: (tx, principal, { params }) => deleteCombination(tx, principal, params.combination_id),
  });
};
