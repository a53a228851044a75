import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { commitReply } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { example, IdParams, NonBlankString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';

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

export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/manage/api-keys',
    {
      config: { sensitive: true },
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'createApiKey',
        tags: ['API keys'],
        summary: 'Create an API key; the full key is returned once',
        body: example(
          Type.Object(
            {
              name: NonBlankString({ maxLength: 100 }),
              scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true })),
              environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
              rate_limit_per_minute: Type.Optional(
                Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
              ),
            },
            { additionalProperties: false },
          ),
          { name: 'Website booking', scopes: ['read', 'write'] },
        ),
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 201, (tx) => createApiKey(tx, principal, request.body));
    },
  );

  app.get(
    '/v1/manage/api-keys',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'listApiKeys',
        tags: ['API keys'],
        summary: 'List API keys (never the full key)',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(ApiKeyView) },
      },
    },
    async (request) => listApiKeys(app.db, pageOf(request)),
  );

  app.delete(
    '/v1/manage/api-keys/:key_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'revokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke an API key (it stays listed with is_active false)',
        params: IdParams('key_id'),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 204, (tx) => revokeApiKey(tx, principal, request.params.key_id));
    },
  );
};
