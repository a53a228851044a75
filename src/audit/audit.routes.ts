import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireBusiness } from '../platform/access.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { auditLog } from './audit.ts';
import { AuditEntryView } from './audit.view.ts';

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/audit-logs',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        operationId: 'listAuditLogs',
        tags: ['Audit'],
        summary: 'List audit log entries, newest first',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(AuditEntryView) },
      },
    },
    async (request) => auditLog(app.db, pageOf(request)),
  );
};
