import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import type { Scope } from '../platform/auth.ts';
import { withTx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import { afterRow, decodeCursorStrings, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, IdParams, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { insertApiKey } from './developers.service.ts';

const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);

const ApiKeyView = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'first 12 characters of the key' }),
  scopes: Type.Array(ScopeSchema),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  rate_limit_per_minute: Nullable(Type.Integer()),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
});
const CreatedApiKey = Type.Object({
  ...ApiKeyView.properties,
  key: Type.String({ description: 'shown once' }),
});

type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  environment: 'live' | 'test';
  rate_limit_per_minute: number | null;
  is_active: boolean;
  created_at: Date;
  last_used_at: Date | null;
};
const toView = (row: KeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes as Scope[],
  environment: row.environment,
  rate_limit_per_minute: row.rate_limit_per_minute,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
});
const VIEW_COLUMNS = [
  'id',
  'name',
  'prefix',
  'scopes',
  'environment',
  'rate_limit_per_minute',
  'is_active',
  'created_at',
  'last_used_at',
] as const;

export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/manage/api-keys',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['API keys'],
        summary: 'Create an API key; the full key is returned once',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true })),
            environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
            rate_limit_per_minute: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedApiKey, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      const created = await withTx(app.db, async (tx) => {
        const business = await tx
          .selectFrom('businesses')
          .select('is_dev')
          .where('id', '=', principal.businessId)
          .executeTakeFirstOrThrow();
        const environment = body.environment ?? (business.is_dev ? 'test' : 'live');
        if (business.is_dev && environment === 'live') {
          throw invalidField('environment', 'a sandbox business has test keys only');
        }
        const result = await insertApiKey(tx, {
          businessId: principal.businessId,
          name: body.name,
          scopes: body.scopes ?? ['read', 'write'],
          environment,
          rateLimitPerMinute: body.rate_limit_per_minute ?? null,
        });
        await recordAudit(tx, principal, {
          action: 'api_key.created',
          entityType: 'api_key',
          entityId: result.row.id,
          after: toView(result.row),
        });
        return result;
      });
      return reply.status(201).send({ ...toView(created.row), key: created.key });
    },
  );

  app.get(
    '/v1/manage/api-keys',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['API keys'],
        summary: 'List API keys (never the full key)',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(ApiKeyView), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 1);
      let query = app.db
        .selectFrom('api_keys')
        .select(VIEW_COLUMNS)
        .where('business_id', '=', businessId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1);
      if (after) query = query.where(afterRow('api_keys', after[0]!));
      return toPage(await query.execute(), limit, (row) => [row.id], toView);
    },
  );

  app.delete(
    '/v1/manage/api-keys/:key_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['API keys'],
        summary: 'Revoke an API key (it stays listed with is_active false)',
        params: IdParams('key_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const revoked = await tx
          .updateTable('api_keys')
          .set({ is_active: false })
          .where('id', '=', request.params.key_id)
          .where('business_id', '=', principal.businessId)
          .returning(VIEW_COLUMNS)
          .executeTakeFirst();
        if (!revoked) throw notFound('API key');
        await recordAudit(tx, principal, {
          action: 'api_key.revoked',
          entityType: 'api_key',
          entityId: revoked.id,
          after: toView(revoked),
        });
      });
      return reply.status(204).send(null);
    },
  );
};
