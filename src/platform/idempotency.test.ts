import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import {
  bearer,
  createKey,
  createTenant,
  createTestApp,
  RACE,
  type TestContext,
  uniqueEmail,
} from '../../test/helpers.ts';
import { AppError } from './errors.ts';
import { commitReply } from './idempotency.ts';

/** Routes with a visible side effect (a counter) that the tests can also hold open or make fail. */
function addProbeRoutes(app: FastifyInstance) {
  const probe = {
    calls: 0,
    failNext: false,
    /** Answers the next call with this error instead. */
    refuseNext: null as AppError | null,
    gate: null as Promise<void> | null,
    entered: () => {},
  };
  const handler = async () => {
    probe.calls++;
    probe.entered();
    if (probe.gate) await probe.gate;
    if (probe.failNext) {
      probe.failNext = false;
      throw new Error('the probe failed on purpose');
    }
    const refusal = probe.refuseNext;
    probe.refuseNext = null;
    if (refusal) throw refusal;
    return { call: probe.calls };
  };
  app.post('/test/probe', handler);
  app.patch('/test/probe', handler);
  // A change that answers with a secret, made the way every route makes a change.
  app.post('/test/secret', { config: { sensitive: true } }, async (request, reply) =>
    commitReply(request, reply, 201, async () => {
      probe.calls++;
      return { secret: `whsec_${randomBytes(12).toString('hex')}` };
    }),
  );
  return probe;
}

let ctx: TestContext;
let probe: ReturnType<typeof addProbeRoutes>;

before(async () => {
  ctx = await createTestApp({}, (app) => {
    probe = addProbeRoutes(app);
  });
});
after(() => ctx.close());
beforeEach(async () => {
  await ctx.reset();
  probe.calls = 0;
  probe.failNext = false;
  probe.refuseNext = null;
  probe.gate = null;
  probe.entered = () => {};
});

const withKey = (key: string, headers: Record<string, string> = {}) => ({
  ...headers,
  'idempotency-key': key,
});

const postProbe = (key: string, payload: object = {}) =>
  ctx.app.inject({ method: 'POST', url: '/test/probe', headers: withKey(key), payload });

const createApiKey = (headers: Record<string, string>, payload: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/api-keys',
    headers,
    payload: payload as InjectOptions['payload'],
  });

/** The business's secret keys: its default publishable key, made with it, is not counted. */
async function countKeys(businessId: string): Promise<number> {
  const row = await ctx.app.db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', businessId)
    .where('type', '=', 'secret')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('replay: same key, same request', () => {
  it('answers the stored status and body with Idempotent-Replayed and creates nothing more', async () => {
    const tenant = await createTenant(ctx.app);
    const first = await createApiKey(withKey('create-key-1', tenant.headers), { name: 'Shop' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);

    const again = await createApiKey(withKey('create-key-1', tenant.headers), { name: 'Shop' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.match(String(again.headers['content-type']), /^application\/json/);
    assert.deepEqual(again.json(), first.json());
    assert.equal(await countKeys(tenant.businessId), 2);
  });

  it('treats the same body with its fields in another order, and a trailing slash, as the same request', async () => {
    const tenant = await createTenant(ctx.app);
    const first = await createApiKey(withKey('k', tenant.headers), { name: 'Shop', scopes: ['read'] });
    const reordered = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/api-keys/',
      headers: withKey('k', tenant.headers),
      payload: { scopes: ['read'], name: 'Shop' },
    });
    assert.equal(reordered.statusCode, 201);
    assert.equal(reordered.headers['idempotent-replayed'], 'true');
    assert.equal(reordered.json().id, first.json().id);
  });

  it('honours the key on PATCH', async () => {
    const first = await ctx.app.inject({
      method: 'PATCH',
      url: '/test/probe',
      headers: withKey('p'),
      payload: {},
    });
    const again = await ctx.app.inject({
      method: 'PATCH',
      url: '/test/probe',
      headers: withKey('p'),
      payload: {},
    });
    assert.deepEqual(first.json(), { call: 1 });
    assert.deepEqual(again.json(), { call: 1 });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(probe.calls, 1);
  });

  it('stores and replays an outcome the handler reached: a 409 or a 422 of a business rule', async () => {
    const outcomes = [
      new AppError('slot_unavailable', 'no resource is free for this slot any more'),
      new AppError('conflict', 'a cancelled booking cannot be changed'),
      new AppError('outside_booking_window', 'bookings open 60 days ahead'),
    ];
    for (const [index, outcome] of outcomes.entries()) {
      probe.calls = 0;
      probe.refuseNext = outcome;
      const key = `outcome-${index}`;
      const first = await postProbe(key);
      assert.equal(first.statusCode, outcome.status, first.body);
      const again = await postProbe(key);
      assert.equal(again.statusCode, outcome.status, outcome.code);
      assert.equal(again.headers['idempotent-replayed'], 'true', outcome.code);
      assert.deepEqual(again.json(), first.json());
      assert.equal(probe.calls, 1, outcome.code);
    }
  });

  it('scopes calls without a credential to the client IP', async () => {
    const tenant = await createTenant(ctx.app);
    const join = (remoteAddress: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/v1/waitlist/${tenant.businessId}`,
        headers: withKey('join'),
        payload: {
          customer: { first_name: 'Ada', last_name: 'Byron', phone: '+44 20 7946 0000' },
          preferred_date: null,
        },
        remoteAddress,
      });
    const first = await join('198.51.100.1');
    assert.equal(first.statusCode, 201, first.body);
    const replayed = await join('198.51.100.1');
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.json().waitlist_id, first.json().waitlist_id);
    const otherClient = await join('198.51.100.2');
    assert.equal(otherClient.statusCode, 201, otherClient.body);
    assert.equal(otherClient.headers['idempotent-replayed'], undefined);
    assert.notEqual(otherClient.json().waitlist_id, first.json().waitlist_id);
  });

  it('ignores the header on the account endpoints, which hand out tokens', async () => {
    const body = {
      email: uniqueEmail(),
      password: 'correct horse battery',
      first_name: 'Ada',
      last_name: 'Byron',
    };
    const register = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/developer/register',
        headers: withKey('sign-up'),
        payload: body,
      });
    assert.equal((await register()).statusCode, 201);
    const again = await register();
    assert.equal(again.statusCode, 409, 'the second sign-up runs and meets the first');
    const rows = await ctx.app.db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(rows, []);
  });

  it('ignores the header on the account endpoints however their path is spelled (percent-encoded)', async () => {
    for (const url of [
      '/v1/%61uth/developer/register',
      '/v1/auth/developer/%72egister',
      '/v1/auth/developer/register/',
    ]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url,
        headers: withKey(`sign-up ${url}`),
        payload: { email: uniqueEmail(), password: 'correct horse battery', first_name: 'A', last_name: 'B' },
      });
      assert.equal(response.statusCode, 201, `${url}: ${response.body}`);
    }
    const rows = await ctx.app.db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(rows, []);
  });

  it('treats a percent-encoded spelling of the path as the same request', async () => {
    const tenant = await createTenant(ctx.app);
    const first = await createApiKey(withKey('encoded', tenant.headers), { name: 'Shop' });
    const encoded = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/%61pi-keys',
      headers: withKey('encoded', tenant.headers),
      payload: { name: 'Shop' },
    });
    assert.equal(encoded.statusCode, 201, encoded.body);
    assert.equal(encoded.headers['idempotent-replayed'], 'true');
    assert.equal(encoded.json().id, first.json().id);
  });

  it('keeps a response that carries a secret encrypted at rest and replays it decrypted', async () => {
    const first = await ctx.app.inject({ method: 'POST', url: '/test/secret', headers: withKey('s1') });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['cache-control'], 'no-store');
    const { secret } = first.json();
    const row = await ctx.app.db
      .selectFrom('idempotency_keys')
      .select(['response_body', 'sealed'])
      .where('key', '=', 's1')
      .executeTakeFirstOrThrow();
    assert.equal(row.sealed, true);
    assert.ok(row.response_body && !row.response_body.includes(secret), 'the secret is not stored in clear');
    const again = await ctx.app.inject({ method: 'POST', url: '/test/secret', headers: withKey('s1') });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().secret, secret);
    assert.equal(probe.calls, 1);
  });

  it('ignores the header on GET', async () => {
    const tenant = await createTenant(ctx.app);
    const listed = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/api-keys',
      headers: withKey('g', tenant.headers),
    });
    assert.equal(listed.statusCode, 200);
    const rows = await ctx.app.db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(rows, []);
  });
});

describe('a fresh request: the key is free again', () => {
  it('keeps keys of different credentials apart (another business never sees the stored response)', async () => {
    const tenant = await createTenant(ctx.app);
    const other = await createTenant(ctx.app);
    const ours = await createApiKey(withKey('shared-key', tenant.headers), { name: 'Shop' });
    const theirs = await createApiKey(withKey('shared-key', other.headers), { name: 'Shop' });
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().id, ours.json().id);
    const secondKeyOfOurs = await createKey(ctx.app, tenant, ['admin']);
    const sameBusinessOtherKey = await createApiKey(withKey('shared-key', bearer(secondKeyOfOurs)), {
      name: 'Shop',
    });
    assert.equal(sameBusinessOtherKey.headers['idempotent-replayed'], undefined);
    assert.equal(await countKeys(tenant.businessId), 4);
  });

  it("keeps a developer token's keys apart per business it acts on (X-Business-Id)", async () => {
    const tenant = await createTenant(ctx.app);
    const second = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/businesses',
      headers: bearer(tenant.developer.token),
      payload: { name: 'Second shop' },
    });
    assert.equal(second.statusCode, 201, second.body);
    const secondId: string = second.json().business_id;
    const asDeveloper = (businessId: string) =>
      withKey('dev-key', { ...bearer(tenant.developer.token), 'x-business-id': businessId });
    const inFirst = await createApiKey(asDeveloper(tenant.businessId), { name: 'Shop' });
    assert.equal(inFirst.statusCode, 201, inFirst.body);
    const inSecond = await createApiKey(asDeveloper(secondId), { name: 'Shop' });
    assert.equal(inSecond.statusCode, 201, inSecond.body);
    assert.equal(inSecond.headers['idempotent-replayed'], undefined);
    assert.notEqual(inSecond.json().id, inFirst.json().id);
    assert.equal(await countKeys(tenant.businessId), 2);
    assert.equal(await countKeys(secondId), 2);
    const replayedInSecond = await createApiKey(asDeveloper(secondId), { name: 'Shop' });
    assert.equal(replayedInSecond.headers['idempotent-replayed'], 'true');
    assert.equal(replayedInSecond.json().id, inSecond.json().id);
  });

  it('does not store a 422 from body validation, so the corrected request runs', async () => {
    const tenant = await createTenant(ctx.app);
    const invalid = await createApiKey(withKey('fix-me', tenant.headers), { name: '' });
    assert.equal(invalid.statusCode, 422);
    const fixed = await createApiKey(withKey('fix-me', tenant.headers), { name: 'Shop' });
    assert.equal(fixed.statusCode, 201, fixed.body);
    assert.equal(fixed.headers['idempotent-replayed'], undefined);
  });

  it('does not store a validation_error the handler raised, so the corrected request runs', async () => {
    const tenant = await createTenant(ctx.app, { is_dev: true });
    const refused = await createApiKey(withKey('sandbox-live', tenant.headers), {
      name: 'Sandbox',
      environment: 'live',
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().error.code, 'validation_error');
    const corrected = await createApiKey(withKey('sandbox-live', tenant.headers), {
      name: 'Sandbox',
      environment: 'test',
    });
    assert.equal(corrected.statusCode, 201, corrected.body);
    assert.equal(corrected.headers['idempotent-replayed'], undefined);
  });

  it('frees the key after a refusal of the request as sent (400, 401, 403, 404): the retry runs again', async () => {
    const refusals = [
      new AppError('bad_request', 'bad request'),
      new AppError('invalid_token', 'email or password is wrong'),
      new AppError('insufficient_permissions', 'staff members may not do this'),
      new AppError('not_found', 'booking not found'),
    ];
    for (const [index, refusal] of refusals.entries()) {
      probe.calls = 0;
      probe.refuseNext = refusal;
      const key = `refused-${index}`;
      const first = await postProbe(key);
      assert.equal(first.statusCode, refusal.status, first.body);
      const retried = await postProbe(key);
      assert.equal(retried.statusCode, 200, `${refusal.status}: ${retried.body}`);
      assert.equal(retried.headers['idempotent-replayed'], undefined);
      assert.deepEqual(retried.json(), { call: 2 });
    }
  });

  it('frees the key after a 5xx: the retry runs the handler again', async () => {
    probe.failNext = true;
    const failed = await postProbe('flaky');
    assert.equal(failed.statusCode, 500);
    const retried = await postProbe('flaky');
    assert.equal(retried.statusCode, 200);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    assert.deepEqual(retried.json(), { call: 2 });
  });

  it('treats a stored response older than 24 hours as absent', async () => {
    const first = await postProbe('old');
    assert.deepEqual(first.json(), { call: 1 });
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours'`.execute(ctx.app.db);
    const later = await postProbe('old', { different: true });
    assert.equal(later.statusCode, 200);
    assert.deepEqual(later.json(), { call: 2 });
  });

  it('hands over a key whose first request never finished (its process died) after 5 minutes', async () => {
    await ctx.app.db
      .insertInto('idempotency_keys')
      .values({
        credential: 'ip:127.0.0.1',
        key: 'orphan',
        request_hash: 'of a request that never answered',
        created_at: sql<Date>`now() - interval '6 minutes'`,
      })
      .execute();
    const taken = await postProbe('orphan');
    assert.equal(taken.statusCode, 200);
    assert.deepEqual(taken.json(), { call: 1 });
  });
});

describe('409 idempotency_mismatch', () => {
  it('answers it for the same key with another body, path or method, and runs nothing', async () => {
    const tenant = await createTenant(ctx.app);
    await createApiKey(withKey('once', tenant.headers), { name: 'Shop' });
    const otherBody = await createApiKey(withKey('once', tenant.headers), { name: 'Other shop' });
    assert.equal(otherBody.statusCode, 409);
    assert.equal(otherBody.json().error.code, 'idempotency_mismatch');

    const first = await postProbe('m');
    assert.equal(first.statusCode, 200);
    for (const method of ['PATCH', 'POST'] as const) {
      const url = method === 'POST' ? '/test/probe?x=1' : '/test/probe';
      const response = await ctx.app.inject({ method, url, headers: withKey('m'), payload: {} });
      assert.equal(response.statusCode, 409, `${method} ${url}`);
      assert.equal(response.json().error.code, 'idempotency_mismatch');
    }
    assert.equal(probe.calls, 1);
    assert.equal(await countKeys(tenant.businessId), 2);
  });
});

describe('409 conflict', () => {
  it('answers it while the first request with the key is still running, then replays', async () => {
    let open!: () => void;
    probe.gate = new Promise((resolve) => {
      open = resolve;
    });
    const entered = new Promise<void>((resolve) => {
      probe.entered = resolve;
    });
    const first = postProbe('slow');
    await entered;
    const duplicate = await postProbe('slow');
    assert.equal(duplicate.statusCode, 409);
    assert.equal(duplicate.json().error.code, 'conflict');
    open();
    assert.equal((await first).statusCode, 200);
    const after = await postProbe('slow');
    assert.equal(after.headers['idempotent-replayed'], 'true');
    assert.equal(probe.calls, 1);
  });

  it('lets 50 simultaneous identical requests with one key create exactly one API key', RACE, async () => {
    const tenant = await createTenant(ctx.app);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => createApiKey(withKey('burst', tenant.headers), { name: 'Burst' })),
    );
    const fresh = responses.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    const replayed = responses.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === 'true',
    );
    const inFlight = responses.filter((r) => r.statusCode === 409);
    assert.equal(fresh.length, 1);
    assert.equal(replayed.length + inFlight.length, 49);
    for (const r of inFlight) assert.equal(r.json().error.code, 'conflict');
    for (const r of replayed) assert.equal(r.json().id, fresh[0]!.json().id);
    assert.equal(await countKeys(tenant.businessId), 2);
  });
});

describe('422 validation_error', () => {
  it('names the header when the key is empty or longer than 255 characters', async () => {
    for (const key of ['', 'k'.repeat(256)]) {
      const response = await postProbe(key);
      assert.equal(response.statusCode, 422, `length ${key.length}`);
      assert.equal(response.json().error.code, 'validation_error');
      assert.equal(response.json().error.fields[0].field, 'Idempotency-Key');
    }
    const longest = await postProbe('k'.repeat(255));
    assert.equal(longest.statusCode, 200);
    assert.equal(probe.calls, 1);
  });
});
