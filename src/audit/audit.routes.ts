import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { Uuid } from '../platform/schemas.ts';
import { auditLog } from './audit.service.ts';
import { AuditEntryView } from './audit.view.ts';

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Audit'] });

  routes.route('GET', '/v1/manage/audit-logs', {
    operationId: 'listAuditLogs',
    summary: 'List audit log entries, newest first',
    description:
      "`entity_type` (`booking`, `resource`...) and `entity_id` narrow the list to one kind of entity, or to one entity (a booking's history).",
    querystring: Type.Object(
      {
        ...PageQuery,
        entity_type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
        entity_id: Type.Optional(Uuid),
      },
      { additionalProperties: false },
    ),
    response: { 200: pageEnvelope(AuditEntryView) },
    handler: async (request) =>
      auditLog(app.db, principalOf(request), pageOf(request), {
        entityType: request.query.entity_type,
        entityId: request.query.entity_id,
      }),
  });
};
