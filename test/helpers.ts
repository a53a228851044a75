import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, it } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { setSubscription } from '../src/billing/subscription.service.ts';
import { type Config, loadConfig, type PasswordCost } from '../src/config.ts';
import { insertDeveloper } from '../src/developers/developers.queries.ts';
import { createBusiness } from '../src/developers/developers.service.ts';
import {
  type Database,
  type Db,
  openPGlite,
  openPostgres,
  type PGliteDatabase,
  withTx,
} from '../src/platform/db.ts';
import type { DbTimeouts } from '../src/platform/deadline.ts';
import { migrate } from '../src/platform/migrate.ts';
import { isUuid } from '../src/platform/schemas.ts';

/**
 * Tests run on embedded PGlite, or on a real PostgreSQL server when TEST_DATABASE_URL names one:
 * each test file then gets a database of its own, dropped at the end.
 */
export const ENGINE = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * The options of a race test, which fires many requests at once and checks that the database lets
 * only what it promises through. PGlite's one connection takes them in turn: nothing races there,
 * so passing would prove nothing.
 */
export const RACE = {
  skip: ENGINE === 'pglite' && "PGlite's one connection takes the requests in turn: nothing races",
};

/** The options of a test that holds a transaction open while another connection works: PGlite has one. */
export const SECOND_CONNECTION = {
  skip: ENGINE === 'pglite' && 'needs a second connection (PostgreSQL): PGlite has one',
};

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

/**
 * Names one state of the schema: the migration files, the definitions of db/, the code applying
 * them and the PGlite version. A migrated copy is made once per fingerprint and every test file
 * starts from it.
 */
function schemaFingerprint(): string {
  const hash = createHash('sha256');
  for (const folder of ['../migrations/', '../db/']) {
    const root = new URL(folder, import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();
    for (const file of files.filter((path) => path.endsWith('.sql'))) {
      hash.update(file).update(readFileSync(new URL(file, root)));
    }
  }
  hash.update(readFileSync(new URL('../src/platform/migrate.ts', import.meta.url)));
  hash.update(readFileSync(new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))));
  return hash.digest('hex').slice(0, 16);
}

/** Writes a file under a temporary name and renames it: a process reading it beside never reads half. */
function writeWhole(path: string, bytes: Uint8Array): void {
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

/**
 * A tarball read whole into memory: a blob backed by the file (`openAsBlob`) failed once in a full
 * run with NotReadableError, the file unchanged, as Node says a read of one may for many reasons.
 */
const tarball = async (path: string) => new Blob([await readFile(path)]);

const PGLITE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')), 'utf8'),
).version;

/**
 * A blank PGlite, as `openPGlite` creates one, in memory or in `dataDir`. Creating a cluster
 * (PGlite's initdb) costs seconds of CPU; loading a tarball of a blank one, made once per PGlite
 * version, a fraction of that.
 */
export async function openBlankPGlite(dataDir?: string, timeouts?: DbTimeouts): Promise<PGliteDatabase> {
  const blank = join(tmpdir(), `slotwise-test-blank-${PGLITE_VERSION}.tar`);
  if (existsSync(blank)) return openPGlite(dataDir, await tarball(blank), timeouts);
  const database = await openPGlite(dataDir, undefined, timeouts);
  writeWhole(blank, await (await database.dumpDataDir()).bytes());
  return database;
}

/**
 * Loading a tarball of a migrated PGlite costs less than migrating a blank one. The tarball is
 * made once per schema fingerprint; tarballs of other fingerprints are removed once a day old,
 * not before: other checkouts on the machine (other branches, other schemas) use theirs. In
 * memory, or in `dataDir` when given.
 */
async function openMigratedPGlite(timeouts: DbTimeouts, dataDir?: string): Promise<PGliteDatabase> {
  const name = `slotwise-test-${schemaFingerprint()}.tar`;
  const snapshot = join(tmpdir(), name);
  if (existsSync(snapshot)) return openPGlite(dataDir, await tarball(snapshot), timeouts);
  const database = await openBlankPGlite(dataDir, timeouts);
  await migrate(database);
  writeWhole(snapshot, await (await database.dumpDataDir()).bytes());
  const dayAgo = Date.now() - 86_400_000;
  for (const file of readdirSync(tmpdir())) {
    if (!/^slotwise-test-[0-9a-f]{16}\.tar$/.test(file) || file === name) continue;
    const path = join(tmpdir(), file);
    if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) < dayAgo)
      rmSync(path, { force: true });
  }
  return database;
}

/**
 * Fills the empty folder `dataDir` with a migrated PGlite, as a server's first start leaves its
 * DATA_DIR: a server started on it neither creates nor migrates a cluster. Answers `dataDir`.
 */
export async function migratedDataDir(dataDir: string): Promise<string> {
  await (await openMigratedPGlite(TEST_DB_TIMEOUTS, dataDir)).close();
  return dataDir;
}

/** Advisory lock key (in the server's maintenance database) of building the template. */
const TEMPLATE_LOCK = 0x74706c;

/**
 * Copies a migrated template database, built once per schema fingerprint. Building and copying
 * take turns through an advisory lock: PostgreSQL refuses to copy a database while another
 * session is connected to it, and the lock keeps a half-built template out of reach. Templates of
 * other fingerprints, and one left half-built by a run that died, are dropped: old schemas do not
 * pile up on the server.
 */
async function copyTemplate(admin: pg.Client, serverUrl: string, name: string): Promise<void> {
  const template = `slotwise_test_template_${schemaFingerprint()}`;
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'slotwise\\_test\\_template\\_%'",
    );
    for (const { datname } of rows) {
      if (datname !== template) await admin.query(`DROP DATABASE ${datname} WITH (FORCE)`);
    }
    if (!rows.some((row) => row.datname === template)) {
      const building = `${template}_building`;
      await admin.query(`CREATE DATABASE ${building}`);
      const database = await openPostgres(databaseUrl(serverUrl, building), 2);
      try {
        await migrate(database);
      } finally {
        await database.close();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    }
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The files of a lane (test/fast-lane.ts) take turns on migrated databases, emptied for each:
 * opening a PGlite costs seconds of CPU, and a PostgreSQL database a copy of the template and a
 * pool, paid once per process instead of once per file. Most files hold one; a file asking for a
 * second while it holds one (an app of other settings beside its own) is lent another, opened the
 * first time and kept for the next such file. A file asking for other timeouts gets its own.
 */
const shared: { opened: Promise<LentDatabase>; lent: boolean }[] = [];
let sharing = false;

/** Makes the test files of this process share their databases; answers the function that closes them. */
export function shareDatabases(): () => Promise<void> {
  sharing = true;
  return async () => {
    sharing = false;
    for (const { opened } of shared.splice(0)) await (await opened).release();
  };
}

async function lendSharedDatabase(timeouts: DbTimeouts): Promise<LentDatabase | undefined> {
  if (!sharing || timeouts !== TEST_DB_TIMEOUTS) return undefined;
  let held = shared.find((database) => !database.lent);
  if (!held) {
    held = { opened: openOwnDatabase(timeouts), lent: false };
    shared.push(held);
  }
  held.lent = true;
  const { database, url } = await held.opened;
  await emptyTables(database);
  return {
    database,
    url,
    release: async () => {
      held.lent = false;
    },
  };
}

const emptyingScripts = new WeakMap<Database, Promise<string>>();

async function emptyingScript(database: Database): Promise<string> {
  const { rows } = await sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables
    WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'schema_definitions')`.execute(
    database.db,
  );
  // DELETE is far quicker than TRUNCATE on tables this small (TRUNCATE makes new files for each
  // table and index). The replica role skips the foreign key and change feed triggers, so the order
  // does not matter and, as with TRUNCATE, nothing is announced.
  return [
    'BEGIN',
    'SET LOCAL session_replication_role = replica',
    ...rows.map((row) => `DELETE FROM "${row.tablename}"`),
    'COMMIT',
  ].join(';\n');
}

/** Empties every table but the migrator's own, so a test starts from a blank service. */
async function emptyTables(database: Database): Promise<void> {
  if (!emptyingScripts.has(database)) emptyingScripts.set(database, emptyingScript(database));
  const statements = await emptyingScripts.get(database)!;
  // Holding a pooled connection keeps the script clear of other queries on PGlite's one connection.
  await database.db.connection().execute(() => database.runScript(statements));
}

interface LentDatabase {
  database: Database;
  /** The test file's own PostgreSQL database; undefined on PGlite. */
  url?: string;
  /** Closes the database, or gives the shared one back. */
  release(): Promise<void>;
}

async function openTestDatabase(timeouts: DbTimeouts): Promise<LentDatabase> {
  return (await lendSharedDatabase(timeouts)) ?? openOwnDatabase(timeouts);
}

async function openOwnDatabase(timeouts: DbTimeouts): Promise<LentDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openMigratedPGlite(timeouts);
    return { database, release: () => database.close() };
  }
  const name = `slotwise_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await copyTemplate(admin, serverUrl, name);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(serverUrl, name);
  const database = await openPostgres(url, 20, timeouts);
  return {
    database,
    url,
    release: async () => {
      await database.close();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Every wait bounded, as in production, but far above its 5 s: a machine running many test files
 * at once may rightly keep a race test's requests waiting that long (the outage tests set short ones).
 */
const TEST_DB_TIMEOUTS: DbTimeouts = { lockMs: 30_000, statementMs: 30_000, acquireMs: 30_000 };

/**
 * What a server or worker process started by a test runs with beside its database, as a test app
 * runs (createTestApp), and what a test building its own app from `loadConfig` passes it: a busy
 * machine must not make it shed load for its event loop's delay, nor answer 503 for a database
 * wait that production's 5 s would cut.
 */
export const TEST_PROCESS_ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  LOG_LEVEL: 'warn',
  MAX_EVENT_LOOP_DELAY_MS: '0',
  DB_LOCK_TIMEOUT_MS: String(TEST_DB_TIMEOUTS.lockMs),
  DB_STATEMENT_TIMEOUT_MS: String(TEST_DB_TIMEOUTS.statementMs),
  DB_ACQUIRE_TIMEOUT_MS: String(TEST_DB_TIMEOUTS.acquireMs),
  DB_REQUEST_DEADLINE_MS: String(TEST_DB_TIMEOUTS.acquireMs),
};

/**
 * Argon2id's least memory for one lane, and one pass: 0.1 ms a hash on a 2-core machine, against
 * 13 ms at OWASP's cost. The fast lane hashes and checks hundreds of passwords; production's cost
 * is pinned by `src/config.test.ts`.
 */
const TEST_PASSWORD_COST: PasswordCost = { memoryKib: 8, passes: 1, lanes: 1 };

/** `extend` may add routes or hooks to the app before it is ready (e.g. a route that throws). */
export async function createTestApp(
  overrides: Partial<Config> = {},
  extend?: (app: FastifyInstance) => void,
): Promise<TestContext> {
  const config = {
    ...loadConfig({
      ...TEST_PROCESS_ENV,
      DATABASE_URL: 'postgres://unused',
      // Live businesses pay on the simulated processor's pages, as in the embedded default; tests
      // of a deployment without it override `simulatedPayments`.
      SIMULATED_PAYMENTS: 'true',
    }),
    // The very object: a lane lends its databases to the apps of these timeouts only.
    dbTimeouts: TEST_DB_TIMEOUTS,
    passwordCost: TEST_PASSWORD_COST,
    ...overrides,
  };
  const { database, url, release } = await openTestDatabase(config.dbTimeouts);
  await migrate(database);
  const app = await buildApp({ config, database });
  extend?.(app);
  await app.ready();
  return {
    app,
    database,
    config,
    databaseUrl: url,
    reset: async () => {
      await emptyTables(database);
      // Emptying announces nothing (no trigger runs): what the app cached by a value tests share,
      // an origin some earlier test's key allowed, would outlive the rows.
      app.changes.credentialsChanged();
    },
    close: async () => {
      await app.close();
      await release();
    },
  };
}

/**
 * The app of a test file, with the file's hooks: made before its first test, emptied before each
 * test, closed after the last. Read its parts inside tests and hooks, once it is made. Overrides
 * known only once something has started (a fake service's address) come from a function run in
 * the same hook: hooks of a file's top level run at once, not one after another.
 */
export function useTestApp(
  overrides: Partial<Config> | (() => Promise<Partial<Config>>) = {},
  extend?: (app: FastifyInstance) => void,
): TestContext {
  let made: TestContext | undefined;
  const current = () => {
    if (!made) throw new Error('the test app is made in the before hook: read it inside a test or hook');
    return made;
  };
  before(async () => {
    made = await createTestApp(typeof overrides === 'function' ? await overrides() : overrides, extend);
  });
  after(() => made?.close());
  beforeEach(() => current().reset());
  return {
    get app() {
      return current().app;
    },
    get database() {
      return current().database;
    },
    get config() {
      return current().config;
    },
    get databaseUrl() {
      return current().databaseUrl;
    },
    reset: () => current().reset(),
    close: () => current().close(),
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

/*
 * The helpers below sign the access token a login would answer instead of logging in: a login
 * verifies an Argon2 hash, and almost every test makes tenants. The login routes have tests of
 * their own.
 */

/** One hash of the helpers' password per process: hashing is what registering costs most. */
let passwordHash: Promise<string> | undefined;

/**
 * A developer account as registering makes it (the register route has tests of its own), written
 * straight into the database with a hash computed once per process.
 */
export async function signUpDeveloper(app: FastifyInstance): Promise<Developer> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  passwordHash ??= app.passwords.hash(password);
  const { id } = await insertDeveloper(app.db, {
    email,
    password_hash: await passwordHash,
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  return { id, email, password, token: await app.tokens.sign({ sub: id, email, role: 'developer' }) };
}

export interface Tenant {
  developer: Developer;
  businessId: string;
  slug: string;
  /** The business's first key: all scopes. */
  apiKey: string;
  headers: Record<string, string>;
}

/**
 * A developer's new business and its first key, made by the service its route calls (the route
 * has tests of its own): a third of a tenant's cost was the request around it, and the fast
 * lane makes almost two thousand.
 */
export async function createTenant(
  app: FastifyInstance,
  body: { name?: string; business_type?: string; is_dev?: boolean } = {},
): Promise<Tenant> {
  const developer = await signUpDeveloper(app);
  const { business_id, api_key, slug } = await withTx(app.db, (tx) =>
    createBusiness(tx, developer.id, { ...body, name: body.name ?? 'Chez Test' }),
  );
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

/** A publishable key of the tenant's business for the given origins. */
export async function createPublishableKey(
  app: FastifyInstance,
  tenant: Tenant,
  allowedOrigins: string[],
): Promise<{ key: string; id: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/manage/api-keys',
    headers: tenant.headers,
    payload: { name: 'widget', type: 'publishable', allowed_origins: allowedOrigins },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { key: response.json().key, id: response.json().id };
}

/**
 * Invites a dashboard user with a password and signs them in with it (which joins the business);
 * answers that login (its tokens).
 */
export async function dashboardLogin(
  app: FastifyInstance,
  tenant: Tenant,
  role: 'business_owner' | 'staff_member',
): Promise<LightMyRequestResponse> {
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
  return login;
}

/** The access token of a new dashboard user's login, as `dashboardLogin`. */
export const dashboardToken = async (...user: Parameters<typeof dashboardLogin>): Promise<string> =>
  (await dashboardLogin(...user)).json().access_token;

export interface RouteUnderTest {
  method: InjectOptions['method'];
  url: string;
  payload?: unknown;
  /** The narrowest scope the route accepts. */
  scope: 'read' | 'write' | 'admin';
  /** Whether a staff_member may call it. */
  staff: boolean;
  /** Open while the developer's subscription is past due (billing, the subscription read). */
  openWhilePastDue?: boolean;
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

/** A route checked on a new tenant, after `given` made what the route names in it. */
export interface RouteOnNewTenant<T> {
  given?: (tenant: Tenant) => Promise<T>;
  route: (given: T) => RouteUnderTest;
}

/** The routes of a collection that a business's whole staff reads and only its owners change. */
export interface CollectionRoutes<T> {
  /** GET of the collection: every key and every staff member. */
  list: RouteOnNewTenant<undefined>;
  /** POST of `payload` to the collection. */
  add(payload: unknown): RouteOnNewTenant<undefined>;
  /** PATCH of `payload` to one object of it. */
  update(payload: unknown): RouteOnNewTenant<T>;
  /** DELETE of one object of it. */
  remove: RouteOnNewTenant<T>;
}

/**
 * The routes of the collection at `url` (a business's services, resources, blackout dates): its
 * list, open to staff members, and its changes, which need the write scope and an owner. A route
 * on one object, at `url/{id}`, is on one that `create` makes on the new tenant.
 */
export function collectionRoutes<T extends { id: string }>(
  url: string,
  create: (tenant: Tenant) => Promise<T>,
): CollectionRoutes<T> {
  const byOwners = { scope: 'write', staff: false } as const;
  const onObject = (method: 'PATCH' | 'DELETE', payload?: unknown): RouteOnNewTenant<T> => ({
    given: create,
    route: (object) => ({ method, url: `${url}/${object.id}`, payload, ...byOwners }),
  });
  return {
    list: { route: () => ({ method: 'GET', url, scope: 'read', staff: true }) },
    add: (payload) => ({ route: () => ({ method: 'POST', url, payload, ...byOwners }) }),
    update: (payload) => onObject('PATCH', payload),
    remove: onObject('DELETE'),
  };
}

/**
 * The auth checks every business route gets: no credential, a malformed or revoked credential,
 * a key without the scope, a staff member where only owners may go, another business's key and
 * another developer's token. `route` is built against the tenant returned by `setup` (or on a new
 * tenant, as `RouteOnNewTenant` says), before each check. A check that cannot apply to the route
 * is reported as skipped, with why.
 */
export function itChecksAuth<T>(
  ctx: () => TestContext,
  routeOrSetup: RouteOnNewTenant<T> | (() => Promise<{ tenant: Tenant; route: RouteUnderTest }>),
): void {
  const setup =
    typeof routeOrSetup === 'function'
      ? routeOrSetup
      : async () => {
          const tenant = await createTenant(ctx().app);
          const given = (await routeOrSetup.given?.(tenant)) as T;
          return { tenant, route: routeOrSetup.route(given) };
        };
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

  it("answers 402 payment_required while the developer's subscription is past due", async (t) => {
    const { tenant, route } = await setup();
    if (route.openWhilePastDue) {
      t.skip('the route stays open so that the debt can be seen and paid');
      return;
    }
    await setSubscription(ctx().app.db, ctx().app.changes, tenant.developer.id, {
      status: 'past_due',
      planId: 'starter',
    });
    const response = await call(route, tenant.headers);
    assert.equal(response.statusCode, 402, response.body);
    assert.equal(response.json().error.code, 'payment_required');
  });

  it("answers 404 not_found to another developer's token naming this business in X-Business-Id", async () => {
    const { tenant, route } = await setup();
    const stranger = await signUpDeveloper(ctx().app);
    const response = await call(route, { ...bearer(stranger.token), 'x-business-id': tenant.businessId });
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(response.json().error.code, 'not_found');
  });
}

/**
 * Resolves once every change committed so far has been read from the change log by the app: what
 * the set-up wrote can no longer refresh what a test caches after it.
 */
export function feedCaughtUp(app: FastifyInstance): Promise<void> {
  return app.changeLog.caughtUp();
}

/**
 * Reads until `wanted` holds of what is read, and answers that value: for what another
 * connection, process or page does a moment later.
 */
export async function eventuallyRead<T>(
  read: () => T | Promise<T>,
  wanted: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (wanted(value)) return value;
    if (Date.now() >= deadline) assert.fail(`${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls until `check` holds. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  await eventuallyRead(check, Boolean, what, timeoutMs);
}

/** Until a session of the test database waits on a lock (PostgreSQL). */
export function untilALockWait(database: Database): Promise<void> {
  return eventually(async () => {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(database.db);
    return rows[0]!.n > 0;
  }, 'a session to wait on a lock');
}

/** The bookings counted against a developer's monthly quota, all months together (the sum of its shards). */
export async function bookingsCounted(db: Db, developerId: string): Promise<number> {
  const { total } = await db
    .selectFrom('booking_usage')
    .select(sql<number>`coalesce(sum(bookings), 0)::int`.as('total'))
    .where('developer_id', '=', developerId)
    .executeTakeFirstOrThrow();
  return total;
}

interface Answer {
  statusCode: number;
  body: string;
  json(): { error: { code: string; fields?: { field: string }[] } };
}

/** The response is the error `code` with its `status`. */
export function assertError(response: Answer, status: number, code: string, label = '') {
  assert.equal(response.statusCode, status, `${label} ${response.body}`);
  assert.equal(response.json().error.code, code, label);
}

/** Each input is refused with a validation error that names its field. */
export async function assertNamesFields<T>(
  cases: readonly (readonly [T, string])[],
  send: (input: T) => Promise<Answer>,
) {
  for (const [input, field] of cases) {
    const response = await send(input);
    assertError(response, 422, 'validation_error', JSON.stringify(input));
    assert.equal(
      response.json().error.fields?.[0]?.field,
      field,
      `${JSON.stringify(input)}: ${response.body}`,
    );
  }
}

/**
 * A test of each case that adding `{ ...body, ...change }` to the collection at `url` is refused
 * with a validation error naming `field`, and that the collection's list at `listUrl` stays empty.
 */
export function itRefusesEachAddition(
  ctx: () => TestContext,
  collection: { url: string; body: Record<string, unknown>; listUrl?: string },
  cases: readonly (readonly [label: string, change: Record<string, unknown>, field: string])[],
): void {
  const { url, body, listUrl = url } = collection;
  for (const [label, change, field] of cases) {
    it(`rejects ${label}, naming ${field}, and writes nothing`, async () => {
      const { app } = ctx();
      const tenant = await createTenant(app);
      const headers = tenant.headers;
      const response = await app.inject({ method: 'POST', url, headers, payload: { ...body, ...change } });
      assertError(response, 422, 'validation_error');
      assert.ok(
        response.json().error.fields.some((f: { field: string }) => f.field === field),
        response.body,
      );
      const list = await app.inject({ method: 'GET', url: listUrl, headers });
      assert.deepEqual(list.json().items, []);
    });
  }
}
