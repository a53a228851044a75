import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireDeveloper } from '../platform/access.ts';
import { MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitReply, commitWith } from '../platform/idempotency.ts';
import { pageOf } from '../platform/pagination.ts';
import { errorResponses, example, NonBlankString, Timestamp, Uuid } from '../platform/schemas.ts';
import { createBusiness, listBusinesses, logInDeveloper, registerDeveloper } from './developers.service.ts';
import { loginAttempt, sessionRoute } from './sessions.http.ts';
import { refreshTokens } from './sessions.service.ts';
import { LoginBody, TokenResponse } from './sessions.view.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 256 });
const Name = NonBlankString({ maxLength: 100 });

const Developer = Type.Object({
  id: Uuid,
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  created_at: Timestamp,
});

const BusinessSummary = Type.Object({
  id: Uuid,
  business_id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  business_type: Type.Union([Type.String(), Type.Null()]),
  is_dev: Type.Boolean(),
  created_at: Timestamp,
});

const CreatedBusiness = Type.Object({
  business_id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  business_type: Type.Union([Type.String(), Type.Null()]),
  is_dev: Type.Boolean(),
  api_key: Type.String({ description: 'shown once' }),
  scopes: Type.Array(Type.String()),
});

export const developerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Developers'], read: requireDeveloper });

  app.post(
    '/v1/auth/developer/register',
    {
      schema: {
        operationId: 'registerDeveloper',
        tags: ['Developers'],
        summary: 'Register a developer account',
        security: [],
        body: example(
          Type.Object(
            { email: Email, password: Password, first_name: Name, last_name: Name },
            { additionalProperties: false },
          ),
          {
            email: 'ada@example.com',
            password: 'correct horse battery staple',
            first_name: 'Ada',
            last_name: 'Lovelace',
          },
        ),
        response: { 201: Developer, ...errorResponses(409) },
      },
    },
    async (request, reply) => registerDeveloper(app.passwords, request.body, commitWith(request, reply, 201)),
  );

  sessionRoute(app, '/v1/auth/developer/login', {
    operationId: 'loginDeveloper',
    tags: ['Developers'],
    summary: 'Log in as a developer: a 1-hour access token and a refresh token',
    body: LoginBody,
    response: { 200: TokenResponse, ...errorResponses(401) },
    handler: async (request) =>
      logInDeveloper(app.db, app.tokens, app.passwords, request.body, loginAttempt(request)),
  });

  sessionRoute(app, '/v1/auth/refresh', {
    operationId: 'refreshToken',
    tags: ['Developers'],
    summary:
      'Exchange a refresh token for a new token pair (the old refresh token is spent; a spent one presented again ends its whole session)',
    body: example(
      Type.Object(
        { refresh_token: Type.String({ minLength: 1, maxLength: 200 }) },
        { additionalProperties: false },
      ),
      { refresh_token: 'rt_8Jx2kQ4mZp7vL0sN3bW6yT1cR5dF9gH' },
    ),
    response: { 200: TokenResponse, ...errorResponses(401) },
    handler: async (request) =>
      refreshTokens(app.db, app.tokens, request.body.refresh_token, new Date(app.clock.now())),
  });

  app.post(
    '/v1/developer/businesses',
    {
      config: { sensitive: true },
      onRequest: requireDeveloper,
      schema: {
        operationId: 'createBusiness',
        tags: ['Developers'],
        summary: 'Create a business and its first API key (shown once, all scopes)',
        body: example(
          Type.Object(
            {
              name: NonBlankString({ maxLength: 200 }),
              business_type: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
              is_dev: Type.Optional(Type.Boolean({ default: false })),
            },
            { additionalProperties: false },
          ),
          { name: 'Chez Ada', business_type: 'restaurant' },
        ),
        response: { 201: CreatedBusiness },
      },
    },
    async (request, reply) => {
      const developerId = request.principal!.developerId!;
      return commitReply(request, reply, 201, (tx) => createBusiness(tx, developerId, request.body));
    },
  );

  routes.list('/v1/developer/businesses', {
    operationId: 'listBusinesses',
    summary: "List the developer's businesses, oldest first",
    item: BusinessSummary,
    list: (request) => listBusinesses(app.db, pageOf(request, request.principal!.developerId!)),
  });
};
