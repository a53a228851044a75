import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness, requireDashboardUser } from '../platform/access.ts';
import { MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { commitReply } from '../platform/idempotency.ts';
import { PageQuery, pageEnvelope, pageOf } from '../platform/pagination.ts';
import { errorResponses, example, IdParams, Timestamp, Uuid } from '../platform/schemas.ts';
import { LoginBody, retryAfterWhenLocked, TokenResponse } from './developers.routes.ts';
import {
  changeStaffRole,
  inviteStaff,
  listStaff,
  logInUser,
  prepareInvite,
  removeStaff,
  switchBusiness,
} from './staff.service.ts';

const Role = Type.Union([Type.Literal('business_owner'), Type.Literal('staff_member')]);
const StaffUser = Type.Object({ id: Uuid, email: Type.String(), role: Role, created_at: Timestamp });

const DashboardSession = Type.Object({
  ...TokenResponse.properties,
  businesses: Type.Array(Type.Object({ id: Uuid, name: Type.String(), role: Role }), {
    description: "the user's businesses, oldest membership first; the token acts on the first",
  }),
});

/** Dashboard users of a business: their login, and the owners' management of them. */
export const staffRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/auth/login',
    {
      config: { sensitive: true },
      schema: {
        operationId: 'loginDashboardUser',
        tags: ['Staff'],
        summary: 'Log in as a dashboard user: a token for the oldest membership, and the list of businesses',
        security: [],
        body: LoginBody,
        response: { 200: DashboardSession, ...errorResponses(401, 404) },
      },
      onError: retryAfterWhenLocked,
    },
    async (request) => logInUser(app.db, app.tokens, request.body, new Date(app.clock.now())),
  );

  app.post(
    '/v1/auth/switch',
    {
      config: { sensitive: true },
      onRequest: requireDashboardUser,
      schema: {
        operationId: 'switchBusiness',
        tags: ['Staff'],
        summary: "Exchange a dashboard user's access token for one acting on another of their businesses",
        body: example(Type.Object({ business_id: Uuid }, { additionalProperties: false }), {
          business_id: '0b6f3e62-5d1c-4c55-9a43-0f4c2a1b7e10',
        }),
        response: { 200: DashboardSession, ...errorResponses(401, 404) },
      },
    },
    async (request) => switchBusiness(app.db, app.tokens, request.principal!, request.body.business_id),
  );

  app.get(
    '/v1/manage/staff',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'listStaff',
        tags: ['Staff'],
        summary: 'List dashboard users',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: pageEnvelope(StaffUser) },
      },
    },
    async (request) => listStaff(app.db, pageOf(request)),
  );

  app.post(
    '/v1/manage/staff',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'inviteStaff',
        tags: ['Staff'],
        summary: 'Invite a dashboard user with an initial password',
        body: example(
          Type.Object(
            {
              email: Type.String({ format: 'email', maxLength: 254 }),
              role: Role,
              password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 256 }),
            },
            { additionalProperties: false },
          ),
          { email: 'grace@example.com', role: 'staff_member', password: 'a long staff password' },
        ),
        response: { 201: StaffUser },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const invite = await prepareInvite(request.body);
      return commitReply(request, reply, 201, (tx) => inviteStaff(tx, principal, invite));
    },
  );

  app.patch(
    '/v1/manage/staff/:user_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'updateStaff',
        tags: ['Staff'],
        summary: "Change a dashboard user's role",
        params: IdParams('user_id'),
        body: example(Type.Object({ role: Role }, { additionalProperties: false }), {
          role: 'business_owner',
        }),
        response: { 200: StaffUser },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 200, (tx) =>
        changeStaffRole(tx, principal, request.params.user_id, request.body.role),
      );
    },
  );

  app.delete(
    '/v1/manage/staff/:user_id',
    {
      onRequest: requireBusiness({ scope: 'admin' }),
      schema: {
        operationId: 'removeStaff',
        tags: ['Staff'],
        summary: 'Remove a dashboard user; their tokens stop working at once',
        params: IdParams('user_id'),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      return commitReply(request, reply, 204, (tx) => removeStaff(tx, principal, request.params.user_id));
    },
  );
};
