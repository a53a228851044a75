import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import {
  bearer,
  createKey,
  createTenant,
  dashboardToken,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import type { AppError } from '../platform/errors.ts';
import { depositsEnabled, paymentDestination } from './connect.service.ts';
import { setSubscription } from './subscription.service.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const onboard = (headers: Record<string, string>, payload?: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/billing/connect/onboard',
    headers,
    ...(payload !== undefined && { payload: payload as object }),
  });
const status = (headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: '/v1/billing/connect/status', headers });
const depositsShown = async (tenant: Tenant) =>
  (await ctx.app.inject({ method: 'GET', url: '/v1/manage/subscription', headers: tenant.headers })).json()
    .deposits_enabled;
const linkPath = (url: string) => new URL(url).pathname;
const storedAccount = (tenant: Tenant) =>
  ctx.database.db
    .selectFrom('connected_accounts')
    .selectAll()
    .where('business_id', '=', tenant.businessId)
    .executeTakeFirst();

describe('POST /v1/billing/connect/onboard', () => {
  describe('200', () => {
    it('makes the account once and answers a fresh onboarding link each time', async () => {
      const tenant = await createTenant(ctx.app);
      const first = await onboard(tenant.headers);
      assert.equal(first.statusCode, 200, first.body);
      const { onboarding_url, connect_id } = first.json();
      assert.match(connect_id, /^acct_/);
      assert.match(linkPath(onboarding_url), /^\/simulated-processor\/connect\/acctlink_/);
      const row = await storedAccount(tenant);
      assert.equal(row?.processor, 'simulated');
      assert.equal(row?.processor_account_id, connect_id);
      assert.equal(row?.details_submitted, false);
      const again = (
        await onboard(tenant.headers, { return_url: 'https://dashboard.example.com/done' })
      ).json();
      assert.equal(again.connect_id, connect_id);
      assert.notEqual(again.onboarding_url, onboarding_url);
      const page = await ctx.app.inject({ method: 'GET', url: linkPath(again.onboarding_url) });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(connect_id));
    });

    it('lets an owner, a developer naming the business and an admin key onboard, also while past due', async () => {
      const tenant = await createTenant(ctx.app);
      const owner = bearer(await dashboardToken(ctx.app, tenant, 'business_owner'));
      const developer = { ...bearer(tenant.developer.token), 'x-business-id': tenant.businessId };
      const admin = bearer(await createKey(ctx.app, tenant, ['admin']));
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'pro',
      });
      for (const headers of [owner, developer, admin]) {
        const response = await onboard(headers);
        assert.equal(response.statusCode, 200, response.body);
      }
    });
  });

  describe('422', () => {
    it('refuses a return URL that is not http(s) and unknown fields', async () => {
      const tenant = await createTenant(ctx.app);
      for (const payload of [
        { return_url: 'mailto:x@example.com' },
        { refresh_url: 'nope' },
        { country: 'DE' },
      ]) {
        const response = await onboard(tenant.headers, payload);
        assert.equal(response.statusCode, 422, response.body);
      }
      assert.equal(await storedAccount(tenant), undefined);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: '/v1/billing/connect/onboard',
        scope: 'admin',
        staff: false,
        openWhilePastDue: true,
      }),
    });
  });
});

describe('GET /v1/billing/connect/status', () => {
  describe('200', () => {
    it('shows no account before onboarding', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await status(tenant.headers);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        connected: false,
        details_submitted: false,
        charges_enabled: false,
        payouts_enabled: false,
        connect_id: null,
      });
    });

    it('refreshes the account from the processor, even when no event told of it', async () => {
      const tenant = await createTenant(ctx.app);
      const { connect_id } = (await onboard(tenant.headers)).json();
      assert.deepEqual((await status(tenant.headers)).json(), {
        connected: false,
        details_submitted: false,
        charges_enabled: false,
        payouts_enabled: false,
        connect_id,
      });
      await ctx.app.payments.simulated.update(connect_id, { details_submitted: true, charges_enabled: true });
      assert.deepEqual((await status(tenant.headers)).json(), {
        connected: true,
        details_submitted: true,
        charges_enabled: true,
        payouts_enabled: false,
        connect_id,
      });
      assert.equal((await storedAccount(tenant))?.charges_enabled, true);
      assert.equal(await depositsShown(tenant), true);
    });

    it('answers the stored state when the processor cannot say', async () => {
      const tenant = await createTenant(ctx.app);
      await ctx.database.db
        .insertInto('connected_accounts')
        .values({
          business_id: tenant.businessId,
          processor: 'simulated',
          processor_account_id: 'acct_gone',
          details_submitted: true,
          charges_enabled: true,
        })
        .execute();
      const response = await status(tenant.headers);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().connected, true);
      assert.equal(response.json().connect_id, 'acct_gone');
    });

    it('answers staff members and past-due developers', async () => {
      const tenant = await createTenant(ctx.app);
      const staff = bearer(await dashboardToken(ctx.app, tenant, 'staff_member'));
      await setSubscription(ctx.app.db, ctx.app.changes, tenant.developer.id, {
        status: 'past_due',
        planId: 'pro',
      });
      assert.equal((await status(staff)).statusCode, 200);
      assert.equal((await status(tenant.headers)).statusCode, 200);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'GET',
        url: '/v1/billing/connect/status',
        scope: 'read',
        staff: true,
        openWhilePastDue: true,
      }),
    });
  });
});

describe('deposits_enabled', () => {
  it('turns true once onboarding on the simulated processor is complete', async () => {
    const tenant = await createTenant(ctx.app);
    assert.equal(await depositsShown(tenant), false);
    const { onboarding_url } = (await onboard(tenant.headers)).json();
    assert.equal(await depositsShown(tenant), false);
    const completed = await ctx.app.inject({ method: 'POST', url: `${linkPath(onboarding_url)}/complete` });
    assert.equal(completed.statusCode, 200, completed.body);
    assert.equal(await depositsShown(tenant), true);
    const body = (await status(tenant.headers)).json();
    assert.equal(body.connected, true);
    assert.equal(body.payouts_enabled, true);
  });

  it('is always true for a sandbox business, which needs no onboarding', async () => {
    const tenant = await createTenant(ctx.app, { is_dev: true });
    assert.equal(await depositsShown(tenant), true);
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, true, 'simulated'), true);
  });

  it('needs both submitted details and enabled charges', async () => {
    const tenant = await createTenant(ctx.app);
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, false, 'simulated'), false);
    const { connect_id } = (await onboard(tenant.headers)).json();
    const set = (details: boolean, charges: boolean) =>
      ctx.database.db
        .updateTable('connected_accounts')
        .set({ details_submitted: details, charges_enabled: charges })
        .where('processor_account_id', '=', connect_id)
        .execute();
    await set(true, false);
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, false, 'simulated'), false);
    await set(false, true);
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, false, 'simulated'), false);
    await set(true, true);
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, false, 'simulated'), true);
  });

  it("counts only an account of the processor the business's deposits go through", async () => {
    const tenant = await createTenant(ctx.app);
    const { connect_id } = (await onboard(tenant.headers)).json();
    await ctx.database.db
      .updateTable('connected_accounts')
      .set({ details_submitted: true, charges_enabled: true })
      .where('processor_account_id', '=', connect_id)
      .execute();
    // Onboarded with the simulated processor, then Stripe configured: onboard again first.
    assert.equal(await depositsEnabled(ctx.app.db, tenant.businessId, false, 'stripe'), false);
    await assert.rejects(
      paymentDestination(ctx.app.db, tenant.businessId, false, 'stripe'),
      (error: AppError) => {
        assert.equal(error.code, 'deposits_not_enabled');
        return true;
      },
    );
    assert.equal(await paymentDestination(ctx.app.db, tenant.businessId, false, 'simulated'), connect_id);
  });
});
