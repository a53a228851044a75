import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireBusiness } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
import {
  errorResponses,
  example,
  IdParams,
  NonBlankString,
  Nullable,
  Timestamp,
  Uuid,
} from '../platform/schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from './api-keys.service.ts';

const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);
const KeyType = Type.Union([Type.Literal('secret'), Type.Literal('publishable')], {
  description:
    '`secret` (`svc_live_`/`svc_test_`): for servers, with scopes. `publishable` (`svc_pk_live_`/`svc_pk_test_`): safe in a web page, used from its `allowed_origins` only, and may only read availability and public data, book, join the waitlist and manage a guest booking',
});

const ApiKeyView = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: KeyType,
  prefix: Type.String({ description: 'first 12 characters of a secret key, 16 of a publishable one' }),
  key: Nullable(
    Type.String({ description: 'a publishable key in full (it is no secret); null for a secret key' }),
  ),
  scopes: Type.Array(ScopeSchema, { description: 'empty for a publishable key' }),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  allowed_origins: Type.Array(Type.String(), {
    description: 'origins a publishable key may be used from; empty for a secret key',
  }),
  is_default: Type.Boolean({
    description:
      "the business's default publishable key: used by its hosted booking page, also accepted from the API's own URL; rotated, never revoked",
  }),
  rate_limit_per_minute: Nullable(Type.Integer({ format: 'int32' })),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
});
const CreatedApiKey = Type.Object({
  ...ApiKeyView.properties,
  key: Type.String({ description: 'the full key: shown this once for a secret key' }),
});

export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['API keys'],
    read: requireBusiness({ scope: 'admin' }),
    write: requireBusiness({ scope: 'admin' }),
  });
  routes.change('POST', '/v1/manage/api-keys', {
    config: { sensitive: true },
    operationId: 'createApiKey',
    summary: 'Create an API key; the full key is returned once',
    body: example(
      Type.Object(
        {
          name: NonBlankString({ maxLength: 100 }),
          type: Type.Optional(KeyType),
          scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true })),
          environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
          allowed_origins: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
              minItems: 1,
              maxItems: 20,
              uniqueItems: true,
              description:
                'publishable keys only (required there): origins such as `https://shop.example` or `http://localhost:5173`; no paths or wildcards, `http` only for localhost',
            }),
          ),
          rate_limit_per_minute: Type.Optional(
            Nullable(Type.Integer({ format: 'int32', minimum: 1, maximum: 1_000_000 })),
          ),
        },
        { additionalProperties: false },
      ),
      { name: 'Website booking', scopes: ['read', 'write'] },
    ),
    response: { 201: CreatedApiKey },
    change: (tx, principal, { body }) => createApiKey(tx, principal, body),
  });

  routes.list('/v1/manage/api-keys', {
    operationId: 'listApiKeys',
    summary: 'List API keys (never the full key)',
    item: ApiKeyView,
    list: (request) => listApiKeys(app.db, pageOf(request)),
  });

  routes.remove('/v1/manage/api-keys/:key_id', {
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key (it stays listed with is_active false)',
    description: 'The default publishable key is rotated instead: revoking it is 409 `conflict`.',
    params: IdParams('key_id'),
    change: (tx, principal, { params }) => revokeApiKey(tx, principal, params.key_id),
  });

  routes.change('POST', '/v1/manage/api-keys/:key_id/rotate', {
    config: { sensitive: true },
    operationId: 'rotateApiKey',
    summary: 'Replace a key by a new one with the same settings; the old one is refused from then on',
    description:
      'The new key keeps the name, type, scopes, environment, origins, rate limit and default flag; the answer carries it in full. A revoked key is 409 `conflict`.',
    params: IdParams('key_id'),
    response: { 201: CreatedApiKey, ...errorResponses(409) },
    change: (tx, principal, { params }) => rotateApiKey(tx, principal, params.key_id),
  });
};
