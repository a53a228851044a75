import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { withTx } from '../platform/db.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { afterRow, decodeCursorStrings, PageQuery, pageEnvelope, toPage } from '../platform/pagination.ts';
import { ErrorResponses, IdParams, Timestamp, Uuid } from '../platform/schemas.ts';
import { LoginBody, TokenResponse } from './developers.routes.ts';
import { checkPassword, issueTokens } from './developers.service.ts';

const Role = Type.Union([Type.Literal('business_owner'), Type.Literal('staff_member')]);
const StaffUser = Type.Object({ id: Uuid, email: Type.String(), role: Role, created_at: Timestamp });

type UserRow = { id: string; email: string; role: string; created_at: Date };
const toStaffUser = (row: UserRow) => ({
  id: row.id,
  email: row.email,
  role: row.role as 'business_owner' | 'staff_member',
  created_at: row.created_at.toISOString(),
});

/** Dashboard users of a business: their login, and the owners' management of them. */
export const staffRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/auth/login',
    {
      schema: {
        tags: ['Staff'],
        summary: 'Log in as a dashboard user (business owner or staff member)',
        security: [],
        body: LoginBody,
        response: { 200: TokenResponse, ...ErrorResponses },
      },
    },
    async (request) => {
      const { email, password } = request.body;
      const user = await app.db
        .selectFrom('users')
        .select(['id', 'email', 'role', 'business_id', 'password_hash'])
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .executeTakeFirst();
      await checkPassword(user?.password_hash, password);
      return issueTokens(app.db, app.tokens, 'user', {
        sub: user!.id,
        email: user!.email,
        role: user!.role as 'business_owner' | 'staff_member',
        businessId: user!.business_id,
      });
    },
  );

  app.get(
    '/v1/manage/staff',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['Staff'],
        summary: 'List dashboard users',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(StaffUser), ...ErrorResponses },
      },
    },
    async (request) => {
      const { businessId } = principalOf(request);
      const limit = request.query.limit ?? 50;
      const after = decodeCursorStrings(request.query.cursor, 1);
      let query = app.db
        .selectFrom('users')
        .select(['id', 'email', 'role', 'created_at'])
        .where('business_id', '=', businessId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1);
      if (after) query = query.where(afterRow('users', after[0]!));
      return toPage(await query.execute(), limit, (row) => [row.id], toStaffUser);
    },
  );

  app.post(
    '/v1/manage/staff',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['Staff'],
        summary: 'Invite a dashboard user with an initial password',
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 254 }),
            role: Role,
            password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 256 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: StaffUser, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { email, role, password } = request.body;
      const passwordHash = await hashPassword(password);
      const user = await withTx(app.db, async (tx) => {
        const existing = await tx
          .selectFrom('users')
          .select('id')
          .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
          .executeTakeFirst();
        if (existing) throw conflict('a dashboard user with this email exists');
        const created = await tx
          .insertInto('users')
          .values({ business_id: principal.businessId, email, role, password_hash: passwordHash })
          .returning(['id', 'email', 'role', 'created_at'])
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'staff.invited',
          entityType: 'user',
          entityId: created.id,
          after: toStaffUser(created),
        });
        return created;
      });
      return reply.status(201).send(toStaffUser(user));
    },
  );

  app.patch(
    '/v1/manage/staff/:user_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['Staff'],
        summary: "Change a dashboard user's role",
        params: IdParams('user_id'),
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        response: { 200: StaffUser, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return withTx(app.db, async (tx) => {
        const before = await tx
          .selectFrom('users')
          .select(['id', 'email', 'role', 'created_at'])
          .where('id', '=', request.params.user_id)
          .where('business_id', '=', principal.businessId)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw notFound('user');
        const after = await tx
          .updateTable('users')
          .set({ role: request.body.role })
          .where('id', '=', before.id)
          .returning(['id', 'email', 'role', 'created_at'])
          .executeTakeFirstOrThrow();
        await recordAudit(tx, principal, {
          action: 'staff.role_changed',
          entityType: 'user',
          entityId: before.id,
          before: toStaffUser(before),
          after: toStaffUser(after),
        });
        return toStaffUser(after);
      });
    },
  );

  app.delete(
    '/v1/manage/staff/:user_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        tags: ['Staff'],
        summary: 'Remove a dashboard user; their tokens stop working at once',
        params: IdParams('user_id'),
        response: { 204: Type.Null(), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await withTx(app.db, async (tx) => {
        const removed = await tx
          .deleteFrom('users')
          .where('id', '=', request.params.user_id)
          .where('business_id', '=', principal.businessId)
          .returning(['id', 'email', 'role', 'created_at'])
          .executeTakeFirst();
        if (!removed) throw notFound('user');
        await tx
          .updateTable('refresh_tokens')
          .set({ revoked_at: new Date() })
          .where('subject_id', '=', removed.id)
          .where('revoked_at', 'is', null)
          .execute();
        await recordAudit(tx, principal, {
          action: 'staff.removed',
          entityType: 'user',
          entityId: removed.id,
          before: toStaffUser(removed),
        });
      });
      return reply.status(204).send(null);
    },
  );
};
