import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { Uuid } from '../platform/schemas.ts';
import { businessInfo } from './developers.service.ts';

const BusinessInfo = Type.Object({ id: Uuid, name: Type.String(), slug: Type.String() });

export const businessRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/business',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'getBusiness',
        tags: ['Business'],
        summary: 'The business the credential acts on',
        response: { 200: BusinessInfo },
      },
    },
    async (request) => businessInfo(app.db, principalOf(request).businessId),
  );

  app.get(
    '/v1/manage/restaurant',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'getRestaurant',
        tags: ['Business'],
        summary: 'Deprecated: use GET /v1/manage/business',
        deprecated: true,
        response: { 200: BusinessInfo },
      },
    },
    async (request, reply) => {
      reply.header('Deprecation', 'true');
      reply.header('Link', '</v1/manage/business>; rel="successor-version"');
      return businessInfo(app.db, principalOf(request).businessId);
    },
  );
};
