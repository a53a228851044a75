import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import {
  bearer,
  createKeyWithId,
  createTenant,
  createTestApp,
  dashboardToken,
  eventually,
  TEST_JWT_SECRET,
  type Tenant,
  type TestContext,
} from '../../test/helpers.ts';
import { type OpenedStream, readStream } from '../../test/live-stream.ts';
import { loadConfig } from '../config.ts';

/**
 * The decided caps, as a deployment has them, in a machine that holds one stream more than one
 * developer may open: another tenant's stream fits only while that developer is held at its cap.
 * Credentials are read again every 50 ms instead of 15 s.
 */
const STREAMS = {
  ...loadConfig({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: 'postgres://unused' }).streams,
  perProcess: 101,
  recheckMs: 50,
};

let ctx: TestContext;
let url: string;
const open: OpenedStream[] = [];
/** A stream from client address `ip` (the test app trusts `X-Forwarded-For`). */
const stream = async (headers: Record<string, string>, ip = '198.51.100.1') => {
  const opened = await readStream(url, { ...headers, 'x-forwarded-for': ip });
  open.push(opened);
  return opened;
};
const reasonOf = async (live: OpenedStream) => JSON.parse((await live.next('closing')).data).reason;
const codeOf = async (live: OpenedStream) =>
  ((await live.response.json()) as { error: { code: string } }).error.code;

before(async () => {
  ctx = await createTestApp({ streams: STREAMS, trustProxy: true });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());
beforeEach(async () => {
  for (const each of open.splice(0)) each.close();
  await eventually(() => ctx.app.liveEvents.open === 0, 'the previous tests’ streams to end');
  await ctx.reset();
});

const inject = async (
  method: 'DELETE' | 'PATCH' | 'POST',
  path: string,
  tenant: Tenant,
  payload?: object,
) => {
  const response = await ctx.app.inject({ method, url: path, headers: tenant.headers, payload });
  assert.ok(response.statusCode < 300, response.body);
  return response;
};

/** A dashboard user's stream, and the user's id. */
const staffStream = async (tenant: Tenant, role: 'business_owner' | 'staff_member') => {
  const token = await dashboardToken(ctx.app, tenant, role);
  const live = await stream(bearer(token));
  await live.next('ready');
  return { live, userId: (await ctx.app.tokens.verify(token))!.sub };
};

describe('live streams end with their credential', () => {
  it("ends a revoked key's stream, which then gets no more events", async () => {
    const biz = await setupBookable(ctx.app);
    const { key, id } = await createKeyWithId(ctx.app, biz.tenant, ['read']);
    const revoked = await stream(bearer(key));
    const owner = await stream(biz.tenant.headers);
    await Promise.all([revoked.next('ready'), owner.next('ready')]);
    await inject('DELETE', `/v1/manage/api-keys/${id}`, biz.tenant);
    assert.equal(await reasonOf(revoked), 'credential_revoked');
    await eventually(() => revoked.ended, 'the stream to end');
    await bookOk(ctx.app, biz);
    await owner.next('booking.created');
    assert.deepEqual(
      revoked.messages.map((m) => m.event),
      ['ready', 'closing'],
    );
    assert.equal(owner.messages.filter((m) => m.event === 'closing').length, 0, 'the owner’s stream stays');
  });

  it('ends the stream of a key revoked by another process, even while this one still accepts the key from its cache', async () => {
    const biz = await setupBookable(ctx.app);
    const { key, id } = await createKeyWithId(ctx.app, biz.tenant, ['read']);
    const live = await stream(bearer(key));
    await live.next('ready');
    const changes = ctx.app.changes;
    const credentialsVersion = changes.credentialsVersion;
    const heardOf = changes.credentialsVersion();
    // This process never hears of the revocation: its cached keys stay current.
    changes.credentialsVersion = () => heardOf;
    try {
      await sql`UPDATE api_keys SET is_active = false WHERE id = ${id}`.execute(ctx.app.db);
      const cached = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: bearer(key),
      });
      assert.equal(cached.statusCode, 200, 'the key cache still accepts the key');
      assert.equal(await reasonOf(live), 'credential_revoked');
      await eventually(() => live.ended, 'the stream to end');
    } finally {
      changes.credentialsVersion = credentialsVersion;
    }
  });

  it("ends a removed staff member's stream", async () => {
    const tenant = await createTenant(ctx.app);
    const { live, userId } = await staffStream(tenant, 'staff_member');
    await inject('DELETE', `/v1/manage/staff/${userId}`, tenant);
    assert.equal(await reasonOf(live), 'credential_revoked');
    await eventually(() => live.ended, 'the stream to end');
  });

  it("ends a dashboard user's stream when the account's sessions end", async () => {
    const tenant = await createTenant(ctx.app);
    const { live, userId } = await staffStream(tenant, 'staff_member');
    // As accepting an invitation does, which sets a new password.
    await sql`UPDATE users SET session_epoch = session_epoch + 1 WHERE id = ${userId}`.execute(ctx.app.db);
    assert.equal(await reasonOf(live), 'credential_revoked');
    await eventually(() => live.ended, 'the stream to end');
  });

  it("ends a dashboard user's stream when the role changes, either way", async () => {
    const tenant = await createTenant(ctx.app);
    const staff = await staffStream(tenant, 'staff_member');
    const owner = await staffStream(tenant, 'business_owner');
    await inject('PATCH', `/v1/manage/staff/${staff.userId}`, tenant, { role: 'business_owner' });
    await inject('PATCH', `/v1/manage/staff/${owner.userId}`, tenant, { role: 'staff_member' });
    assert.equal(await reasonOf(staff.live), 'role_changed');
    assert.equal(await reasonOf(owner.live), 'role_changed');
    await eventually(() => staff.live.ended && owner.live.ended, 'the streams to end');
  });

  it("frees the business's places held by a revoked key's streams", async () => {
    const tenant = await createTenant(ctx.app);
    const { key, id } = await createKeyWithId(ctx.app, tenant, ['read']);
    const held = await Promise.all(Array.from({ length: 20 }, () => stream(bearer(key))));
    await Promise.all(held.map((live) => live.next('ready')));
    const refused = await stream(tenant.headers);
    assert.equal(refused.response.status, 429);
    await inject('DELETE', `/v1/manage/api-keys/${id}`, tenant);
    await eventually(() => held.every((live) => live.ended), 'the revoked streams to end');
    const owner = await stream(tenant.headers);
    assert.equal(owner.response.status, 200);
    await owner.next('ready');
  });
});

describe('stream caps between tenants', () => {
  it("holds none of the business's share of the database while open", async () => {
    const biz = await setupBookable(ctx.app);
    const share = ctx.app.config.dbConcurrencyPerBusiness;
    assert.ok(share > 0);
    for (let i = 0; i <= share; i++) await (await stream(biz.tenant.headers)).next('ready');
    const read = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/bookings',
      headers: biz.tenant.headers,
    });
    assert.equal(read.statusCode, 200, read.body);
  });

  it('takes 5 streams for a sandbox business, then 429 with Retry-After', async () => {
    const sandbox = await createTenant(ctx.app, { is_dev: true });
    for (let i = 0; i < 5; i++) await (await stream(sandbox.headers)).next('ready');
    const refused = await stream(sandbox.headers);
    assert.equal(refused.response.status, 429);
    assert.equal(await codeOf(refused), 'rate_limit_exceeded');
    assert.ok(refused.response.headers.get('retry-after'));
  });

  /** One developer's 100 streams over five businesses, and the stream it then asks for a sixth. */
  const developerAtCap = async () => {
    const first = await createTenant(ctx.app);
    const businesses = [first];
    for (let i = 0; i < 5; i++) {
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/v1/developer/businesses',
        headers: bearer(first.developer.token),
        payload: { name: `Branch ${i}` },
      });
      assert.equal(created.statusCode, 201, created.body);
      businesses.push({
        ...first,
        businessId: created.json().business_id,
        headers: bearer(created.json().api_key),
      });
    }
    // Five businesses of 20, each stream from an address of its own, so no other cap is met first.
    const held = await Promise.all(
      businesses
        .slice(0, 5)
        .flatMap((biz, b) => Array.from({ length: 20 }, (_, i) => stream(biz.headers, `10.0.${b}.${i}`))),
    );
    await Promise.all(held.map((live) => live.next('ready')));
    return stream(businesses[5]!.headers, '10.1.0.1');
  };

  it("takes 100 streams across one developer's businesses, then 429 with Retry-After", async () => {
    const refused = await developerAtCap();
    assert.equal(refused.response.status, 429);
    assert.equal(await codeOf(refused), 'rate_limit_exceeded');
    assert.ok(refused.response.headers.get('retry-after'));
  });

  it('still opens a stream for another tenant while one developer is at its cap', async () => {
    await developerAtCap();
    const other = await createTenant(ctx.app);
    const theirs = await stream(other.headers, '10.2.0.1');
    assert.equal(theirs.response.status, 200);
    await theirs.next('ready');
  });

  it('takes 50 streams from one client address, then 429; other addresses still get one', async () => {
    const tenants = await Promise.all(Array.from({ length: 4 }, () => createTenant(ctx.app)));
    // Three businesses of 17 at most, under their own cap.
    const held = await Promise.all(
      Array.from({ length: 50 }, (_, i) => stream(tenants[i % 3]!.headers, '203.0.113.7')),
    );
    await Promise.all(held.map((live) => live.next('ready')));
    const refused = await stream(tenants[3]!.headers, '203.0.113.7');
    assert.equal(refused.response.status, 429);
    assert.equal(await codeOf(refused), 'rate_limit_exceeded');
    assert.ok(refused.response.headers.get('retry-after'));
    const elsewhere = await stream(tenants[3]!.headers, '203.0.113.8');
    assert.equal(elsewhere.response.status, 200);
    await elsewhere.next('ready');
  });
});
