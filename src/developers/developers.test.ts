import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import {
  bearer,
  createTenant,
  dashboardLogin,
  dashboardToken,
  RACE,
  signUpDeveloper,
  TEST_JWT_SECRET,
  uniqueEmail,
  useTestApp,
} from '../../test/helpers.ts';
import { logInDeveloper } from './developers.service.ts';

const ctx = useTestApp();

const PASSWORD = 'a long enough password';

const register = (payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/developer/register', payload });
const login = (email: string, password: string) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/developer/login', payload: { email, password } });
const refresh = (refresh_token: string) =>
  ctx.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token } });
const createBusiness = (token: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/v1/developer/businesses', headers: bearer(token), payload });
const listBusinesses = (token: string, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/v1/developer/businesses${query}`, headers: bearer(token) });

/** `count` failed logins for `email`, one a second from `first` on, each from an address of its own. */
const failedFromManyAddresses = (email: string, count: number, first: Date) =>
  ctx.database.db
    .insertInto('login_failures')
    .values(
      Array.from({ length: count }, (_, i) => ({
        account_kind: 'developer' as const,
        email,
        client_ip: `192.0.2.${i + 1}`,
        failed_at: new Date(first.getTime() + i * 1000),
      })),
    )
    .execute();

async function registered(email = uniqueEmail()) {
  const response = await register({ email, password: PASSWORD, first_name: 'Grace', last_name: 'Hopper' });
  assert.equal(response.statusCode, 201, response.body);
  return { email, id: response.json().id as string };
}

describe('POST /v1/auth/developer/register', () => {
  describe('201', () => {
    it('creates the developer and returns it without any secret', async () => {
      const email = uniqueEmail();
      const response = await register({
        email,
        password: PASSWORD,
        first_name: 'Grace',
        last_name: 'Hopper',
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.match(body.id, /^[0-9a-f-]{36}$/);
      assert.equal(body.email, email);
      assert.equal(body.first_name, 'Grace');
      assert.equal(body.last_name, 'Hopper');
      assert.ok(!Number.isNaN(Date.parse(body.created_at)));
      assert.doesNotMatch(response.body, /password|argon/i);
    });

    it("keeps the password hashed at the app's configured cost, never in clear", async () => {
      const { id } = await registered();
      const { password_hash } = await ctx.database.db
        .selectFrom('developers')
        .select('password_hash')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const { memoryKib, passes, lanes } = ctx.config.passwordCost;
      assert.ok(
        password_hash.startsWith(`$argon2id$v=19$m=${memoryKib},t=${passes},p=${lanes}$`),
        password_hash,
      );
      assert.ok(!password_hash.includes(PASSWORD));
    });
  });

  describe('409', () => {
    it('refuses an email that is taken, whatever its case', async () => {
      const { email } = await registered('Grace.Hopper@Example.com');
      for (const again of [email, email.toLowerCase(), email.toUpperCase()]) {
        const response = await register({
          email: again,
          password: PASSWORD,
          first_name: 'G',
          last_name: 'H',
        });
        assert.equal(response.statusCode, 409, response.body);
        assert.equal(response.json().error.code, 'conflict');
      }
    });
  });

  describe('422', () => {
    it('refuses names of white space only', async () => {
      const response = await register({
        email: uniqueEmail(),
        password: PASSWORD,
        first_name: '   ',
        last_name: '\n\t',
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.code, 'validation_error');
      assert.deepEqual(
        response
          .json()
          .error.fields.map((f: { field: string }) => f.field)
          .sort(),
        ['first_name', 'last_name'],
      );
    });

    it('refuses a password shorter than 10 characters', async () => {
      const response = await register({
        email: uniqueEmail(),
        password: '123456789',
        first_name: 'G',
        last_name: 'H',
      });
      assert.equal(response.statusCode, 422);
      const { error } = response.json();
      assert.equal(error.code, 'validation_error');
      assert.deepEqual(
        error.fields.map((f: { field: string }) => f.field),
        ['password'],
      );
      assert.match(error.message, /password/);
    });

    it('refuses an invalid email, missing names and unknown fields, naming each', async () => {
      const response = await register({ email: 'not-an-email', password: PASSWORD, nickname: 'x' });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      for (const field of ['email', 'first_name', 'last_name', 'nickname']) {
        assert.ok(fields.includes(field), `${field} in ${fields}`);
      }
    });
  });
});

describe('POST /v1/auth/developer/login', () => {
  describe('200', () => {
    it('returns a one-hour developer access token and a refresh token', async () => {
      const { email, id } = await registered();
      const response = await login(email.toUpperCase(), PASSWORD);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 3600);
      assert.ok(body.refresh_token.length > 20);
      const claims = decodeJwt(body.access_token);
      assert.equal(claims.sub, id);
      assert.equal(claims.email, email);
      assert.deepEqual(claims.app_metadata, { role: 'developer' });
      assert.equal(claims.exp! - claims.iat!, 3600);
    });
  });

  describe('401', () => {
    it('gives the same invalid_token answer for a wrong password and an unknown email', async () => {
      const { email } = await registered();
      const wrongPassword = await login(email, 'not the password at all');
      const unknownEmail = await login(uniqueEmail(), PASSWORD);
      for (const response of [wrongPassword, unknownEmail]) {
        assert.equal(response.statusCode, 401);
        assert.equal(response.json().error.code, 'invalid_token');
      }
      assert.deepEqual(wrongPassword.json(), unknownEmail.json());
    });
  });

  describe('429', () => {
    const failTenTimes = async (email: string) => {
      for (let i = 0; i < 10; i++)
        assert.equal((await login(email, 'not the password at all')).statusCode, 401);
    };

    it('locks an email after 10 failed logins, even for the right password; another email is unaffected', async () => {
      const { email } = await registered();
      const other = await registered();
      await failTenTimes(email);
      const locked = await login(email.toUpperCase(), PASSWORD);
      assert.equal(locked.statusCode, 429);
      assert.equal(locked.json().error.code, 'rate_limit_exceeded');
      const retryAfter = Number(locked.headers['retry-after']);
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
      assert.equal((await login(other.email, PASSWORD)).statusCode, 200);
    });

    it('locks an unknown email the same way, so a lock does not tell whether an account exists', async () => {
      const { email } = await registered();
      const unknown = uniqueEmail();
      await failTenTimes(email);
      await failTenTimes(unknown);
      const [known, stranger] = [await login(email, PASSWORD), await login(unknown, PASSWORD)];
      for (const response of [known, stranger]) {
        assert.equal(response.statusCode, 429);
        assert.ok(Number(response.headers['retry-after']) > 0);
      }
      assert.deepEqual(Object.keys(known.json().error), Object.keys(stranger.json().error));
    });

    it('counts failures within 15 minutes of each other only, and keeps a lock for 15 minutes', async () => {
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      const failedAt = (email: string, at: Date[]) =>
        ctx.database.db
          .insertInto('login_failures')
          .values(
            at.map((failed_at) => ({
              account_kind: 'developer' as const,
              email,
              client_ip: '127.0.0.1',
              failed_at,
            })),
          )
          .execute();
      const spread = await registered();
      const ended = await registered();
      const current = await registered();
      // Ten failures over 18 minutes: never ten within 15.
      await failedAt(
        spread.email,
        Array.from({ length: 10 }, (_, i) => minutesAgo(20 - 2 * i)),
      );
      // Ten within a minute, the last 16 minutes ago: that lock has ended.
      await failedAt(
        ended.email,
        Array.from({ length: 10 }, (_, i) => minutesAgo(17 - i / 10)),
      );
      // Ten within a minute, the last 14 minutes ago: about a minute of the lock is left.
      await failedAt(
        current.email,
        Array.from({ length: 10 }, (_, i) => minutesAgo(15 - i / 10)),
      );
      assert.equal((await login(spread.email, PASSWORD)).statusCode, 200);
      assert.equal((await login(ended.email, PASSWORD)).statusCode, 200);
      const locked = await login(current.email, PASSWORD);
      assert.equal(locked.statusCode, 429);
      const retryAfter = Number(locked.headers['retry-after']);
      assert.ok(retryAfter > 30 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    });

    it('lets the account in again 15 minutes after the tenth failure (the clock is a parameter)', async () => {
      const { email } = await registered();
      const start = new Date();
      const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
      const attempt = (password: string, now: Date) =>
        logInDeveloper(
          ctx.app.db,
          ctx.app.tokens,
          ctx.app.passwords,
          { email, password },
          { now, clientIp: '127.0.0.1' },
        );
      for (let i = 0; i < 10; i++) {
        await assert.rejects(attempt('wrong password!', at(i)), { status: 401 });
      }
      await assert.rejects(attempt(PASSWORD, at(9 + 15 * 60 - 1)), { status: 429, retryAfterSeconds: 1 });
      const pair = await attempt(PASSWORD, at(9 + 15 * 60));
      assert.ok(pair.access_token);
    });
  });

  describe('429 per client address', () => {
    const from = (remoteAddress: string, email: string, password: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/developer/login',
        payload: { email, password },
        remoteAddress,
      });

    it('locks an email for the failing address only: the owner still logs in from another', async () => {
      const { email } = await registered();
      for (let i = 0; i < 10; i++) {
        assert.equal((await from('203.0.113.7', email, 'not the password at all')).statusCode, 401);
      }
      const attacker = await from('203.0.113.7', email, PASSWORD);
      assert.equal(attacker.statusCode, 429);
      assert.equal(attacker.json().error.code, 'rate_limit_exceeded');
      assert.ok(Number(attacker.headers['retry-after']) > 14 * 60);
      const owner = await from('198.51.100.2', email, PASSWORD);
      assert.equal(owner.statusCode, 200, owner.body);
    });

    it('slows an email to one attempt per 10 s after 100 failures from all addresses together', async () => {
      const { email } = await registered();
      const start = Date.now();
      const at = (seconds: number) => new Date(start + seconds * 1000);
      // 100 failures from 100 addresses in the last two minutes, the newest 11 s ago.
      await failedFromManyAddresses(email, 100, at(-111));
      const attempt = (password: string, seconds: number, clientIp = '198.51.100.9') =>
        logInDeveloper(
          ctx.app.db,
          ctx.app.tokens,
          ctx.app.passwords,
          { email, password },
          { now: at(seconds), clientIp },
        );
      await assert.rejects(attempt('wrong password!', 0), { status: 401 });
      await assert.rejects(attempt(PASSWORD, 4, '198.51.100.10'), { status: 429, retryAfterSeconds: 6 });
      const pair = await attempt(PASSWORD, 10, '198.51.100.10');
      assert.ok(pair.access_token);
    });

    it('does not slow an email with fewer than 100 failures in 15 minutes', async () => {
      const { email } = await registered();
      const start = Date.now();
      const at = (seconds: number) => new Date(start + seconds * 1000);
      await failedFromManyAddresses(email, 99, at(-100));
      const pair = await logInDeveloper(
        ctx.app.db,
        ctx.app.tokens,
        ctx.app.passwords,
        { email, password: PASSWORD },
        { now: at(0), clientIp: '198.51.100.9' },
      );
      assert.ok(pair.access_token);
    });
  });

  describe('422', () => {
    it('needs an email and a password', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/developer/login',
        payload: {},
      });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      assert.deepEqual(fields.sort(), ['email', 'password']);
    });
  });
});

describe('POST /v1/auth/refresh', () => {
  describe('200', () => {
    it('exchanges a refresh token for a new pair that works', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const first = (await login(developer.email, developer.password)).json();
      const response = await refresh(first.refresh_token);
      assert.equal(response.statusCode, 200, response.body);
      const pair = response.json();
      assert.notEqual(pair.refresh_token, first.refresh_token);
      assert.equal(pair.expires_in, 3600);
      assert.equal(decodeJwt(pair.access_token).sub, developer.id);
      const listed = await listBusinesses(pair.access_token);
      assert.equal(listed.statusCode, 200);
    });

    it('refreshes a dashboard user with their current role and business', async () => {
      const tenant = await createTenant(ctx.app);
      const loggedIn = await dashboardLogin(ctx.app, tenant, 'business_owner');
      const response = await refresh(loggedIn.json().refresh_token);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(decodeJwt(response.json().access_token).app_metadata, {
        role: 'business_owner',
        business_id: tenant.businessId,
      });
    });
  });

  describe('401', () => {
    it('rotates: a spent refresh token fails the second time', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const { refresh_token } = (await login(developer.email, developer.password)).json();
      assert.equal((await refresh(refresh_token)).statusCode, 200);
      const again = await refresh(refresh_token);
      assert.equal(again.statusCode, 401);
      assert.equal(again.json().error.code, 'invalid_token');
    });

    it('revokes the whole family when a spent refresh token comes back: the token it was exchanged for dies too', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const r1 = (await login(developer.email, developer.password)).json().refresh_token;
      const other = (await login(developer.email, developer.password)).json().refresh_token;
      const exchanged = await refresh(r1);
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      const r2 = exchanged.json().refresh_token;
      const reused = await refresh(r1);
      assert.equal(reused.statusCode, 401);
      assert.equal(reused.json().error.code, 'invalid_token');
      const descendant = await refresh(r2);
      assert.equal(descendant.statusCode, 401);
      assert.equal(descendant.json().error.code, 'invalid_token');
      assert.equal((await refresh(other)).statusCode, 200, 'another login is another family');
    });

    it('refuses an unknown refresh token', async () => {
      const response = await refresh('rt_unknown');
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error.code, 'invalid_token');
    });
  });

  describe('422', () => {
    it('needs refresh_token', async () => {
      const response = await ctx.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: {} });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'refresh_token');
    });
  });
});

describe('POST /v1/developer/businesses', () => {
  describe('201', () => {
    it('creates a live business with an all-scope live key that reaches the business', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const response = await createBusiness(developer.token, {
        name: 'Salon Lumière',
        business_type: 'salon',
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.equal(body.name, 'Salon Lumière');
      assert.equal(body.slug, 'salon-lumiere');
      assert.equal(body.business_type, 'salon');
      assert.equal(body.is_dev, false);
      assert.deepEqual(body.scopes, ['read', 'write', 'admin']);
      assert.match(body.api_key, /^svc_live_[A-Za-z0-9]{40}$/);
      const own = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/business',
        headers: bearer(body.api_key),
      });
      assert.equal(own.statusCode, 200);
      assert.deepEqual(own.json(), { id: body.business_id, name: 'Salon Lumière', slug: 'salon-lumiere' });
    });

    it('gives a sandbox business (is_dev) a test key', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const response = await createBusiness(developer.token, { name: 'Sandbox', is_dev: true });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().is_dev, true);
      assert.match(response.json().api_key, /^svc_test_/);
    });

    it('derives a unique slug from the name, across developers', async () => {
      const first = await signUpDeveloper(ctx.app);
      const second = await signUpDeveloper(ctx.app);
      const slugs = [];
      for (const token of [first.token, first.token, second.token]) {
        const response = await createBusiness(token, { name: 'Café Nord' });
        assert.equal(response.statusCode, 201, response.body);
        slugs.push(response.json().slug);
      }
      assert.deepEqual(slugs, ['cafe-nord', 'cafe-nord-2', 'cafe-nord-3']);
    });

    it('gives different slugs to businesses of the same name created at the same moment', RACE, async () => {
      const developer = await signUpDeveloper(ctx.app);
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => createBusiness(developer.token, { name: 'Café Nord' })),
      );
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [201, 201, 201, 201, 201],
      );
      assert.equal(new Set(responses.map((r) => r.json().slug)).size, 5);
    });

    it('still makes a slug of a name without any letter or digit', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const response = await createBusiness(developer.token, { name: '★★★' });
      assert.equal(response.statusCode, 201);
      assert.equal(response.json().slug, 'business');
    });
  });

  describe('401', () => {
    it('needs a valid developer token', async () => {
      for (const headers of [{}, bearer('not.a.jwt'), bearer('svc_live_unknown')]) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/v1/developer/businesses',
          headers,
          payload: { name: 'X' },
        });
        assert.equal(response.statusCode, 401);
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });

  describe('403', () => {
    it('refuses an API key and a dashboard user', async () => {
      const tenant = await createTenant(ctx.app);
      const owner = await dashboardToken(ctx.app, tenant, 'business_owner');
      for (const token of [tenant.apiKey, owner]) {
        const response = await createBusiness(token, { name: 'X' });
        assert.equal(response.statusCode, 403);
        assert.equal(response.json().error.code, 'insufficient_permissions');
      }
    });
  });

  describe('422', () => {
    it('refuses a name of white space only', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const response = await createBusiness(developer.token, { name: '  ' });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'name');
    });

    it('needs a name and refuses unknown fields', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const response = await createBusiness(developer.token, { name: '', colour: 'blue' });
      assert.equal(response.statusCode, 422);
      const fields = response.json().error.fields.map((f: { field: string }) => f.field);
      assert.deepEqual(fields.sort(), ['colour', 'name']);
    });
  });
});

describe('GET /v1/developer/businesses', () => {
  describe('200', () => {
    it("lists only the developer's own businesses, oldest first, with id and business_id", async () => {
      const developer = await signUpDeveloper(ctx.app);
      const other = await signUpDeveloper(ctx.app);
      await createBusiness(other.token, { name: 'Not Mine' });
      const ids = [];
      for (const name of ['One', 'Two', 'Three']) {
        ids.push(
          (await createBusiness(developer.token, { name, is_dev: name === 'Two' })).json().business_id,
        );
      }
      const response = await listBusinesses(developer.token);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.has_more, false);
      assert.equal(body.next_cursor, null);
      assert.deepEqual(
        body.items.map((b: { id: string }) => b.id),
        ids,
      );
      const [first, second] = body.items;
      assert.equal(first.business_id, first.id);
      assert.equal(first.name, 'One');
      assert.equal(first.slug, 'one');
      assert.equal(first.is_dev, false);
      assert.equal(second.is_dev, true);
      assert.ok(!Number.isNaN(Date.parse(first.created_at)));
    });

    it('pages with limit and cursor', async () => {
      const developer = await signUpDeveloper(ctx.app);
      for (const name of ['A', 'B', 'C']) await createBusiness(developer.token, { name });
      const page1 = (await listBusinesses(developer.token, '?limit=2')).json();
      assert.deepEqual(
        page1.items.map((b: { name: string }) => b.name),
        ['A', 'B'],
      );
      assert.equal(page1.has_more, true);
      const page2 = (await listBusinesses(developer.token, `?limit=2&cursor=${page1.next_cursor}`)).json();
      assert.deepEqual(
        page2.items.map((b: { name: string }) => b.name),
        ['C'],
      );
      assert.equal(page2.has_more, false);
      assert.equal(page2.next_cursor, null);
    });
  });

  describe('422', () => {
    it("refuses another developer's cursor, naming cursor", async () => {
      const developer = await signUpDeveloper(ctx.app);
      for (const name of ['A', 'B']) await createBusiness(developer.token, { name });
      const cursor = (await listBusinesses(developer.token, '?limit=1')).json().next_cursor;
      const other = await signUpDeveloper(ctx.app);
      const response = await listBusinesses(other.token, `?cursor=${cursor}`);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, 'cursor');
    });
  });

  describe('401', () => {
    it('needs a credential', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/v1/developer/businesses' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error.code, 'invalid_token');
    });

    it('refuses a token that never expires (no exp), though signed with the right secret', async () => {
      const developer = await signUpDeveloper(ctx.app);
      const tenant = await createTenant(ctx.app);
      const owner = decodeJwt(await dashboardToken(ctx.app, tenant, 'business_owner'));
      const key = new TextEncoder().encode(TEST_JWT_SECRET);
      const unending = (claims: Record<string, unknown>, sub: string) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setSubject(sub)
          .setIssuedAt()
          .sign(key);
      const developerToken = await unending(
        { email: developer.email, app_metadata: { role: 'developer' } },
        developer.id,
      );
      const ownerToken = await unending({ email: owner.email, app_metadata: owner.app_metadata }, owner.sub!);
      for (const [url, token] of [
        ['/v1/developer/businesses', developerToken],
        ['/v1/manage/business', ownerToken],
      ] as const) {
        const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(token) });
        assert.equal(response.statusCode, 401, url);
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });

  describe('403', () => {
    it('refuses an API key', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await listBusinesses(tenant.apiKey);
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'insufficient_permissions');
    });
  });

  describe('422', () => {
    it('refuses a limit over 200 and a garbage cursor', async () => {
      const developer = await signUpDeveloper(ctx.app);
      for (const query of ['?limit=201', '?cursor=garbage']) {
        const response = await listBusinesses(developer.token, query);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });
  });
});

/** These pass once the app-wide hook that turns `config.sensitive` into the header is in place. */
describe('Cache-Control: no-store on responses with secrets', () => {
  const assertNoStore = (response: {
    statusCode: number;
    headers: Record<string, unknown>;
    body: string;
  }) => {
    assert.ok(response.statusCode < 300, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
  };
  const dashboardSession = async () => {
    const tenant = await createTenant(ctx.app);
    return { tenant, loggedIn: await dashboardLogin(ctx.app, tenant, 'business_owner') };
  };

  it('POST /v1/auth/developer/login', async () => {
    const { email } = await registered();
    assertNoStore(await login(email, PASSWORD));
  });

  it('POST /v1/auth/refresh', async () => {
    const developer = await signUpDeveloper(ctx.app);
    const { refresh_token } = (await login(developer.email, developer.password)).json();
    assertNoStore(await refresh(refresh_token));
  });

  it('POST /v1/auth/login', async () => {
    assertNoStore((await dashboardSession()).loggedIn);
  });

  it('POST /v1/auth/switch', async () => {
    const { tenant, loggedIn } = await dashboardSession();
    assertNoStore(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/switch',
        headers: bearer(loggedIn.json().access_token),
        payload: { business_id: tenant.businessId },
      }),
    );
  });

  it('POST /v1/developer/businesses', async () => {
    const developer = await signUpDeveloper(ctx.app);
    assertNoStore(await createBusiness(developer.token, { name: 'Secret Keeper' }));
  });

  it('POST /v1/manage/api-keys', async () => {
    const tenant = await createTenant(ctx.app);
    assertNoStore(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/api-keys',
        headers: tenant.headers,
        payload: { name: 'server' },
      }),
    );
  });
});
