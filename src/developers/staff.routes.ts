import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, requireBusiness, requireDashboardUser } from '../platform/access.ts';
import { MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { matchesAny } from '../platform/browser-assets.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitWith } from '../platform/idempotency.ts';
import { pageOf } from '../platform/pagination.ts';
import { errorResponses, example, IdParams, Timestamp, Uuid } from '../platform/schemas.ts';
import {
  INVITATION_PAGE_HEADERS,
  INVITATION_SCRIPT_PATH,
  invitationPage,
  invitationScript,
} from './invitation.page.ts';
import { loginAttempt, sessionRoute } from './sessions.http.ts';
import { LoginBody, TokenResponse } from './sessions.view.ts';
import { signIn } from './sign-in.service.ts';
import {
  acceptInvitationLink,
  changeStaffRole,
  currentUser,
  invitationByLink,
  invite,
  listStaff,
  logInUser,
  removeStaff,
  resendInvitation,
  switchBusiness,
} from './staff.service.ts';

const Role = Type.Union([Type.Literal('business_owner'), Type.Literal('staff_member')]);
const InvitedStaffUser = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  invited_at: Timestamp,
  created_at: Timestamp,
});
const StaffUser = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  status: Type.Union([Type.Literal('invited'), Type.Literal('active')], {
    description:
      '`invited` grants nothing until the person joins: accepts the emailed link, or signs in once with the password the invitation gave their new account',
  }),
  invited_at: Timestamp,
  created_at: Timestamp,
});
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 256 });

const Businesses = Type.Array(Type.Object({ id: Uuid, name: Type.String(), role: Role }), {
  description: "the user's businesses (active memberships), oldest membership first",
});

const DashboardSession = Type.Object({
  ...TokenResponse.properties,
  businesses: Businesses,
});

/** Dashboard users of a business: their login, and the owners' management of them. */
export const staffRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, {
    tags: ['Staff'],
    read: requireBusiness({ scope: 'admin' }),
    write: requireBusiness({ scope: 'admin' }),
  });
  const invitationContext = () => ({
    now: new Date(app.clock.now()),
    publicBaseUrl: app.config.publicBaseUrl,
  });

  sessionRoute(app, '/v1/auth/login', {
    operationId: 'loginDashboardUser',
    tags: ['Staff'],
    summary: 'Log in as a dashboard user: a token for the oldest membership, and the list of businesses',
    body: LoginBody,
    response: { 200: DashboardSession, ...errorResponses(401, 404) },
    handler: async (request) =>
      logInUser(app.db, app.tokens, app.passwords, request.body, loginAttempt(request)),
  });

  sessionRoute(app, '/v1/auth/sign-in', {
    operationId: 'signIn',
    tags: ['Staff'],
    summary: 'Sign in with an email and password, whichever kind of account they open',
    description:
      "The dashboard's one sign-in form. The email finds the account: a developer's answers as `POST /v1/auth/developer/login` does, a dashboard user's as `POST /v1/auth/login`, with `account` saying which. An email of both kinds whose password opens both is 409 `account_choice_required`: send it again with `account`. Wrong credentials are 401 whatever exists, under the same login limits.",
    body: example(
      Type.Object(
        {
          ...LoginBody.properties,
          account: Type.Optional(Type.Union([Type.Literal('developer'), Type.Literal('user')])),
        },
        { additionalProperties: false },
      ),
      { email: 'ada@example.com', password: 'correct horse battery staple' },
    ),
    response: {
      200: Type.Union([
        Type.Object({ account: Type.Literal('developer'), ...TokenResponse.properties }),
        Type.Object({ account: Type.Literal('user'), ...DashboardSession.properties }),
      ]),
      ...errorResponses(401, 404, 409),
    },
    handler: async (request) =>
      signIn(app.db, app.tokens, app.passwords, request.body, loginAttempt(request)),
  });

  sessionRoute(app, '/v1/auth/invitations/accept', {
    operationId: 'acceptInvitation',
    tags: ['Staff'],
    summary:
      "Accept an invitation with its emailed link's token: sets the account's password, ends its other sessions, activates the membership",
    body: example(
      Type.Object(
        { token: Type.String({ minLength: 1, maxLength: 200 }), password: Password },
        { additionalProperties: false },
      ),
      { token: 'Xq3vT8kP2mZ7wL4nR9sB6yC1dF5gH0jK2mN4pQ6rS8tU0vW2', password: 'a long staff password' },
    ),
    response: { 200: DashboardSession, ...errorResponses(401) },
    handler: async (request, reply) =>
      acceptInvitationLink(
        app.tokens,
        app.passwords,
        request.body,
        new Date(app.clock.now()),
        commitWith(request, reply, 200),
      ),
  });

  app.get(
    '/staff/accept',
    {
      attachValidation: true,
      schema: {
        operationId: 'getInvitationPage',
        tags: ['Staff'],
        summary: 'The page behind an invitation link, where the person chooses their password',
        description:
          'An HTML form that sends the token and the password to `POST /v1/auth/invitations/accept`. A link that does not work (used, withdrawn, re-sent, expired, unknown, or a token longer than any the service makes) gets a page saying so, and nothing of the invitation.',
        security: [],
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 200, description: 'the token of the emailed link' })),
        }),
        response: { 200: Type.String({ description: 'an HTML page' }) },
      },
    },
    async (request, reply) => {
      // A mangled link is a link that does not work: its page, not a JSON 422, and no look-up.
      const invitation = request.validationError
        ? undefined
        : await invitationByLink(app.db, request.query.token, new Date(app.clock.now()));
      return reply
        .headers(INVITATION_PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(invitationPage(invitation));
    },
  );

  app.get(
    INVITATION_SCRIPT_PATH,
    {
      schema: {
        operationId: 'getInvitationPageScript',
        tags: ['Staff'],
        summary: "The invitation page's script",
        security: [],
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', description: 'JavaScript' }),
          304: Type.Null(),
        },
      },
    },
    async (request, reply) => {
      reply
        .header('Cache-Control', 'no-cache')
        .header('ETag', invitationScript.etag)
        .header('X-Content-Type-Options', 'nosniff')
        .type('text/javascript; charset=utf-8');
      if (matchesAny(request.headers['if-none-match'], invitationScript.etag))
        return reply.code(304).send(null);
      return reply.send(invitationScript.body);
    },
  );

  app.get(
    '/v1/auth/me',
    {
      onRequest: requireDashboardUser,
      schema: {
        operationId: 'getCurrentUser',
        tags: ['Staff'],
        summary: "The dashboard user behind the token, the business it acts on and the user's businesses",
        response: {
          200: Type.Object({
            id: Uuid,
            email: Type.String(),
            business_id: Uuid,
            role: Role,
            businesses: Businesses,
          }),
        },
      },
    },
    async (request) => currentUser(app.db, principalOf(request)),
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

  routes.list('/v1/manage/staff', {
    operationId: 'listStaff',
    summary: 'List dashboard users',
    item: StaffUser,
    list: (request) => listStaff(app.db, pageOf(request)),
  });

  routes.route('POST', '/v1/manage/staff', {
    operationId: 'inviteStaff',
    summary:
      'Invite a dashboard user: the membership waits for the person to accept the emailed link (a password only seeds a new account)',
    body: example(
      Type.Object(
        {
          email: Type.String({ format: 'email', maxLength: 254 }),
          role: Role,
          password: Type.Optional(
            Type.String({
              minLength: MIN_PASSWORD_LENGTH,
              maxLength: 256,
              description:
                'the first password of an account this invitation creates: signing in with it joins the business; ignored for an existing account',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { email: 'grace@example.com', role: 'staff_member' },
    ),
    response: { 201: InvitedStaffUser },
    handler: async (request, reply) =>
      invite(
        app.passwords,
        principalOf(request),
        request.body,
        invitationContext(),
        commitWith(request, reply, 201),
      ),
  });

  routes.change('POST', '/v1/manage/staff/:user_id/resend', {
    operationId: 'resendStaffInvitation',
    summary: 'Send an invited member a new link; the previous one stops working',
    params: IdParams('user_id'),
    response: { 200: StaffUser, ...errorResponses(409) },
    change: (tx, principal, { params }) =>
      resendInvitation(tx, principal, params.user_id, invitationContext()),
  });

  routes.change('PATCH', '/v1/manage/staff/:user_id', {
    operationId: 'updateStaff',
    summary: "Change a dashboard user's role",
    params: IdParams('user_id'),
    body: example(Type.Object({ role: Role }, { additionalProperties: false }), {
      role: 'business_owner',
    }),
    response: { 200: StaffUser },
    change: (tx, principal, { params, body }) => changeStaffRole(tx, principal, params.user_id, body.role),
  });

  routes.remove('/v1/manage/staff/:user_id', {
    operationId: 'removeStaff',
    summary: 'Remove a dashboard user or withdraw their invitation; their tokens stop working at once',
    params: IdParams('user_id'),
    change: (tx, principal, { params }) => removeStaff(tx, principal, params.user_id),
  });
};
