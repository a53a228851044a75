import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import {
  bearer,
  createTenant,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  uniqueEmail,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const PASSWORD = 'staff password 123';

async function invite(tenant: Tenant, role: 'business_owner' | 'staff_member', email = uniqueEmail(role)) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/staff',
    headers: tenant.headers,
    payload: { email, role, password: PASSWORD },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { ...(response.json() as { id: string; email: string; role: string }), email };
}

/** Invites without a password: the membership waits for the person to accept the emailed link. */
async function inviteByLink(
  tenant: Tenant,
  role: 'business_owner' | 'staff_member',
  email = uniqueEmail(role),
) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/staff',
    headers: tenant.headers,
    payload: { email, role },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { ...(response.json() as { id: string; email: string; role: string }), email };
}

/** The token of the newest invitation link emailed to `email`, and the message's subject. */
async function invitationTo(email: string) {
  const messages = await ctx.app.db
    .selectFrom('message_outbox')
    .select(['subject', 'body_text', 'business_id'])
    .where('to_address', '=', email)
    .orderBy('created_at', 'desc')
    .execute();
  const link = messages
    .map((m) => /\/staff\/accept\?token=([A-Za-z0-9_]+)/.exec(m.body_text ?? ''))
    .find((match) => match !== null);
  assert.ok(link, `no invitation link was emailed to ${email}`);
  return { token: link[1]!, subject: messages[0]!.subject ?? '', businessId: messages[0]!.business_id };
}

const accept = (token: string, password = PASSWORD) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/invitations/accept', payload: { token, password } });

async function acceptInvitation(email: string, password = PASSWORD) {
  const response = await accept((await invitationTo(email)).token, password);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const loginAs = (email: string, password = PASSWORD) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } });

const get = (url: string, token: string) => ctx.app.inject({ method: 'GET', url, headers: bearer(token) });

describe('POST /v1/auth/login', () => {
  describe('200', () => {
    it('logs a staff member in with a token naming the role and the business', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      const response = await loginAs(user.email.toUpperCase());
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.expires_in, 3600);
      assert.equal(body.token_type, 'bearer');
      assert.ok(body.refresh_token);
      const claims = decodeJwt(body.access_token);
      assert.equal(claims.sub, user.id);
      assert.equal(claims.email, user.email);
      assert.deepEqual(claims.app_metadata, { role: 'staff_member', business_id: tenant.businessId });
      assert.deepEqual(body.businesses, [{ id: tenant.businessId, name: 'Chez Test', role: 'staff_member' }]);
      const business = await get('/v1/manage/business', body.access_token);
      assert.equal(business.statusCode, 200);
      assert.equal(business.json().id, tenant.businessId);
    });

    it('with several memberships, lists every business and acts on the oldest membership', async () => {
      const first = await createTenant(ctx.app, { name: 'First' });
      const second = await createTenant(ctx.app, { name: 'Second' });
      const email = uniqueEmail('shared');
      await invite(second, 'staff_member', email);
      await invite(first, 'business_owner', email);
      await acceptInvitation(email);
      const response = await loginAs(email);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(body.businesses, [
        { id: second.businessId, name: 'Second', role: 'staff_member' },
        { id: first.businessId, name: 'First', role: 'business_owner' },
      ]);
      assert.deepEqual(decodeJwt(body.access_token).app_metadata, {
        role: 'staff_member',
        business_id: second.businessId,
      });
      assert.equal((await get('/v1/manage/business', body.access_token)).json().id, second.businessId);
    });
  });

  describe('401', () => {
    it('answers the same to a wrong password and an unknown email', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'business_owner');
      const wrong = await loginAs(user.email, 'wrong password!');
      const unknown = await loginAs(uniqueEmail());
      for (const response of [wrong, unknown]) {
        assert.equal(response.statusCode, 401);
        assert.equal(response.json().error.code, 'invalid_token');
      }
      assert.deepEqual(wrong.json(), unknown.json());
    });

    it('does not let a developer log in here', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await loginAs(tenant.developer.email, tenant.developer.password);
      assert.equal(response.statusCode, 401);
    });
  });

  describe('429', () => {
    it('locks an email after 10 failed logins, unknown emails alike; other emails are unaffected', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      const other = await invite(tenant, 'staff_member');
      const unknown = uniqueEmail();
      for (let i = 0; i < 10; i++) {
        assert.equal((await loginAs(user.email, 'wrong password!')).statusCode, 401);
        assert.equal((await loginAs(unknown, 'wrong password!')).statusCode, 401);
      }
      for (const email of [user.email, unknown]) {
        const locked = await loginAs(email);
        assert.equal(locked.statusCode, 429, email);
        assert.equal(locked.json().error.code, 'rate_limit_exceeded');
        assert.ok(Number(locked.headers['retry-after']) > 14 * 60);
      }
      assert.equal((await loginAs(other.email)).statusCode, 200);
    });

    it('counts dashboard and developer logins of one email apart: they are different accounts', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'business_owner', tenant.developer.email);
      for (let i = 0; i < 10; i++)
        assert.equal((await loginAs(user.email, 'wrong password!')).statusCode, 401);
      assert.equal((await loginAs(user.email)).statusCode, 429);
      const developer = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/developer/login',
        payload: { email: tenant.developer.email, password: tenant.developer.password },
      });
      assert.equal(developer.statusCode, 200);
    });
  });

  describe('422', () => {
    it('refuses unknown fields', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: 'a@example.com', password: PASSWORD, remember: true },
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'remember');
    });
  });
});

const switchTo = (business_id: string, token: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/auth/switch',
    headers: bearer(token),
    payload: { business_id },
  });

/** A person who is owner of `first` (their oldest membership) and staff member of `second`. */
async function memberOfTwo() {
  const first = await createTenant(ctx.app, { name: 'First' });
  const second = await createTenant(ctx.app, { name: 'Second' });
  const user = await invite(first, 'business_owner');
  await invite(second, 'staff_member', user.email);
  await acceptInvitation(user.email);
  const session = (await loginAs(user.email)).json();
  return { first, second, user, session };
}

const signIn = (payload: Record<string, string>) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload });

describe('POST /v1/auth/sign-in', () => {
  describe('200', () => {
    it("finds a developer's account and a dashboard user's by the email alone", async () => {
      const tenant = await createTenant(ctx.app);
      const developer = await signIn({ email: tenant.developer.email, password: tenant.developer.password });
      assert.equal(developer.statusCode, 200, developer.body);
      assert.equal(developer.json().account, 'developer', developer.body);
      const businesses = await get('/v1/developer/businesses', developer.json().access_token);
      assert.equal(businesses.json().items[0].id, tenant.businessId);

      const user = await invite(tenant, 'staff_member');
      const member = await signIn({ email: user.email.toUpperCase(), password: PASSWORD });
      assert.equal(member.statusCode, 200, member.body);
      assert.equal(member.json().account, 'user');
      assert.deepEqual(
        member.json().businesses.map((b: { id: string }) => b.id),
        [tenant.businessId],
      );
    });

    it('signs an email of both kinds into the one its password opens, and into either when told which', async () => {
      const tenant = await createTenant(ctx.app);
      // The developer's own dashboard account, with a password of its own.
      await invite(tenant, 'business_owner', tenant.developer.email);
      const asUser = await signIn({ email: tenant.developer.email, password: PASSWORD });
      assert.equal(asUser.json().account, 'user', asUser.body);
      const asDeveloper = await signIn({
        email: tenant.developer.email,
        password: tenant.developer.password,
      });
      assert.equal(asDeveloper.json().account, 'developer', asDeveloper.body);
    });
  });

  describe('401', () => {
    it('answers a wrong password, an unknown email and a wrong kind alike', async () => {
      const tenant = await createTenant(ctx.app);
      await invite(tenant, 'business_owner', tenant.developer.email);
      const answers = [
        await signIn({ email: tenant.developer.email, password: 'wrong password!' }),
        await signIn({ email: uniqueEmail(), password: PASSWORD }),
        await signIn({ email: tenant.developer.email, password: PASSWORD, account: 'developer' }),
      ];
      for (const answer of answers) {
        assert.equal(answer.statusCode, 401);
        assert.deepEqual(answer.json(), answers[1]!.json());
      }
    });
  });

  describe('409', () => {
    it('asks which account when the password opens both, and signs into the one named', async () => {
      const tenant = await createTenant(ctx.app);
      await invite(tenant, 'business_owner', tenant.developer.email);
      assert.equal(
        (await loginAs(tenant.developer.email)).statusCode,
        200,
        'the first sign-in joins the business',
      );
      // The developer gives their dashboard account the same password.
      const [user] = await ctx.app.db
        .selectFrom('developers')
        .select('password_hash')
        .where('id', '=', tenant.developer.id)
        .execute();
      await ctx.app.db
        .updateTable('users')
        .set({ password_hash: user!.password_hash })
        .where('email', '=', tenant.developer.email.toLowerCase())
        .execute();
      const credentials = { email: tenant.developer.email, password: tenant.developer.password };
      const asked = await signIn(credentials);
      assert.equal(asked.statusCode, 409, asked.body);
      assert.equal(asked.json().error.code, 'account_choice_required');
      assert.equal((await signIn({ ...credentials, account: 'developer' })).json().account, 'developer');
      const asUser = await signIn({ ...credentials, account: 'user' });
      assert.equal(asUser.json().account, 'user', asUser.body);
    });
  });

  describe('429', () => {
    it("counts an email of both kinds' failures as a dashboard login's: 10 lock it, the developer login is apart", async () => {
      const tenant = await createTenant(ctx.app);
      await invite(tenant, 'business_owner', tenant.developer.email);
      for (let i = 0; i < 10; i++) {
        assert.equal(
          (await signIn({ email: tenant.developer.email, password: 'wrong password!' })).statusCode,
          401,
        );
      }
      const locked = await signIn({ email: tenant.developer.email, password: PASSWORD });
      assert.equal(locked.statusCode, 429);
      assert.equal((await loginAs(tenant.developer.email)).statusCode, 429);
      const developer = await signIn({
        email: tenant.developer.email,
        password: tenant.developer.password,
        account: 'developer',
      });
      assert.equal(developer.statusCode, 200);
    });
  });

  describe('422', () => {
    it('refuses an unknown kind of account', async () => {
      const response = await signIn({ email: uniqueEmail(), password: PASSWORD, account: 'admin' });
      assert.equal(response.statusCode, 422);
    });
  });
});

describe('POST /v1/auth/switch', () => {
  describe('200', () => {
    it("returns a session of another of the user's businesses, with the role held there", async () => {
      const { first, second, user, session } = await memberOfTwo();
      const response = await switchTo(second.businessId, session.access_token);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 3600);
      assert.ok(body.refresh_token);
      assert.deepEqual(body.businesses, session.businesses);
      const claims = decodeJwt(body.access_token);
      assert.equal(claims.sub, user.id);
      assert.deepEqual(claims.app_metadata, { role: 'staff_member', business_id: second.businessId });
      assert.equal((await get('/v1/manage/business', body.access_token)).json().id, second.businessId);
      assert.equal((await get('/v1/manage/staff', body.access_token)).statusCode, 403, 'staff member there');
      assert.equal((await get('/v1/manage/staff', session.access_token)).statusCode, 200, 'owner in first');
      const back = await switchTo(first.businessId, body.access_token);
      assert.equal(back.statusCode, 200);
      assert.deepEqual(decodeJwt(back.json().access_token).app_metadata, {
        role: 'business_owner',
        business_id: first.businessId,
      });
    });

    it('gives a refresh token that renews the session of the business switched to', async () => {
      const { second, session } = await memberOfTwo();
      const switched = (await switchTo(second.businessId, session.access_token)).json();
      const refreshed = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        payload: { refresh_token: switched.refresh_token },
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.deepEqual(decodeJwt(refreshed.json().access_token).app_metadata, {
        role: 'staff_member',
        business_id: second.businessId,
      });
    });
  });

  describe('401', () => {
    it('needs a valid access token', async () => {
      const { second } = await memberOfTwo();
      for (const headers of [{}, bearer('not.a.jwt')]) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/v1/auth/switch',
          headers,
          payload: { business_id: second.businessId },
        });
        assert.equal(response.statusCode, 401);
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });

  describe('403', () => {
    it("refuses API keys and developers' tokens", async () => {
      const { first } = await memberOfTwo();
      for (const token of [first.apiKey, first.developer.token]) {
        const response = await switchTo(first.businessId, token);
        assert.equal(response.statusCode, 403);
        assert.equal(response.json().error.code, 'insufficient_permissions');
      }
    });
  });

  describe('404', () => {
    it('answers not_found for a business the user is not a member of, or that does not exist', async () => {
      const { session } = await memberOfTwo();
      const stranger = await createTenant(ctx.app);
      for (const id of [stranger.businessId, '00000000-0000-4000-8000-000000000000']) {
        const response = await switchTo(id, session.access_token);
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('422', () => {
    it('needs a business_id that is a UUID, and nothing else', async () => {
      const { session } = await memberOfTwo();
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/switch',
        headers: bearer(session.access_token),
        payload: { business_id: 'nope', role: 'business_owner' },
      });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      assert.deepEqual(fields.sort(), ['business_id', 'role']);
    });
  });
});

describe('GET /v1/manage/staff', () => {
  describe('200', () => {
    it("lists the business's dashboard users, oldest first", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await invite(other, 'staff_member');
      const owner = await invite(tenant, 'business_owner');
      const staff = await invite(tenant, 'staff_member');
      const response = await get('/v1/manage/staff', tenant.apiKey);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(
        body.items.map((u: { id: string; role: string }) => [u.id, u.role]),
        [
          [owner.id, 'business_owner'],
          [staff.id, 'staff_member'],
        ],
      );
      assert.equal(body.has_more, false);
      assert.doesNotMatch(response.body, /password/);
    });

    it('pages with limit and cursor', async () => {
      const tenant = await createTenant(ctx.app);
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await invite(tenant, 'staff_member')).id);
      const page1 = (await get('/v1/manage/staff?limit=2', tenant.apiKey)).json();
      assert.equal(page1.has_more, true);
      const page2 = (await get(`/v1/manage/staff?limit=2&cursor=${page1.next_cursor}`, tenant.apiKey)).json();
      assert.deepEqual(
        [...page1.items, ...page2.items].map((u: { id: string }) => u.id),
        ids,
      );
      assert.equal(page2.has_more, false);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/staff', scope: 'admin', staff: false }),
    });
  });
});

describe('POST /v1/manage/staff', () => {
  describe('201', () => {
    it('lets an owner invite a user who can then log in', async () => {
      const tenant = await createTenant(ctx.app);
      const ownerToken = await dashboardToken(ctx.app, tenant, 'business_owner');
      const email = uniqueEmail('new');
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: bearer(ownerToken),
        payload: { email, role: 'staff_member', password: PASSWORD },
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.equal(body.email, email);
      assert.equal(body.role, 'staff_member');
      assert.ok(!Number.isNaN(Date.parse(body.created_at)));
      assert.equal((await loginAs(email)).statusCode, 200);
    });

    it("lets a developer invite through X-Business-Id and records the developer's email", async () => {
      const tenant = await createTenant(ctx.app);
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: { ...bearer(tenant.developer.token), 'x-business-id': tenant.businessId },
        payload: { email: uniqueEmail(), role: 'business_owner', password: PASSWORD },
      });
      assert.equal(response.statusCode, 201, response.body);
      const audit = (await get('/v1/manage/audit-logs', tenant.apiKey)).json();
      assert.equal(audit.items[0].action, 'staff.invited');
      assert.equal(audit.items[0].user_email, tenant.developer.email);
      assert.equal(audit.items[0].entity_id, response.json().id);
    });

    it('adds a membership to an email with an account elsewhere, answering as for a new person', async () => {
      const first = await createTenant(ctx.app);
      const second = await createTenant(ctx.app);
      const email = uniqueEmail('shared');
      await invite(first, 'business_owner', email);
      const before = Date.now();
      const existing = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: second.headers,
        payload: { email: email.toUpperCase(), role: 'staff_member', password: 'another password 456' },
      });
      const fresh = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: second.headers,
        payload: { email: uniqueEmail('fresh').toUpperCase(), role: 'staff_member', password: PASSWORD },
      });
      for (const response of [existing, fresh]) {
        assert.equal(response.statusCode, 201, response.body);
        const body = response.json();
        assert.deepEqual(Object.keys(body).sort(), ['created_at', 'email', 'id', 'invited_at', 'role']);
        assert.equal(body.email, body.email.toLowerCase());
        assert.equal(body.role, 'staff_member');
        assert.ok(Date.parse(body.created_at) >= before - 1000, 'the membership, not the account, is dated');
      }
      assert.equal(existing.json().email, email);
      // The account keeps its own password: the one in the second invitation does nothing.
      assert.equal((await loginAs(email, 'another password 456')).statusCode, 401);
      // The membership waits for the link emailed to the person.
      assert.deepEqual(
        (await loginAs(email)).json().businesses.map((b: { id: string }) => b.id),
        [first.businessId],
      );
      await acceptInvitation(email);
      const login = await loginAs(email);
      assert.equal(login.statusCode, 200);
      assert.deepEqual(
        login.json().businesses.map((b: { id: string; role: string }) => [b.id, b.role]),
        [
          [first.businessId, 'business_owner'],
          [second.businessId, 'staff_member'],
        ],
      );
    });
  });

  describe('403', () => {
    it('blocks a staff member from inviting', async () => {
      const tenant = await createTenant(ctx.app);
      const staffToken = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: bearer(staffToken),
        payload: { email: uniqueEmail(), role: 'business_owner', password: PASSWORD },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'insufficient_permissions');
    });
  });

  describe('409', () => {
    it('refuses an email that is already a member of this business, whatever its case', async () => {
      const tenant = await createTenant(ctx.app);
      const existing = await invite(tenant, 'staff_member');
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: tenant.headers,
        payload: { email: existing.email.toUpperCase(), role: 'business_owner', password: PASSWORD },
      });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
      const listed = (await get('/v1/manage/staff', tenant.apiKey)).json();
      assert.deepEqual(
        listed.items.map((u: { role: string }) => u.role),
        ['staff_member'],
      );
    });
  });

  describe('422', () => {
    it('names every bad field: email, role, short password, unknown field', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: tenant.headers,
        payload: { email: 'nope', role: 'developer', password: 'short', team: 'x' },
      });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      for (const field of ['email', 'role', 'password', 'team']) assert.ok(fields.includes(field), field);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: '/v1/manage/staff',
        payload: { email: uniqueEmail(), role: 'staff_member', password: PASSWORD },
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('PATCH /v1/manage/staff/:user_id', () => {
  describe('200', () => {
    it('changes the role, which takes effect on the tokens already issued', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      const token = (await loginAs(user.email)).json().access_token;
      assert.equal((await get('/v1/manage/staff', token)).statusCode, 403);
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/staff/${user.id}`,
        headers: tenant.headers,
        payload: { role: 'business_owner' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().role, 'business_owner');
      assert.equal((await get('/v1/manage/staff', token)).statusCode, 200);
      const audit = (await get('/v1/manage/audit-logs', tenant.apiKey)).json();
      assert.equal(audit.items[0].action, 'staff.role_changed');
      assert.equal(audit.items[0].before_state.role, 'staff_member');
      assert.equal(audit.items[0].after_state.role, 'business_owner');
    });

    it('changes the role in this business only, even for a person of several businesses', async () => {
      const { first, second, user, session } = await memberOfTwo();
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/staff/${user.id}`,
        headers: second.headers,
        payload: { role: 'business_owner' },
      });
      assert.equal(response.statusCode, 200, response.body);
      const roleIn = async (tenant: Tenant) =>
        (await get('/v1/manage/staff', tenant.apiKey)).json().items[0].role;
      assert.equal(await roleIn(first), 'business_owner');
      assert.equal(await roleIn(second), 'business_owner');
      const demoted = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/staff/${user.id}`,
        headers: first.headers,
        payload: { role: 'staff_member' },
      });
      assert.equal(demoted.statusCode, 200);
      assert.equal(await roleIn(first), 'staff_member');
      assert.equal(await roleIn(second), 'business_owner');
      assert.equal((await get('/v1/manage/staff', session.access_token)).statusCode, 403);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's user, an unknown id and a malformed id", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const foreign = await invite(other, 'staff_member');
      for (const id of [foreign.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const response = await ctx.app.inject({
          method: 'PATCH',
          url: `/v1/manage/staff/${id}`,
          headers: tenant.headers,
          payload: { role: 'business_owner' },
        });
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.json().error.code, 'not_found');
      }
      const untouched = (await get('/v1/manage/staff', other.apiKey)).json();
      assert.equal(untouched.items[0].role, 'staff_member');
    });
  });

  describe('422', () => {
    it('refuses an unknown role', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/staff/${user.id}`,
        headers: tenant.headers,
        payload: { role: 'developer' },
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'role');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => invite(tenant, 'staff_member'),
      route: (user) => ({
        method: 'PATCH',
        url: `/v1/manage/staff/${user.id}`,
        payload: { role: 'staff_member' },
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('DELETE /v1/manage/staff/:user_id', () => {
  describe('204', () => {
    it('removes the user: their access and refresh tokens stop working at once', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'business_owner');
      const { access_token, refresh_token } = (await loginAs(user.email)).json();
      assert.equal((await get('/v1/manage/business', access_token)).statusCode, 200);
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/staff/${user.id}`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      const after = await get('/v1/manage/business', access_token);
      assert.equal(after.statusCode, 401);
      assert.equal(after.json().error.code, 'invalid_token');
      const refreshed = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        payload: { refresh_token },
      });
      assert.equal(refreshed.statusCode, 401);
      assert.equal((await loginAs(user.email)).statusCode, 401);
      const audit = (await get('/v1/manage/audit-logs', tenant.apiKey)).json();
      assert.equal(audit.items[0].action, 'staff.removed');
      assert.equal(audit.items[0].before_state.email, user.email);
    });

    it("ends only this business's membership: the user's token for another business keeps working", async () => {
      const { first, second, user, session } = await memberOfTwo();
      const inSecond = (await switchTo(second.businessId, session.access_token)).json();
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/staff/${user.id}`,
        headers: second.headers,
      });
      assert.equal(response.statusCode, 204);
      assert.equal((await get('/v1/manage/business', inSecond.access_token)).statusCode, 401);
      const refreshed = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        payload: { refresh_token: inSecond.refresh_token },
      });
      assert.equal(refreshed.statusCode, 401);
      assert.equal((await get('/v1/manage/business', session.access_token)).statusCode, 200);
      assert.equal((await switchTo(second.businessId, session.access_token)).statusCode, 404);
      const login = (await loginAs(user.email)).json();
      assert.deepEqual(
        login.businesses.map((b: { id: string }) => b.id),
        [first.businessId],
      );
      assert.equal((await get('/v1/manage/staff', second.apiKey)).json().items.length, 0);
    });

    it('deletes a user left without any business: the email can be invited afresh', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      await ctx.app.inject({ method: 'DELETE', url: `/v1/manage/staff/${user.id}`, headers: tenant.headers });
      const again = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: tenant.headers,
        payload: { email: user.email, role: 'staff_member', password: 'a brand new password' },
      });
      assert.equal(again.statusCode, 201, again.body);
      assert.notEqual(again.json().id, user.id);
      assert.equal((await loginAs(user.email, 'a brand new password')).statusCode, 200);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's user and leaves it alone", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const foreign = await invite(other, 'staff_member');
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/staff/${foreign.id}`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.code, 'not_found');
      assert.equal((await loginAs(foreign.email)).statusCode, 200);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => invite(tenant, 'staff_member'),
      route: (user) => ({
        method: 'DELETE',
        url: `/v1/manage/staff/${user.id}`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('invitations', () => {
  describe('a business cannot take over a person another business invites', () => {
    it("keeps B's membership invited until the person uses the link; the link's password ends A's sessions", async () => {
      const a = await createTenant(ctx.app, { name: 'Business A' });
      const b = await createTenant(ctx.app, { name: 'Business B' });
      const email = uniqueEmail('manager');
      // A invites the email first, with a password A chooses: a new account, active in A at once.
      await invite(a, 'staff_member', email);
      const byB = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: b.headers,
        payload: { email, role: 'business_owner', password: 'B chose this password' },
      });
      assert.equal(byB.statusCode, 201, byB.body);
      const userId = byB.json().id as string;

      // A logs in with the password A chose: B is nowhere to be reached.
      const aSession = (await loginAs(email)).json();
      assert.deepEqual(
        aSession.businesses.map((x: { id: string }) => x.id),
        [a.businessId],
      );
      assert.equal((await switchTo(b.businessId, aSession.access_token)).statusCode, 404);
      const meA = await get('/v1/auth/me', aSession.access_token);
      assert.equal(meA.statusCode, 200, meA.body);
      assert.deepEqual(
        meA.json().businesses.map((x: { id: string }) => x.id),
        [a.businessId],
      );
      // Even a token naming B is refused while the membership is invited.
      const namingB = await ctx.app.tokens.sign({
        sub: userId,
        email,
        role: 'business_owner',
        businessId: b.businessId,
      });
      for (const url of ['/v1/manage/business', '/v1/manage/customers', '/v1/manage/staff']) {
        const refused = await get(url, namingB);
        assert.equal(refused.statusCode, 401, `${url}: ${refused.body}`);
      }
      const adminKey = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/api-keys',
        headers: bearer(namingB),
        payload: { name: 'mine', scopes: ['admin'] },
      });
      assert.equal(adminKey.statusCode, 401);
      // B's password in the invitation changed nothing.
      assert.equal((await loginAs(email, 'B chose this password')).statusCode, 401);
      const listed = (await get('/v1/manage/staff', b.apiKey)).json().items;
      assert.equal(listed.length, 1);
      assert.equal(listed[0].status, 'invited');

      // The person opens the link emailed to them and sets their own password.
      const { token, subject, businessId } = await invitationTo(email);
      assert.equal(businessId, b.businessId);
      assert.match(subject, /Business B/);
      const accepted = await accept(token, 'my very own password');
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.headers['cache-control'], 'no-store');
      const session = accepted.json();
      assert.deepEqual(decodeJwt(session.access_token).app_metadata, {
        role: 'business_owner',
        business_id: b.businessId,
      });
      assert.deepEqual(
        session.businesses.map((x: { id: string; role: string }) => [x.id, x.role]),
        [
          [a.businessId, 'staff_member'],
          [b.businessId, 'business_owner'],
        ],
      );
      assert.equal((await get('/v1/manage/business', session.access_token)).json().id, b.businessId);

      // Every session A had is over: access token, refresh token, the password A chose.
      assert.equal((await get('/v1/manage/business', aSession.access_token)).statusCode, 401);
      const refreshed = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        payload: { refresh_token: aSession.refresh_token },
      });
      assert.equal(refreshed.statusCode, 401);
      assert.equal((await loginAs(email)).statusCode, 401);
      assert.equal((await loginAs(email, 'my very own password')).statusCode, 200);
      assert.equal((await get('/v1/manage/staff', b.apiKey)).json().items[0].status, 'active');
    });
  });

  describe('POST /v1/manage/staff without a password', () => {
    it('makes an invited member who can do nothing until the link is used', async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez\r\nBcc: x@evil.example\u0007' });
      const before = Date.now();
      const user = await inviteByLink(tenant, 'staff_member');
      const listed = (await get('/v1/manage/staff', tenant.apiKey)).json().items[0];
      assert.equal(listed.id, user.id);
      assert.equal(listed.status, 'invited');
      assert.ok(Date.parse(listed.invited_at) >= before - 1000);
      assert.equal((await loginAs(user.email)).statusCode, 401);
      const { subject } = await invitationTo(user.email);
      assert.doesNotMatch(subject, /\p{Cc}/u);
      assert.match(subject, /Chez Bcc: x@evil\.example/);
      await acceptInvitation(user.email, 'chosen by me 123');
      const login = await loginAs(user.email, 'chosen by me 123');
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().businesses[0].id, tenant.businessId);
    });

    it('answers the same for an email with an account elsewhere as for a new person', async () => {
      const first = await createTenant(ctx.app);
      const second = await createTenant(ctx.app);
      const email = uniqueEmail('known');
      await invite(first, 'business_owner', email);
      const known = await inviteByLink(second, 'staff_member', email);
      const fresh = await inviteByLink(second, 'staff_member');
      assert.deepEqual(Object.keys(known).sort(), Object.keys(fresh).sort());
      const statuses = (await get('/v1/manage/staff', second.apiKey))
        .json()
        .items.map((u: { status: string }) => u.status);
      assert.deepEqual(statuses, ['invited', 'invited']);
      await invitationTo(email);
      await invitationTo(fresh.email);
    });
  });
});

describe('POST /v1/auth/invitations/accept', () => {
  describe('401', () => {
    it('works once: a used link, a wrong token and an expired link are refused', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await inviteByLink(tenant, 'staff_member');
      const { token } = await invitationTo(user.email);
      assert.equal((await accept(token)).statusCode, 200);
      const again = await accept(token, 'another password 123');
      assert.equal(again.statusCode, 401);
      assert.equal(again.json().error.code, 'invalid_token');
      assert.equal((await loginAs(user.email, 'another password 123')).statusCode, 401);
      const wrong = await accept(`${token.slice(0, -1)}x`);
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.json().error.code, 'invalid_token');
    });

    it('refuses a link older than 7 days; the member stays invited', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await inviteByLink(tenant, 'staff_member');
      const { token } = await invitationTo(user.email);
      const sent = Date.now();
      try {
        ctx.app.clock.now = () => sent + 7 * 86_400_000 + 60_000;
        const expired = await accept(token);
        assert.equal(expired.statusCode, 401);
        assert.equal(expired.json().error.code, 'invalid_token');
      } finally {
        ctx.app.clock.now = () => Date.now();
      }
      assert.equal((await get('/v1/manage/staff', tenant.apiKey)).json().items[0].status, 'invited');
      assert.equal((await loginAs(user.email)).statusCode, 401);
    });

    it('still works just before the 7 days are over', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await inviteByLink(tenant, 'staff_member');
      const { token } = await invitationTo(user.email);
      const sent = Date.now();
      try {
        ctx.app.clock.now = () => sent + 7 * 86_400_000 - 60_000;
        assert.equal((await accept(token)).statusCode, 200);
      } finally {
        ctx.app.clock.now = () => Date.now();
      }
    });
  });

  describe('422', () => {
    it('needs a token and a password of 10 characters or more, and nothing else', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/invitations/accept',
        payload: { password: 'short', extra: 1 },
      });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      assert.deepEqual(fields.sort(), ['extra', 'password', 'token']);
    });
  });
});

describe('POST /v1/manage/staff/:user_id/resend', () => {
  describe('200', () => {
    it('sends a new link; the old one stops working', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await inviteByLink(tenant, 'staff_member');
      const { token: old } = await invitationTo(user.email);
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/staff/${user.id}/resend`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'invited');
      const { token: fresh } = await invitationTo(user.email);
      assert.notEqual(fresh, old);
      assert.equal((await accept(old)).statusCode, 401);
      assert.equal((await accept(fresh)).statusCode, 200);
    });
  });

  describe('404', () => {
    it("answers not_found for another business's invited member, and sends nothing", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const foreign = await inviteByLink(other, 'staff_member');
      const { token } = await invitationTo(foreign.email);
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/staff/${foreign.id}/resend`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.code, 'not_found');
      assert.equal((await invitationTo(foreign.email)).token, token);
    });
  });

  describe('409', () => {
    it('refuses a member who has already joined', async () => {
      const tenant = await createTenant(ctx.app);
      const user = await invite(tenant, 'staff_member');
      assert.equal((await loginAs(user.email)).statusCode, 200);
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/staff/${user.id}/resend`,
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => inviteByLink(tenant, 'staff_member'),
      route: (user) => ({
        method: 'POST',
        url: `/v1/manage/staff/${user.id}/resend`,
        scope: 'admin',
        staff: false,
      }),
    });
  });
});

describe('DELETE /v1/manage/staff/:user_id of an invited member', () => {
  it('withdraws the invitation: the link stops working', async () => {
    const tenant = await createTenant(ctx.app);
    const user = await inviteByLink(tenant, 'staff_member');
    const { token } = await invitationTo(user.email);
    const response = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/staff/${user.id}`,
      headers: tenant.headers,
    });
    assert.equal(response.statusCode, 204);
    assert.equal((await accept(token)).statusCode, 401);
    assert.equal((await get('/v1/manage/staff', tenant.apiKey)).json().items.length, 0);
  });
});

describe('GET /v1/auth/me', () => {
  it("answers the user, the business the token acts on and the user's active businesses", async () => {
    const { first, second, user, session } = await memberOfTwo();
    const third = await createTenant(ctx.app, { name: 'Third' });
    await inviteByLink(third, 'staff_member', user.email);
    const response = await get('/v1/auth/me', session.access_token);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      id: user.id,
      email: user.email,
      business_id: first.businessId,
      role: 'business_owner',
      businesses: [
        { id: first.businessId, name: 'First', role: 'business_owner' },
        { id: second.businessId, name: 'Second', role: 'staff_member' },
      ],
    });
  });

  it("refuses API keys and developers' tokens, and no credential", async () => {
    const tenant = await createTenant(ctx.app);
    assert.equal((await get('/v1/auth/me', tenant.apiKey)).statusCode, 403);
    assert.equal((await get('/v1/auth/me', tenant.developer.token)).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v1/auth/me' })).statusCode, 401);
  });
});

describe('joining', () => {
  const staffList = async (tenant: Tenant) =>
    (await get('/v1/manage/staff', tenant.apiKey))
      .json()
      .items.map((u: { email: string; status: string }) => [u.email, u.status]);

  it('lists a new account made with a password `invited`, like an existing one, until its first sign-in joins it', async () => {
    const elsewhere = await createTenant(ctx.app);
    const tenant = await createTenant(ctx.app);
    const known = uniqueEmail('known');
    await invite(elsewhere, 'staff_member', known);
    assert.equal((await loginAs(known)).statusCode, 200);
    await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/staff',
      headers: tenant.headers,
      payload: { email: known, role: 'staff_member', password: 'another password 456' },
    });
    const fresh = await invite(tenant, 'staff_member');
    assert.deepEqual(await staffList(tenant), [
      [known, 'invited'],
      [fresh.email, 'invited'],
    ]);
    // Both were emailed a link, so the messages list tells nothing apart either.
    const messages = (await get('/v1/manage/messages', tenant.apiKey)).json().items;
    assert.deepEqual(
      messages.map((m: { type: string; status: string }) => m.type),
      ['notice', 'notice'],
    );

    const login = await loginAs(fresh.email);
    assert.equal(login.statusCode, 200, login.body);
    assert.deepEqual(login.json().businesses, [
      { id: tenant.businessId, name: 'Chez Test', role: 'staff_member' },
    ]);
    assert.deepEqual(await staffList(tenant), [
      [known, 'invited'],
      [fresh.email, 'active'],
    ]);
    const me = await get('/v1/auth/me', login.json().access_token);
    assert.equal(me.json().businesses[0].id, tenant.businessId);
    const audit = (await get('/v1/manage/audit-logs', tenant.apiKey)).json();
    assert.equal(audit.items[0].action, 'staff.invitation_accepted');
    assert.equal(audit.items[0].user_email, fresh.email);
    assert.equal((await loginAs(fresh.email)).statusCode, 200, 'later sign-ins as any other');
  });

  it('joins a new account made with a password through its link too', async () => {
    const tenant = await createTenant(ctx.app);
    const user = await invite(tenant, 'staff_member');
    await acceptInvitation(user.email, 'chosen by me 123');
    assert.deepEqual(await staffList(tenant), [[user.email, 'active']]);
    assert.equal((await loginAs(user.email)).statusCode, 401, 'the seeded password is gone');
  });

  it('does not join with a password the person chose elsewhere: only the seeded one joins', async () => {
    const seeding = await createTenant(ctx.app, { name: 'Seeding' });
    const employer = await createTenant(ctx.app, { name: 'Employer' });
    const email = uniqueEmail('person');
    await invite(seeding, 'staff_member', email);
    await inviteByLink(employer, 'staff_member', email);
    await acceptInvitation(email, 'my very own password');
    const login = await loginAs(email, 'my very own password');
    assert.equal(login.statusCode, 200, login.body);
    assert.deepEqual(
      login.json().businesses.map((b: { id: string }) => b.id),
      [employer.businessId],
    );
    assert.deepEqual(await staffList(seeding), [[email, 'invited']]);
  });
});

describe('invitation limits', () => {
  const DAY_MS = 86_400_000;
  const inviteAs = (headers: Record<string, string>, email = uniqueEmail('staff')) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/staff',
      headers,
      payload: { email, role: 'staff_member' },
    });
  const invitationsOf = async (businessId: string) =>
    (
      await ctx.app.db
        .selectFrom('message_outbox')
        .select('id')
        .where('business_id', '=', businessId)
        .where('subject', 'like', 'You are invited to %')
        .execute()
    ).length;
  /** Another business of the tenant's developer. */
  const anotherBusiness = async (tenant: Tenant) => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/businesses',
      headers: bearer(tenant.developer.token),
      payload: { name: 'Another', is_dev: true },
    });
    assert.equal(created.statusCode, 201, created.body);
    return bearer(created.json().api_key as string);
  };

  it('sends at most 20 per business a day, re-sends counted: 429 with Retry-After until the oldest is a day old', async () => {
    const tenant = await createTenant(ctx.app);
    const start = Date.now();
    try {
      ctx.app.clock.now = () => start;
      const first = await inviteByLink(tenant, 'staff_member');
      for (let i = 1; i < 19; i++) await inviteByLink(tenant, 'staff_member');
      ctx.app.clock.now = () => start + 60_000;
      const resend = (id: string) =>
        ctx.app.inject({ method: 'POST', url: `/v1/manage/staff/${id}/resend`, headers: tenant.headers });
      assert.equal((await resend(first.id)).statusCode, 200, 'the 20th');
      for (const refused of [await inviteAs(tenant.headers), await resend(first.id)]) {
        assert.equal(refused.statusCode, 429, refused.body);
        assert.equal(refused.json().error.code, 'rate_limit_exceeded');
        assert.equal(refused.headers['retry-after'], String(DAY_MS / 1000 - 60));
      }
      assert.equal(await invitationsOf(tenant.businessId), 20);
      // A day later the first 19 no longer count; the re-send still does, for another 59 s.
      ctx.app.clock.now = () => start + DAY_MS + 1000;
      for (let i = 0; i < 19; i++) assert.equal((await inviteAs(tenant.headers)).statusCode, 201);
      const full = await inviteAs(tenant.headers);
      assert.equal(full.statusCode, 429);
      assert.equal(full.headers['retry-after'], '59');
    } finally {
      ctx.app.clock.now = () => Date.now();
    }
  });

  it("sends at most 50 a day across a developer's businesses; another developer is unaffected", async () => {
    const tenant = await createTenant(ctx.app);
    const second = await anotherBusiness(tenant);
    const third = await anotherBusiness(tenant);
    for (const [headers, count] of [
      [tenant.headers, 20],
      [second, 20],
      [third, 10],
    ] as const) {
      for (let i = 0; i < count; i++) assert.equal((await inviteAs(headers)).statusCode, 201);
    }
    const refused = await inviteAs(third);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'rate_limit_exceeded');
    assert.ok(Number(refused.headers['retry-after']) > DAY_MS / 1000 - 600);
    assert.equal((await inviteAs((await createTenant(ctx.app)).headers)).statusCode, 201);
  });

  it('holds under concurrent invitations: no more go out than the limits allow', async () => {
    const tenant = await createTenant(ctx.app);
    const businesses = [tenant.headers, await anotherBusiness(tenant), await anotherBusiness(tenant)];
    const responses = await Promise.all(
      businesses.flatMap((headers) => Array.from({ length: 25 }, () => inviteAs(headers))),
    );
    const statuses = responses.map((r) => r.statusCode);
    assert.ok(
      statuses.every((s) => s === 201 || s === 429),
      statuses.join(),
    );
    assert.equal(statuses.filter((s) => s === 201).length, 50);
    for (let b = 0; b < 3; b++) {
      const created = statuses.slice(b * 25, b * 25 + 25).filter((s) => s === 201).length;
      assert.ok(created <= 20, `business ${b}: ${created}`);
    }
    const sent = await ctx.app.db
      .selectFrom('message_outbox')
      .innerJoin('businesses', 'businesses.id', 'message_outbox.business_id')
      .select('message_outbox.id')
      .where('businesses.developer_id', '=', tenant.developer.id)
      .execute();
    assert.equal(sent.length, 50);
  });

  it("has the platform's fixed text: the business only by its name, quoted and cut, nothing of the inviter", async () => {
    const encoded = `=?utf-8?b?${Buffer.from('Your account is locked').toString('base64')}?=`;
    const tenant = await createTenant(ctx.app, {
      name: `${encoded} URGENT: verify your password at evil.example now or lose access\u202e today`,
    });
    const user = await inviteByLink(tenant, 'staff_member');
    const [message] = await ctx.app.db
      .selectFrom('message_outbox')
      .select(['subject', 'body_text'])
      .where('to_address', '=', user.email)
      .execute();
    const name = '"URGENT: verify your password at evil.example now or lose ac…"';
    assert.equal(message?.subject, `You are invited to ${name} on Slotwise`);
    const text = (message?.body_text ?? '')
      .replace(/token=[A-Za-z0-9_]+/, 'token=TOKEN')
      .replace(/before \d{4}-\d\d-\d\d \d\d:\d\d UTC/, 'before DATE UTC');
    assert.equal(
      text,
      [
        'Hello,',
        '',
        `you are invited to work with ${name} on Slotwise.`,
        'To accept, open this link and choose your password before DATE UTC:',
        '',
        `${ctx.config.publicBaseUrl}/staff/accept?token=TOKEN`,
        '',
        'Choosing it ends every session of your account that is open elsewhere.',
        'If you did not expect this, ignore this message: nothing changes without the link.',
      ].join('\n'),
    );
  });
});
