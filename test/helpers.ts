import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { type Database, openPGlite, openPostgres } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { isUuid } from '../src/platform/schemas.ts';

/**
 * Tests run on embedded PGlite, or on a real PostgreSQL server when TEST_DATABASE_URL names one:
 * each test file then gets a database of its own, dropped at the end.
 */
export const ENGINE = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestContext {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** The test file's own PostgreSQL database; undefined on PGlite. */
  databaseUrl: string | undefined;
  /** Empties every table, so each test starts from a blank service. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

async function openTestDatabase(): Promise<{ database: Database; url?: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { database: await openPGlite(), drop: async () => {} };
  const name = `slotwise_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), 20);
  return {
    database,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** `extend` may add routes or hooks to the app before it is ready (e.g. a route that throws). */
export async function createTestApp(
  overrides: Partial<Config> = {},
  extend?: (app: FastifyInstance) => void,
): Promise<TestContext> {
  const { database, url, drop } = await openTestDatabase();
  await migrate(database);
  const config = {
    ...loadConfig({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: 'postgres://unused' }),
    ...overrides,
  };
  const app = await buildApp({ config, database });
  extend?.(app);
  await app.ready();
  const { rows } = await sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`.execute(
    database.db,
  );
  const tables = rows.map((row) => `"${row.tablename}"`).join(', ');
  return {
    app,
    database,
    config,
    databaseUrl: url,
    reset: async () => {
      await sql.raw(`TRUNCATE ${tables} CASCADE`).execute(database.db);
    },
    close: async () => {
      await app.close();
      await database.close();
      await drop();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let counter = 0;
export const uniqueEmail = (label = 'dev') =>
  `${label}-${process.pid}-${++counter}-${randomBytes(3).toString('hex')}@example.com`;

export interface Developer {
  id: string;
  email: string;
  password: string;
  token: string;
}

export async function signUpDeveloper(app: FastifyInstance): Promise<Developer> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const registered = await app.inject({
    method: 'POST',
    url: '/v1/auth/developer/register',
    payload: { email, password, first_name: 'Ada', last_name: 'Lovelace' },
  });
  assert.equal(registered.statusCode, 201, registered.body);
  const login = await app.inject({
    method: 'POST',
    url: '/v1/auth/developer/login',
    payload: { email, password },
  });
  assert.equal(login.statusCode, 200, login.body);
  return { id: registered.json().id, email, password, token: login.json().access_token };
}

export interface Tenant {
  developer: Developer;
  businessId: string;
  slug: string;
  /** The business's first key: all scopes. */
  apiKey: string;
  headers: Record<string, string>;
}

export async function createTenant(
  app: FastifyInstance,
  body: { name?: string; business_type?: string; is_dev?: boolean } = {},
): Promise<Tenant> {
  const developer = await signUpDeveloper(app);
  const created = await app.inject({
    method: 'POST',
    url: '/v1/developer/businesses',
    headers: bearer(developer.token),
    payload: { name: body.name ?? 'Chez Test', ...body },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { business_id, api_key, slug } = created.json();
  return { developer, businessId: business_id, slug, apiKey: api_key, headers: bearer(api_key) };
}

export async function createKey(
  app: FastifyInstance,
  tenant: Tenant,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  return (await createKeyWithId(app, tenant, scopes, extra)).key;
}

export async function createKeyWithId(
  app: FastifyInstance,
  tenant: Tenant,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ key: string; id: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/manage/api-keys',
    headers: tenant.headers,
    payload: { name: `key-${scopes.join('-')}`, scopes, ...extra },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { key: response.json().key, id: response.json().id };
}

/** Invites a dashboard user and logs them in; returns their access token. */
export async function dashboardToken(
  app: FastifyInstance,
  tenant: Tenant,
  role: 'business_owner' | 'staff_member',
): Promise<string> {
  const email = uniqueEmail(role);
  const password = 'staff password 123';
  const invited = await app.inject({
    method: 'POST',
    url: '/v1/manage/staff',
    headers: tenant.headers,
    payload: { email, role, password },
  });
  assert.equal(invited.statusCode, 201, invited.body);
  const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } });
  assert.equal(login.statusCode, 200, login.body);
  return login.json().access_token;
}

export interface RouteUnderTest {
  method: InjectOptions['method'];
  url: string;
  payload?: unknown;
  /** The narrowest scope the route accepts. */
  scope: 'read' | 'write' | 'admin';
  /** Whether a staff_member may call it. */
  staff: boolean;
}

/** Why `route` reaches into `tenant`'s data: a UUID in its path or the business's id in its body. */
function namedObjectOf(route: RouteUnderTest, tenant: Tenant): string | undefined {
  const id = route.url.split('?')[0]!.split('/').find(isUuid);
  if (id) return `the path names ${id}`;
  const payload = route.payload as { business_id?: unknown } | undefined;
  if (payload && !Array.isArray(payload) && payload.business_id === tenant.businessId) {
    return 'the body names the business_id';
  }
  return undefined;
}

/**
 * The auth checks every business route gets: no credential, a malformed or revoked credential,
 * a key without the scope, a staff member where only owners may go, another business's key and
 * another developer's token. `route` is built against the tenant returned by `setup`, which runs
 * before each check. A check that cannot apply to the route is reported as skipped, with why.
 */
export function itChecksAuth(
  ctx: () => TestContext,
  setup: () => Promise<{ tenant: Tenant; route: RouteUnderTest }>,
): void {
  const call = (route: RouteUnderTest, headers: Record<string, string>) =>
    ctx().app.inject({
      method: route.method,
      url: route.url,
      payload: route.payload as InjectOptions['payload'],
      headers,
    });

  it('answers 401 invalid_token without credentials, with a malformed one and with a revoked key', async () => {
    const { tenant, route } = await setup();
    for (const headers of [
      {},
      bearer('svc_live_notakey'),
      bearer('not.a.jwt'),
      { authorization: 'Basic abc' },
    ]) {
      const response = await call(route, headers);
      assert.equal(response.statusCode, 401, `${JSON.stringify(headers)} -> ${response.body}`);
      assert.equal(response.json().error.code, 'invalid_token');
    }
    const { key, id } = await createKeyWithId(ctx().app, tenant, ['admin']);
    const revoked = await ctx().app.inject({
      method: 'DELETE',
      url: `/v1/manage/api-keys/${id}`,
      headers: tenant.headers,
    });
    assert.equal(revoked.statusCode, 204);
    const response = await call(route, bearer(key));
    assert.equal(response.statusCode, 401);
  });

  it('answers 403 missing_scope to a key without the scope', async (t) => {
    const { tenant, route } = await setup();
    const narrower = { read: [], write: ['read'], admin: ['read', 'write'] }[route.scope];
    if (narrower.length === 0) {
      t.skip('the route needs only the read scope, which every key has');
      return;
    }
    const key = await createKey(ctx().app, tenant, narrower);
    const response = await call(route, bearer(key));
    assert.equal(response.statusCode, 403, response.body);
    assert.equal(response.json().error.code, 'missing_scope');
  });

  it('answers 403 insufficient_permissions to a staff member where only owners may act', async (t) => {
    const { tenant, route } = await setup();
    if (route.staff || route.scope === 'read') {
      t.skip('staff members may call this route');
      return;
    }
    const token = await dashboardToken(ctx().app, tenant, 'staff_member');
    const response = await call(route, bearer(token));
    assert.equal(response.statusCode, 403, response.body);
    assert.equal(response.json().error.code, 'insufficient_permissions');
  });

  it("answers 404 not_found to another business's admin key naming this business's data", async (t) => {
    const { tenant, route } = await setup();
    const named = namedObjectOf(route, tenant);
    if (!named) {
      t.skip("the request names nothing of a business: another business's key acts on its own data");
      return;
    }
    const other = await createTenant(ctx().app, { name: 'Other Business' });
    const response = await call(route, other.headers);
    assert.equal(response.statusCode, 404, `${named}: ${response.body}`);
    assert.equal(response.json().error.code, 'not_found');
  });

  it("answers 404 not_found to another developer's token naming this business in X-Business-Id", async () => {
    const { tenant, route } = await setup();
    const stranger = await signUpDeveloper(ctx().app);
    const response = await call(route, { ...bearer(stranger.token), 'x-business-id': tenant.businessId });
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(response.json().error.code, 'not_found');
  });
}
