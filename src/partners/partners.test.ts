import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { send } from '../../test/booking-fixtures.ts';
import { bearer, createTenant, itChecksAuth, useTestApp } from '../../test/helpers.ts';
import { LOGIN_LIMIT } from '../developers/sessions.service.ts';

const ctx = useTestApp();

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

const health = (headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: '/partners/maps-booking/v3/HealthCheck', headers });

describe('POST /v1/manage/partners', () => {
  it('gives the partner Basic credentials once, keeps only a hash, and lists it without them', async () => {
    const tenant = await createTenant(ctx.app);
    const created = await send(ctx.app, tenant, 'POST', '/v1/manage/partners', { name: 'Maps reservations' });
    assert.equal(created.name, 'Maps reservations');
    assert.deepEqual(created.business_ids, [tenant.businessId]);
    assert.ok(created.password.length >= 40);
    const stored = await ctx.database.db
      .selectFrom('partners')
      .select(['username', 'secret_hash'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.username, created.username);
    assert.ok(!JSON.stringify(stored).includes(created.password), 'the password is not stored');
    const listed = await send(ctx.app, tenant, 'GET', '/v1/manage/partners');
    assert.equal(listed.items.length, 1);
    assert.equal(listed.items[0].id, created.id);
    assert.ok(!('password' in listed.items[0]));
    assert.equal((await health(basic(created.username, created.password))).statusCode, 200);
  });

  it("lists several of a developer's businesses with one partner, and no one else's", async () => {
    const tenant = await createTenant(ctx.app);
    const second = await ctx.app.inject({
      method: 'POST',
      url: '/v1/developer/businesses',
      headers: bearer(tenant.developer.token),
      payload: { name: 'Second venue' },
    });
    const secondId = second.json().business_id;
    const stranger = await createTenant(ctx.app);
    const developer = { ...bearer(tenant.developer.token), 'x-business-id': tenant.businessId };
    const both = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/partners',
      headers: developer,
      payload: { name: 'Both', business_ids: [tenant.businessId, secondId] },
    });
    assert.equal(both.statusCode, 201, both.body);
    assert.deepEqual(both.json().business_ids, [tenant.businessId, secondId]);

    const foreign = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/partners',
      headers: developer,
      payload: { name: 'Foreign', business_ids: [tenant.businessId, stranger.businessId] },
    });
    assert.equal(foreign.statusCode, 422, foreign.body);
    assert.equal(foreign.json().error.fields[0].field, 'business_ids');

    // A key of one business lists that business only, even with its developer's other businesses.
    const byKey = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/partners',
      headers: tenant.headers,
      payload: { name: 'Sibling', business_ids: [secondId] },
    });
    assert.equal(byKey.statusCode, 422, byKey.body);
    const partners = await ctx.database.db.selectFrom('partners').select('name').execute();
    assert.deepEqual(
      partners.map((p) => p.name),
      ['Both'],
      'a refused call made no partner',
    );
  });

  itChecksAuth(() => ctx, {
    route: () => ({
      method: 'POST',
      url: '/v1/manage/partners',
      payload: { name: 'P' },
      scope: 'admin',
      staff: false,
    }),
  });
});

describe('GET /v1/manage/partners', () => {
  it('shows a business only the partners it is listed with', async () => {
    const a = await createTenant(ctx.app);
    const b = await createTenant(ctx.app);
    await send(ctx.app, a, 'POST', '/v1/manage/partners', { name: 'Of A' });
    assert.deepEqual((await send(ctx.app, b, 'GET', '/v1/manage/partners')).items, []);
  });

  itChecksAuth(() => ctx, {
    route: () => ({ method: 'GET', url: '/v1/manage/partners', scope: 'admin', staff: false }),
  });
});

describe('DELETE /v1/manage/partners/{partner_id}', () => {
  it("ends the listing: the partner's credentials no longer reach the business", async () => {
    const tenant = await createTenant(ctx.app);
    const partner = await send(ctx.app, tenant, 'POST', '/v1/manage/partners', { name: 'Gone' });
    const lookup = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/partners/maps-booking/v3/BatchAvailabilityLookup',
        headers: basic(partner.username, partner.password),
        payload: { merchant_id: tenant.businessId, slot_time: [] },
      });
    assert.equal((await lookup()).statusCode, 200);
    const other = await createTenant(ctx.app);
    const foreign = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/partners/${partner.id}`,
      headers: other.headers,
    });
    assert.equal(foreign.statusCode, 404, 'another business cannot end the listing');
    const removed = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/partners/${partner.id}`,
      headers: tenant.headers,
    });
    assert.equal(removed.statusCode, 204);
    const after = await lookup();
    assert.equal(after.statusCode, 400);
    assert.deepEqual((await send(ctx.app, tenant, 'GET', '/v1/manage/partners')).items, []);
  });

  itChecksAuth(() => ctx, {
    given: (tenant) => send(ctx.app, tenant, 'POST', '/v1/manage/partners', { name: 'P' }),
    route: (partner) => ({
      method: 'DELETE',
      url: `/v1/manage/partners/${partner.id}`,
      scope: 'admin',
      staff: false,
    }),
  });
});

describe('partner credentials', () => {
  it('count failed tries as failed logins of the user name, and never lock out the right credentials', async () => {
    const tenant = await createTenant(ctx.app);
    const partner = await send(ctx.app, tenant, 'POST', '/v1/manage/partners', { name: 'Locked' });
    const from = (remoteAddress: string, password: string) =>
      ctx.app.inject({
        method: 'GET',
        url: '/partners/maps-booking/v3/HealthCheck',
        remoteAddress,
        headers: basic(partner.username, password),
      });
    for (let i = 0; i < LOGIN_LIMIT.failures; i++) {
      const wrong = await from('198.51.100.7', `wrong-${i}`);
      assert.equal(wrong.statusCode, 401, wrong.body);
    }
    const locked = await from('198.51.100.7', 'wrong-again');
    assert.equal(locked.statusCode, 429, locked.body);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    // 256 random bits are no guess: whoever knows the user name cannot lock the partner out.
    const right = await from('198.51.100.7', partner.password);
    assert.equal(right.statusCode, 200, right.body);
  });

  it('refuses a user name that is none of ours before it reaches the failures (a long one, a NUL)', async () => {
    for (const username of [`partner_${'x'.repeat(3000)}`, 'partner_\u0000abc', 'x'.repeat(200)]) {
      const response = await health(basic(username, 'whatever'));
      assert.equal(response.statusCode, 401, `${username.slice(0, 20)}: ${response.body}`);
      assert.equal(response.json().error.code, 'invalid_token');
    }
  });

  it('refuses a malformed header, an unknown user and a key of the API alike', async () => {
    const tenant = await createTenant(ctx.app);
    for (const headers of [
      {},
      { authorization: 'Basic !!!' },
      { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` },
      basic('partner_unknown', 'whatever'),
      bearer(tenant.apiKey),
    ]) {
      const response = await health(headers);
      assert.equal(response.statusCode, 401, `${JSON.stringify(headers)}: ${response.body}`);
      assert.equal(response.json().error.code, 'invalid_token');
    }
  });
});
