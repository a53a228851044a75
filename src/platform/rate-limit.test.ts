// test lane: system
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { stopProcess } from '../../bench/process.ts';
import { BOOKING_DAY, guest, setupBookable } from '../../test/booking-fixtures.ts';
import {
  bearer,
  createKey,
  createPublishableKey,
  createTenant,
  createTestApp,
  TEST_PROCESS_ENV,
  uniqueEmail,
  useTestApp,
} from '../../test/helpers.ts';
import { RATE_LIMITS } from './rate-limit.ts';

const ctx = useTestApp();

const getBusiness = (headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers });

function assertLimitHeaders(response: LightMyRequestResponse, limit: number, remaining: number): void {
  assert.equal(response.headers['ratelimit-limit'], String(limit));
  assert.equal(response.headers['ratelimit-remaining'], String(remaining));
  const reset = Number(response.headers['ratelimit-reset']);
  assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
}

function assertRefused(response: LightMyRequestResponse, limit: number): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.equal(response.json().error.code, 'rate_limit_exceeded');
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assertLimitHeaders(response, limit, 0);
}

describe('RateLimit headers', () => {
  it('are on every response of a credential, counting down from 600', async () => {
    const tenant = await createTenant(ctx.app);
    const first = await getBusiness(tenant.headers);
    assert.equal(first.statusCode, 200);
    assertLimitHeaders(first, RATE_LIMITS.authenticated, RATE_LIMITS.authenticated - 1);
    const missing = await ctx.app.inject({
      method: 'DELETE',
      url: '/v1/manage/api-keys/00000000-0000-4000-8000-000000000000',
      headers: tenant.headers,
    });
    assert.equal(missing.statusCode, 404);
    assertLimitHeaders(missing, RATE_LIMITS.authenticated, RATE_LIMITS.authenticated - 2);
  });

  it('are on calls without a credential and on refused credentials, counted per client IP from 300', async () => {
    const tenant = await createTenant(ctx.app);
    const remoteAddress = '203.0.113.10';
    const publicRead = await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${tenant.businessId}?date=2030-01-07`,
      remoteAddress,
    });
    assertLimitHeaders(publicRead, RATE_LIMITS.anonymousPerIp, RATE_LIMITS.anonymousPerIp - 1);
    const badKey = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/business',
      headers: bearer('svc_live_notakey'),
      remoteAddress,
    });
    assert.equal(badKey.statusCode, 401);
    assertLimitHeaders(badKey, RATE_LIMITS.anonymousPerIp, RATE_LIMITS.anonymousPerIp - 2);
  });

  it('are absent from probes and the API reference, which are not limited', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/h%65althz', '/r%65adyz/']) {
      const response = await ctx.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['ratelimit-limit'], undefined, url);
    }
  });

  it("are absent from the payment processor's events, which come in bursts and are signed", async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/webhooks/payments',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.headers['ratelimit-limit'], undefined);
  });

  it('count the account endpoints per IP in a bucket of their own', async () => {
    const remoteAddress = '198.51.100.7';
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/developer/login',
      remoteAddress,
      payload: { email: uniqueEmail(), password: 'not the password' },
    });
    assert.equal(login.statusCode, 401);
    assertLimitHeaders(login, RATE_LIMITS.accountsPerIp, RATE_LIMITS.accountsPerIp - 1);
    const read = await ctx.app.inject({ method: 'GET', url: '/v1/manage/business', remoteAddress });
    assert.equal(read.headers['ratelimit-remaining'], String(RATE_LIMITS.anonymousPerIp - 1));
  });

  it('count the account endpoints in their bucket however their path is spelled (percent-encoded)', async () => {
    const remoteAddress = '198.51.100.8';
    let remaining = RATE_LIMITS.accountsPerIp;
    for (const url of [
      '/v1/%61uth/developer/login',
      '/v1/auth/%64eveloper/login',
      '/v1/auth/developer/login/',
    ]) {
      const login = await ctx.app.inject({
        method: 'POST',
        url,
        remoteAddress,
        payload: { email: uniqueEmail(), password: 'not the password' },
      });
      assert.equal(login.statusCode, 401, `${url}: ${login.body}`);
      assertLimitHeaders(login, RATE_LIMITS.accountsPerIp, --remaining);
    }
  });
});

describe('client IP behind a proxy (TRUST_PROXY)', () => {
  it('counts by X-Forwarded-For only when the connecting proxy is trusted', async () => {
    const behindProxy = await createTestApp({ trustProxy: ['127.0.0.1'] });
    try {
      const read = (app: typeof ctx.app, remoteAddress: string, forwardedFor: string) =>
        app.inject({
          method: 'GET',
          url: '/v1/manage/business',
          remoteAddress,
          headers: { 'x-forwarded-for': forwardedFor },
        });
      const a = await read(behindProxy.app, '127.0.0.1', '203.0.113.50');
      const b = await read(behindProxy.app, '127.0.0.1', '203.0.113.51');
      assert.equal(a.headers['ratelimit-remaining'], String(RATE_LIMITS.anonymousPerIp - 1));
      assert.equal(b.headers['ratelimit-remaining'], String(RATE_LIMITS.anonymousPerIp - 1), 'two clients');
      // Without a trusted proxy the header is the client's own claim and changes nothing.
      const c = await read(ctx.app, '198.51.100.60', '203.0.113.52');
      const d = await read(ctx.app, '198.51.100.60', '203.0.113.53');
      assert.equal(c.headers['ratelimit-remaining'], String(RATE_LIMITS.anonymousPerIp - 1));
      assert.equal(d.headers['ratelimit-remaining'], String(RATE_LIMITS.anonymousPerIp - 2), 'one client');
    } finally {
      await behindProxy.close();
    }
  });
});

describe('429 rate_limit_exceeded', () => {
  it('bounds sign-up and login attempts from one IP', async () => {
    const remoteAddress = '203.0.113.9';
    const attempt = () =>
      ctx.app.inject({ method: 'POST', url: '/v1/auth/developer/register', remoteAddress, payload: {} });
    for (let call = 1; call <= RATE_LIMITS.accountsPerIp; call++)
      assert.equal((await attempt()).statusCode, 422);
    const refused = await attempt();
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'rate_limit_exceeded');
    assert.ok(Number(refused.headers['retry-after']) > 0);
  });

  it('refuses call N+1 of a key with rate_limit_per_minute N, with Retry-After, on every endpoint', async () => {
    const tenant = await createTenant(ctx.app);
    const key = await createKey(ctx.app, tenant, ['admin'], { rate_limit_per_minute: 3 });
    for (let call = 1; call <= 3; call++) {
      const response =
        call === 2
          ? await ctx.app.inject({ method: 'GET', url: '/v1/manage/api-keys', headers: bearer(key) })
          : await getBusiness(bearer(key));
      assert.equal(response.statusCode, 200, response.body);
      assertLimitHeaders(response, 3, 3 - call);
    }
    assertRefused(await getBusiness(bearer(key)), 3);
    assertRefused(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: bearer(key),
        payload: { business_id: tenant.businessId },
      }),
      3,
    );
  });

  it('leaves the Retry-After of an answer given before the limit was checked as it was', async () => {
    const tenant = await createTenant(ctx.app);
    const key = await createKey(ctx.app, tenant, ['admin'], { rate_limit_per_minute: 1 });
    assert.equal((await getBusiness(bearer(key))).statusCode, 200);
    // A body that does not parse is answered before the limit's check; it is counted afterwards.
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/resources',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers['retry-after'], undefined);
  });

  it('keeps separate counters for two keys', async () => {
    const tenant = await createTenant(ctx.app);
    const spent = await createKey(ctx.app, tenant, ['read'], { rate_limit_per_minute: 1 });
    const fresh = await createKey(ctx.app, tenant, ['read'], { rate_limit_per_minute: 1 });
    assert.equal((await getBusiness(bearer(spent))).statusCode, 200);
    assertRefused(await getBusiness(bearer(spent)), 1);
    const other = await getBusiness(bearer(fresh));
    assert.equal(other.statusCode, 200);
    assertLimitHeaders(other, 1, 0);
  });

  it('refuses the 61st public booking call of a key a minute, while its other calls go on', async () => {
    const tenant = await createTenant(ctx.app);
    // Every spelling of the route is the same route, so it is one counter.
    const spellings = ['/v1/bookings/', '/v1/bookings', '/v1/%62ookings', '/v1/b%6Fokings/'];
    let calls = 0;
    const book = () =>
      ctx.app.inject({
        method: 'POST',
        url: spellings[calls++ % spellings.length]!,
        headers: tenant.headers,
        payload: { business_id: tenant.businessId },
      });
    for (let call = 1; call <= RATE_LIMITS.bookingCreation; call++) {
      const response = await book();
      assert.notEqual(response.statusCode, 429, `call ${call}`);
      assertLimitHeaders(response, RATE_LIMITS.bookingCreation, RATE_LIMITS.bookingCreation - call);
    }
    assertRefused(await book(), RATE_LIMITS.bookingCreation);
    const read = await getBusiness(tenant.headers);
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['ratelimit-limit'], String(RATE_LIMITS.authenticated));
  });

  it('counts dynamic booking creation in the same bucket as public booking creation', async () => {
    const tenant = await createTenant(ctx.app);
    const book = (url: string) =>
      ctx.app.inject({
        method: 'POST',
        url,
        headers: tenant.headers,
        payload: { business_id: tenant.businessId },
      });
    for (let call = 1; call <= RATE_LIMITS.bookingCreation; call++) {
      const response = await book(call % 2 ? '/v1/dynamic/bookings' : '/v1/bookings');
      assert.notEqual(response.statusCode, 429, `call ${call}`);
      assertLimitHeaders(response, RATE_LIMITS.bookingCreation, RATE_LIMITS.bookingCreation - call);
    }
    assertRefused(await book('/v1/dynamic/bookings'), RATE_LIMITS.bookingCreation);
  });

  it('refuses the 301st call without a credential from one client IP, not from another', async () => {
    const tenant = await createTenant(ctx.app);
    const read = (remoteAddress: string) =>
      ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${tenant.businessId}?date=2030-01-07`,
        remoteAddress,
      });
    for (let call = 1; call <= RATE_LIMITS.anonymousPerIp; call++) {
      assert.notEqual((await read('203.0.113.20')).statusCode, 429, `call ${call}`);
    }
    assertRefused(await read('203.0.113.20'), RATE_LIMITS.anonymousPerIp);
    assert.notEqual((await read('203.0.113.21')).statusCode, 429);
  });

  it("refuses a client IP's public bookings of a business past its hourly setting, not another IP's", async () => {
    const shop = 'https://shop.example';
    const biz = await setupBookable(ctx.app, { settings: { public_bookings_per_ip_per_hour: 3 } });
    const { key } = await createPublishableKey(ctx.app, biz.tenant, [shop]);
    let hour = 8;
    const book = (remoteAddress: string, url = '/v1/bookings') =>
      ctx.app.inject({
        method: 'POST',
        url,
        remoteAddress,
        headers: { ...bearer(key), origin: shop },
        payload: {
          business_id: biz.tenant.businessId,
          booking_date: BOOKING_DAY,
          start_time: `${String(++hour).padStart(2, '0')}:00`,
          capacity: 1,
          ...guest(),
        },
      });
    for (let n = 1; n <= 3; n++) {
      const booked = await book('203.0.113.30');
      assert.equal(booked.statusCode, 201, `booking ${n}: ${booked.body}`);
      assert.equal(booked.headers['ratelimit-limit'], '3');
      assert.equal(booked.headers['ratelimit-remaining'], String(3 - n));
    }
    for (const url of ['/v1/bookings', '/v1/dynamic/bookings']) {
      const refused = await book('203.0.113.30', url);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.json().error.code, 'rate_limit_exceeded');
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 60 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers['ratelimit-limit'], '3');
      assert.equal(refused.headers['ratelimit-remaining'], '0');
      assert.equal(refused.headers['ratelimit-reset'], String(retryAfter));
    }
    const elsewhere = await book('203.0.113.31');
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);
    // A secret key is not limited by it.
    const secret = await ctx.app.inject({
      method: 'POST',
      url: '/v1/bookings',
      remoteAddress: '203.0.113.30',
      headers: biz.tenant.headers,
      payload: {
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        start_time: '15:00',
        ...guest(),
      },
    });
    assert.equal(secret.statusCode, 201, secret.body);
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;
const SERVER_URL = process.env.TEST_DATABASE_URL;

interface Server {
  child: ChildProcess;
  base: string;
}

/** Starts `node src/main.ts` and resolves with its address once it says it is listening. */
async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: new URL('../../', import.meta.url).pathname,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Slotwise is running at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`the server exited with ${code} before listening:\n${output}`)),
    );
  });
  return { child, base };
}

async function call<Body = { error?: { code: string } }>(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

describe('shared limit across processes (Redis)', {
  skip:
    REDIS_URL && SERVER_URL
      ? false
      : 'needs TEST_REDIS_URL and TEST_DATABASE_URL: two server processes share one PostgreSQL database and one Redis',
}, () => {
  const name = `slotwise_rate_${process.pid}_${randomBytes(4).toString('hex')}`;
  const servers: Server[] = [];

  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };

  before(async () => {
    await admin(`CREATE DATABASE ${name}`);
    const databaseUrl = new URL(SERVER_URL!);
    databaseUrl.pathname = `/${name}`;
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL,
      REDIS_KEY_PREFIX: `${name}:`,
      ...TEST_PROCESS_ENV,
      HOST: '127.0.0.1',
      PORT: '0',
    };
    // One after the other: the first applies the migrations, the second finds them applied.
    servers.push(await startServer(env));
    servers.push(await startServer(env));
  });

  after(async () => {
    await Promise.all(servers.map((server) => stopProcess(server.child)));
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('refuses the 6th call of a key limited to 5, with calls alternating between two processes', async () => {
    const [a, b] = servers.map((server) => server.base) as [string, string];
    assert.notEqual(a, b);
    const email = uniqueEmail();
    const password = 'correct horse battery';
    const registered = await call(a, 'POST', '/v1/auth/developer/register', undefined, {
      email,
      password,
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const login = await call<{ access_token: string }>(b, 'POST', '/v1/auth/developer/login', undefined, {
      email,
      password,
    });
    const business = await call<{ api_key: string }>(
      a,
      'POST',
      '/v1/developer/businesses',
      login.body.access_token,
      {
        name: 'Two processes',
      },
    );
    assert.equal(business.status, 201, JSON.stringify(business.body));
    const limited = await call<{ key: string }>(b, 'POST', '/v1/manage/api-keys', business.body.api_key, {
      name: 'limited',
      scopes: ['read'],
      rate_limit_per_minute: 5,
    });
    assert.equal(limited.status, 201, JSON.stringify(limited.body));

    for (let n = 1; n <= 5; n++) {
      const response = await call(n % 2 ? a : b, 'GET', '/v1/manage/business', limited.body.key);
      assert.equal(response.status, 200, `call ${n}: ${JSON.stringify(response.body)}`);
      assert.equal(response.headers.get('ratelimit-remaining'), String(5 - n));
    }
    const sixth = await call<{ error: { code: string } }>(b, 'GET', '/v1/manage/business', limited.body.key);
    assert.equal(sixth.status, 429);
    assert.equal(sixth.body.error.code, 'rate_limit_exceeded');
    assert.ok(Number(sixth.headers.get('retry-after')) >= 1);
  });
});
