import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, createTenant, dashboardToken, type Tenant, useTestApp } from '../../test/helpers.ts';
import { setSubscription } from './subscription.service.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const developerHeaders = (tenant: Tenant) => bearer(tenant.developer.token);
const checkout = (headers: Record<string, string>, payload: unknown = { plan: 'pro' }) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/developer/billing/checkout',
    headers,
    payload: payload as object,
  });
const portal = (headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/developer/billing/portal',
    headers,
    ...(payload !== undefined && { payload: payload as object }),
  });
/** A developer's own route refuses a business's API key and its dashboard users' tokens alike. */
async function assertOnlyDevelopers(
  call: (headers: Record<string, string>) => Promise<LightMyRequestResponse>,
  role: 'business_owner' | 'staff_member',
) {
  const tenant = await createTenant(ctx.app);
  const user = bearer(await dashboardToken(ctx.app, tenant, role));
  for (const headers of [tenant.headers, user]) {
    const response = await call(headers);
    assert.equal(response.statusCode, 403, response.body);
    assert.equal(response.json().error.code, 'insufficient_permissions');
  }
}
const subscriptionOf = async (tenant: Tenant) =>
  (await ctx.app.inject({ method: 'GET', url: '/v1/manage/subscription', headers: tenant.headers })).json();
/** The path of a simulated processor's page, from the URL the API answered. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  assert.equal(parsed.origin, ctx.config.publicBaseUrl);
  assert.match(parsed.pathname, /^\/simulated-processor\//);
  return parsed.pathname;
};
const act = (path: string) => ctx.app.inject({ method: 'POST', url: path });
const storedCustomer = async (tenant: Tenant) =>
  (
    await ctx.database.db
      .selectFrom('developers')
      .select('processor_customer_id')
      .where('id', '=', tenant.developer.id)
      .executeTakeFirstOrThrow()
  ).processor_customer_id;

const sessionOf = (response: { json(): { checkout_url: string } }) =>
  pathOf(response.json().checkout_url).split('/').pop()!;

describe('POST /v1/developer/billing/checkout', () => {
  describe('one plan at a time', () => {
    it('keeps one open checkout: a new one expires the open one, which can no longer be paid', async () => {
      const tenant = await createTenant(ctx.app);
      const first = sessionOf(await checkout(developerHeaders(tenant), { plan: 'pro' }));
      const second = sessionOf(await checkout(developerHeaders(tenant), { plan: 'starter' }));
      assert.equal((await ctx.app.payments.simulated.find(first))!.status, 'expired');
      assert.equal((await act(`/simulated-processor/checkout/${first}/complete`)).statusCode, 409);
      assert.equal((await act(`/simulated-processor/checkout/${second}/complete`)).statusCode, 200);
      const read = await subscriptionOf(tenant);
      assert.equal(read.subscription_status, 'active');
      assert.equal(read.subscription_plan_id, 'starter');
    });

    it('expires the checkout a concurrent request left open', async () => {
      const tenant = await createTenant(ctx.app);
      const answers = await Promise.all(
        ['pro', 'premium', 'starter'].map((plan) => checkout(developerHeaders(tenant), { plan })),
      );
      for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
      await ctx.app.jobs.runAll();
      const open = [];
      for (const answer of answers) {
        if ((await ctx.app.payments.simulated.find(sessionOf(answer)))!.status === 'open') open.push(answer);
      }
      assert.equal(open.length, 1);
    });

    it('cancels the subscription a second paid checkout replaces: one plan is billed', async () => {
      const tenant = await createTenant(ctx.app);
      const simulated = ctx.app.payments.simulated;
      const first = sessionOf(await checkout(developerHeaders(tenant), { plan: 'pro' }));
      const second = sessionOf(await checkout(developerHeaders(tenant), { plan: 'premium' }));
      // As when the first was paid in the instant before the second expired it.
      await simulated.update(first, { status: 'open' });
      assert.equal((await act(`/simulated-processor/checkout/${first}/complete`)).statusCode, 200);
      assert.equal((await act(`/simulated-processor/checkout/${second}/complete`)).statusCode, 200);
      const pro = String((await simulated.find(first))!.subscription);
      const premium = String((await simulated.find(second))!.subscription);
      await ctx.app.jobs.runAll();
      assert.equal((await simulated.find(pro))!.status, 'canceled');
      assert.equal((await simulated.find(premium))!.status, 'active');
      const read = await subscriptionOf(tenant);
      assert.equal(read.subscription_status, 'active');
      assert.equal(read.subscription_plan_id, 'premium');
    });
  });

  describe('200', () => {
    it("answers the simulated processor's checkout page for the plan, and makes the customer once", async () => {
      const tenant = await createTenant(ctx.app);
      const first = await checkout(developerHeaders(tenant));
      assert.equal(first.statusCode, 200, first.body);
      const page = await ctx.app.inject({ method: 'GET', url: pathOf(first.json().checkout_url) });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /49\.00 EUR \/ month/);
      const customer = await storedCustomer(tenant);
      assert.match(customer!, /^cus_/);
      const second = await checkout(developerHeaders(tenant), { plan: 'starter' });
      assert.equal(second.statusCode, 200, second.body);
      assert.notEqual(second.json().checkout_url, first.json().checkout_url);
      assert.equal(await storedCustomer(tenant), customer);
      const session = await ctx.app.payments.simulated.find(
        pathOf(second.json().checkout_url).split('/').pop()!,
      );
      assert.equal(session!.customer, customer);
      assert.deepEqual(session!.metadata, { developer_id: tenant.developer.id, plan: 'starter' });
      assert.equal(session!.success_url, ctx.config.publicBaseUrl);
    });

    it('takes the URLs the payer returns to', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await checkout(developerHeaders(tenant), {
        plan: 'premium',
        success_url: 'https://dashboard.example.com/billing?done=1',
        cancel_url: 'https://dashboard.example.com/billing',
      });
      const session = await ctx.app.payments.simulated.find(
        pathOf(response.json().checkout_url).split('/').pop()!,
      );
      assert.equal(session!.success_url, 'https://dashboard.example.com/billing?done=1');
      assert.equal(session!.cancel_url, 'https://dashboard.example.com/billing');
      assert.equal(session!.amount_total, 12_900);
    });

    it('replays its answer to a repeated Idempotency-Key', async () => {
      const tenant = await createTenant(ctx.app);
      const headers = { ...developerHeaders(tenant), 'idempotency-key': 'buy-pro-1' };
      const first = await checkout(headers);
      const again = await checkout(headers);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().checkout_url, first.json().checkout_url);
    });

    it('is open while the subscription is past due, and after a cancelled one', async () => {
      const tenant = await createTenant(ctx.app);
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'starter',
      });
      assert.equal((await checkout(developerHeaders(tenant))).statusCode, 200);
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'cancelled',
        planId: 'pro',
        processorSubscriptionId: 'sub_old',
      });
      assert.equal((await checkout(developerHeaders(tenant))).statusCode, 200);
    });
  });

  describe('401', () => {
    it('refuses a call without a token or with a bad one', async () => {
      for (const headers of [{}, bearer('not.a.jwt')]) {
        const response = await checkout(headers);
        assert.equal(response.statusCode, 401, response.body);
        assert.equal(response.json().error.code, 'invalid_token');
      }
    });
  });

  describe('403', () => {
    it("refuses a business's API key and a dashboard user's token", async () => {
      await assertOnlyDevelopers(checkout, 'business_owner');
    });
  });

  describe('409', () => {
    it('refuses a second subscription while one runs: the portal changes or cancels it', async () => {
      const tenant = await createTenant(ctx.app);
      await act(`${pathOf((await checkout(developerHeaders(tenant))).json().checkout_url)}/complete`);
      const response = await checkout(developerHeaders(tenant), { plan: 'premium' });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().error.code, 'conflict');
      assert.match(response.json().error.message, /billing portal/);
    });
  });

  describe('422', () => {
    it('refuses an unknown plan, the free plan, a missing plan and a URL that is not http(s)', async () => {
      const tenant = await createTenant(ctx.app);
      for (const payload of [
        { plan: 'gold' },
        { plan: 'free' },
        {},
        { plan: 'pro', success_url: 'javascript:alert(1)' },
        { plan: 'pro', extra: true },
      ]) {
        const response = await checkout(developerHeaders(tenant), payload);
        assert.equal(response.statusCode, 422, `${JSON.stringify(payload)}: ${response.body}`);
        assert.equal(response.json().error.code, 'validation_error');
      }
      assert.equal(await storedCustomer(tenant), null);
    });
  });
});

describe('POST /v1/developer/billing/portal', () => {
  describe('200', () => {
    it("answers the portal of the developer's customer, open while past due", async () => {
      const tenant = await createTenant(ctx.app);
      await checkout(developerHeaders(tenant));
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'pro',
      });
      const response = await portal(developerHeaders(tenant), {
        return_url: 'https://dashboard.example.com',
      });
      assert.equal(response.statusCode, 200, response.body);
      const page = await ctx.app.inject({ method: 'GET', url: pathOf(response.json().portal_url) });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /https:\/\/dashboard\.example\.com/);
      assert.equal((await portal(developerHeaders(tenant))).statusCode, 200, 'the body is optional');
    });
  });

  describe('401', () => {
    it('refuses a call without a token', async () => {
      assert.equal((await portal({})).statusCode, 401);
    });
  });

  describe('403', () => {
    it("refuses a business's API key and a dashboard user's token", async () => {
      await assertOnlyDevelopers(portal, 'staff_member');
    });
  });

  describe('409', () => {
    it('refuses a developer who never bought a plan', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await portal(developerHeaders(tenant));
      assert.equal(response.statusCode, 409, response.body);
      assert.match(response.json().error.message, /checkout/);
    });
  });

  describe('422', () => {
    it('refuses a return URL that is not http(s)', async () => {
      const tenant = await createTenant(ctx.app);
      await checkout(developerHeaders(tenant));
      const response = await portal(developerHeaders(tenant), { return_url: 'ftp://example.com' });
      assert.equal(response.statusCode, 422, response.body);
    });
  });
});

describe('developer billing through the simulated processor', () => {
  it('checkout -> Pay -> the subscription shows the plan', async () => {
    const tenant = await createTenant(ctx.app);
    const page = pathOf((await checkout(developerHeaders(tenant), { plan: 'premium' })).json().checkout_url);
    assert.equal((await act(`${page}/complete`)).statusCode, 200);
    const body = await subscriptionOf(tenant);
    assert.equal(body.subscription_status, 'active');
    assert.equal(body.subscription_plan_id, 'premium');
    assert.equal(body.trial_days_remaining, 0);
    assert.ok(Date.parse(body.current_period_ends_at) > Date.now() + 27 * 86_400_000);
  });

  it('portal -> a failed invoice makes every call 402 -> paying it opens them again', async () => {
    const tenant = await createTenant(ctx.app);
    await act(`${pathOf((await checkout(developerHeaders(tenant))).json().checkout_url)}/complete`);
    const portalPage = pathOf((await portal(developerHeaders(tenant))).json().portal_url);
    const owner = bearer(await dashboardToken(ctx.app, tenant, 'business_owner'));
    assert.equal((await act(`${portalPage}/fail_invoice`)).statusCode, 200);
    const calls = [
      { method: 'GET' as const, url: '/v1/manage/resources', headers: tenant.headers },
      { method: 'GET' as const, url: '/v1/manage/resources', headers: owner },
      { method: 'GET' as const, url: '/v1/developer/businesses', headers: developerHeaders(tenant) },
      { method: 'GET' as const, url: `/v1/public/business/${tenant.slug}`, headers: tenant.headers },
    ];
    for (const call of calls) {
      const response = await ctx.app.inject(call);
      assert.equal(response.statusCode, 402, `${call.url}: ${response.body}`);
      assert.equal(response.json().error.code, 'payment_required');
    }
    assert.equal((await subscriptionOf(tenant)).subscription_status, 'past_due');
    assert.equal((await portal(developerHeaders(tenant))).statusCode, 200, 'billing stays open');
    assert.equal((await act(`${portalPage}/pay_invoice`)).statusCode, 200);
    for (const call of calls) {
      const response = await ctx.app.inject(call);
      assert.notEqual(response.statusCode, 402, `${call.url}: ${response.body}`);
    }
    assert.equal((await subscriptionOf(tenant)).subscription_status, 'active');
  });

  it('portal -> cancel at period end keeps the plan until then; cancel now ends it', async () => {
    const tenant = await createTenant(ctx.app);
    await act(`${pathOf((await checkout(developerHeaders(tenant))).json().checkout_url)}/complete`);
    const portalPage = pathOf((await portal(developerHeaders(tenant))).json().portal_url);
    await act(`${portalPage}/cancel_at_period_end`);
    let body = await subscriptionOf(tenant);
    assert.equal(body.subscription_status, 'cancelled');
    assert.equal(body.subscription_plan_id, 'pro');
    await act(`${portalPage}/cancel_now`);
    body = await subscriptionOf(tenant);
    assert.equal(body.subscription_status, 'cancelled');
    assert.equal(body.subscription_plan_id, 'free');
  });
});
