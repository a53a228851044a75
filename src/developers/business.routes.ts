import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { Uuid } from '../platform/schemas.ts';
import { businessInfo } from './developers.service.ts';

const BusinessInfo = Type.Object({ id: Uuid, name: Type.String(), slug: Type.String() });

export const businessRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Business'] });

  routes.route('GET', '/v1/manage/business', {
    operationId: 'getBusiness',
    summary: 'The business the credential acts on',
    response: { 200: BusinessInfo },
    handler: async (request) => businessInfo(app.db, principalOf(request).businessId),
  });

  routes.route('GET', '/v1/manage/restaurant', {
    operationId: 'getRestaurant',
    summary: 'Deprecated: use GET /v1/manage/business',
    deprecated: true,
    response: { 200: BusinessInfo },
    handler: async (request, reply) => {
      reply.header('Deprecation', 'true');
      reply.header('Link', '</v1/manage/business>; rel="successor-version"');
      return businessInfo(app.db, principalOf(request).businessId);
    },
  });
};
