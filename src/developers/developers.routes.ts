import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireDeveloper } from '../platform/access.ts';
import { ALL_SCOPES, hashPassword, MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { withTx } from '../platform/db.ts';
import { conflict } from '../platform/errors.ts';
import { afterRow, decodeCursorStrings, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, Timestamp, Uuid } from '../platform/schemas.ts';
import { checkPassword, insertApiKey, issueTokens, refreshTokens, uniqueSlug } from './developers.service.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 256 });
const Name = Type.String({ minLength: 1, maxLength: 100 });

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
});

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

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
  app.post(
    '/v1/auth/developer/register',
    {
      schema: {
        tags: ['Developers'],
        summary: 'Register a developer account',
        security: [],
        body: Type.Object(
          { email: Email, password: Password, first_name: Name, last_name: Name },
          { additionalProperties: false },
        ),
        response: { 201: Developer, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { email, password, first_name, last_name } = request.body;
      const passwordHash = await hashPassword(password);
      const developer = await withTx(app.db, async (tx) => {
        const existing = await tx
          .selectFrom('developers')
          .select('id')
          .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
          .executeTakeFirst();
        if (existing) throw conflict('an account with this email exists');
        return tx
          .insertInto('developers')
          .values({ email, password_hash: passwordHash, first_name, last_name })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      return reply.status(201).send({
        id: developer.id,
        email: developer.email,
        first_name: developer.first_name,
        last_name: developer.last_name,
        created_at: developer.created_at.toISOString(),
      });
    },
  );

  app.post(
    '/v1/auth/developer/login',
    {
      schema: {
        tags: ['Developers'],
        summary: 'Log in as a developer: a 1-hour access token and a refresh token',
        security: [],
        body: LoginBody,
        response: { 200: TokenResponse, ...ErrorResponses },
      },
    },
    async (request) => {
      const { email, password } = request.body;
      const developer = await app.db
        .selectFrom('developers')
        .select(['id', 'email', 'password_hash'])
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .executeTakeFirst();
      await checkPassword(developer?.password_hash, password);
      return issueTokens(app.db, app.tokens, 'developer', {
        sub: developer!.id,
        email: developer!.email,
        role: 'developer',
      });
    },
  );

  app.post(
    '/v1/auth/refresh',
    {
      schema: {
        tags: ['Developers'],
        summary: 'Exchange a refresh token for a new token pair (the old refresh token is spent)',
        security: [],
        body: Type.Object(
          { refresh_token: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 200: TokenResponse, ...ErrorResponses },
      },
    },
    async (request) => withTx(app.db, (tx) => refreshTokens(tx, app.tokens, request.body.refresh_token)),
  );

  app.post(
    '/v1/developer/businesses',
    {
      onRequest: requireDeveloper,
      schema: {
        tags: ['Developers'],
        summary: 'Create a business and its first API key (shown once, all scopes)',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            business_type: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
            is_dev: Type.Optional(Type.Boolean({ default: false })),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedBusiness, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const developerId = request.principal!.developerId!;
      const { name, business_type = null, is_dev = false } = request.body;
      const created = await withTx(app.db, async (tx) => {
        const business = await tx
          .insertInto('businesses')
          .values({
            developer_id: developerId,
            name,
            slug: await uniqueSlug(tx, name),
            business_type,
            is_dev,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const { key } = await insertApiKey(tx, {
          businessId: business.id,
          name: 'default',
          scopes: ALL_SCOPES,
          environment: is_dev ? 'test' : 'live',
          rateLimitPerMinute: null,
        });
        return { business, key };
      });
      return reply.status(201).send({
        business_id: created.business.id,
        name: created.business.name,
        slug: created.business.slug,
        business_type: created.business.business_type,
        is_dev: created.business.is_dev,
        api_key: created.key,
        scopes: ALL_SCOPES,
      });
    },
  );

  app.get(
    '/v1/developer/businesses',
    {
      onRequest: requireDeveloper,
      schema: {
        tags: ['Developers'],
        summary: "List the developer's businesses, oldest first",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(BusinessSummary), ...ErrorResponses },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 1);
      let query = app.db
        .selectFrom('businesses')
        .select(['id', 'name', 'slug', 'business_type', 'is_dev', 'created_at'])
        .where('developer_id', '=', request.principal!.developerId!)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1);
      if (after) query = query.where(afterRow('businesses', after[0]!));
      const rows = await query.execute();
      return toPage(
        rows,
        limit,
        (row) => [row.id],
        (row) => ({ ...row, business_id: row.id, created_at: row.created_at.toISOString() }),
      );
    },
  );
};
