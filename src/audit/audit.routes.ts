import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { decodeCursor, foreignCursor, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, Timestamp } from '../platform/schemas.ts';

const AuditEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  user_email: Type.String(),
  action: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.Union([Type.String(), Type.Null()]),
  before_state: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  after_state: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  meta: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/audit-logs',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Audit'],
        summary: 'List audit log entries, newest first',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(AuditEntry), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursor(request.query.cursor, 1);
      if (after && !Number.isSafeInteger(after[0])) {
        throw foreignCursor();
      }
      let query = app.db
        .selectFrom('audit_logs')
        .selectAll()
        .where('business_id', '=', businessId)
        .orderBy('seq', 'desc')
        .limit(limit + 1);
      if (after) query = query.where('seq', '<', after[0] as number);
      const rows = await query.execute();
      return toPage(
        rows,
        limit,
        (row) => [row.seq],
        (row) => ({
          id: row.id,
          user_email: row.user_email,
          action: row.action,
          entity_type: row.entity_type,
          entity_id: row.entity_id,
          before_state: row.before_state as Record<string, unknown> | null,
          after_state: row.after_state as Record<string, unknown> | null,
          meta: (row.meta ?? {}) as Record<string, unknown>,
          created_at: row.created_at.toISOString(),
        }),
      );
    },
  );
};
