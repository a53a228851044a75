import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { createTenant, type Tenant, useTestApp } from '../../test/helpers.ts';
import { sendProcessorEvent } from '../../test/processor-events.ts';
import { oneMonthAfter } from '../platform/clock.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const DAY = 86_400;
const nowSeconds = () => Math.floor(ctx.app.clock.now() / 1000);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const processorId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

interface Billed {
  tenant: Tenant;
  customerId: string;
  subscriptionId: string;
  periodEnd: number;
}

/** A developer with a business, and the processor's names for a subscription of theirs. */
async function developer(): Promise<Billed> {
  return {
    tenant: await createTenant(ctx.app),
    customerId: processorId('cus'),
    subscriptionId: processorId('sub'),
    periodEnd: nowSeconds() + 20 * DAY,
  };
}

const send = async (
  type: string,
  object: Record<string, unknown> & { id: string },
  options: { id?: string; created?: number; account?: string } = {},
) => {
  const response = await sendProcessorEvent(ctx.app, type, object, options);
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(response.json(), { received: true });
};

const checkoutSession = (billed: Billed, overrides: Record<string, unknown> = {}) => ({
  id: processorId('cs_test'),
  object: 'checkout.session',
  mode: 'subscription',
  status: 'complete',
  payment_status: 'paid',
  customer: billed.customerId,
  subscription: billed.subscriptionId,
  metadata: { developer_id: billed.tenant.developer.id, plan: 'pro' },
  ...overrides,
});

/** A subscription as Stripe's newer API versions show it: the period on its items. */
const subscription = (billed: Billed, overrides: Record<string, unknown> = {}) => ({
  id: billed.subscriptionId,
  object: 'subscription',
  customer: billed.customerId,
  status: 'active',
  cancel_at_period_end: false,
  cancel_at: null,
  ended_at: null,
  items: { object: 'list', data: [{ id: processorId('si'), current_period_end: billed.periodEnd }] },
  metadata: { developer_id: billed.tenant.developer.id, plan: 'pro' },
  ...overrides,
});

/** An invoice as Stripe's newer API versions show it: the subscription under `parent`. */
const invoice = (billed: Billed, overrides: Record<string, unknown> = {}) => ({
  id: processorId('in'),
  object: 'invoice',
  customer: billed.customerId,
  parent: {
    type: 'subscription_details',
    subscription_details: { subscription: billed.subscriptionId, metadata: {} },
  },
  status: 'open',
  ...overrides,
});

const stored = (billed: Billed) =>
  ctx.database.db
    .selectFrom('developers')
    .select([
      'subscription_status',
      'subscription_plan_id',
      'current_period_ends_at',
      'processor_customer_id',
      'processor_subscription_id',
    ])
    .where('id', '=', billed.tenant.developer.id)
    .executeTakeFirstOrThrow();

const seen = async (billed: Billed) => {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/v1/manage/subscription',
    headers: billed.tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  return {
    status: body.subscription_status,
    plan: body.subscription_plan_id,
    periodEnd: body.current_period_ends_at,
  };
};

const resourcesAnswer = async (billed: Billed) =>
  (await ctx.app.inject({ method: 'GET', url: '/v1/manage/resources', headers: billed.tenant.headers }))
    .statusCode;

/** A developer whose checkout completed: active on pro. */
async function subscribed(): Promise<Billed> {
  const billed = await developer();
  await send('checkout.session.completed', checkoutSession(billed), { created: nowSeconds() - 60 });
  return billed;
}

describe('POST /webhooks/payments: subscription events', () => {
  describe('checkout.session.completed', () => {
    it("activates the plan of the metadata, keeping the processor's customer and subscription", async () => {
      const billed = await developer();
      const created = nowSeconds();
      await send('checkout.session.completed', checkoutSession(billed), { created });
      const row = await stored(billed);
      assert.equal(row.subscription_status, 'active');
      assert.equal(row.subscription_plan_id, 'pro');
      assert.equal(row.processor_customer_id, billed.customerId);
      assert.equal(row.processor_subscription_id, billed.subscriptionId);
      assert.equal(
        row.current_period_ends_at?.toISOString(),
        new Date(oneMonthAfter(created * 1000)).toISOString(),
      );
      assert.deepEqual(await seen(billed), {
        status: 'active',
        plan: 'pro',
        periodEnd: new Date(oneMonthAfter(created * 1000)).toISOString(),
      });
    });

    it('finds the developer by the customer the checkout was made for', async () => {
      const billed = await developer();
      await ctx.database.db
        .updateTable('developers')
        .set({ processor_customer_id: billed.customerId })
        .where('id', '=', billed.tenant.developer.id)
        .execute();
      await send('checkout.session.completed', checkoutSession(billed, { metadata: { plan: 'starter' } }));
      assert.equal((await seen(billed)).plan, 'starter');
    });

    it("ignores a payment link's session, an unknown plan and an unknown developer", async () => {
      const billed = await developer();
      await send(
        'checkout.session.completed',
        checkoutSession(billed, { mode: 'payment', subscription: null }),
      );
      await send(
        'checkout.session.completed',
        checkoutSession(billed, { metadata: { developer_id: billed.tenant.developer.id, plan: 'gold' } }),
      );
      await send(
        'checkout.session.completed',
        checkoutSession(billed, {
          customer: processorId('cus'),
          metadata: { developer_id: '00000000-0000-4000-8000-000000000000', plan: 'pro' },
        }),
      );
      await send(
        'checkout.session.completed',
        checkoutSession(billed, {
          customer: processorId('cus'),
          metadata: { developer_id: 'not-a-uuid', plan: 'pro' },
        }),
      );
      assert.equal((await seen(billed)).status, 'trial');
      assert.equal((await stored(billed)).processor_subscription_id, null);
    });
  });

  describe('customer.subscription.updated', () => {
    it("syncs an active subscription and its period's end", async () => {
      const billed = await subscribed();
      await send('customer.subscription.updated', subscription(billed, { metadata: { plan: 'premium' } }));
      assert.deepEqual(await seen(billed), {
        status: 'active',
        plan: 'premium',
        periodEnd: iso(billed.periodEnd),
      });
    });

    it("reads the period's end on the subscription itself, as older API versions put it", async () => {
      const billed = await subscribed();
      await send(
        'customer.subscription.updated',
        subscription(billed, { items: { data: [] }, current_period_end: billed.periodEnd + DAY }),
      );
      assert.equal((await seen(billed)).periodEnd, iso(billed.periodEnd + DAY));
    });

    it('cancels at the period end: cancelled, the plan kept until then, free after', async () => {
      const billed = await subscribed();
      await send(
        'customer.subscription.updated',
        subscription(billed, { cancel_at_period_end: true, cancel_at: billed.periodEnd }),
      );
      assert.deepEqual(await seen(billed), {
        status: 'cancelled',
        plan: 'pro',
        periodEnd: iso(billed.periodEnd),
      });
      ctx.app.clock.now = () => billed.periodEnd * 1000;
      assert.deepEqual(await seen(billed), {
        status: 'cancelled',
        plan: 'free',
        periodEnd: iso(billed.periodEnd),
      });
    });

    it("keeps the known period's end when the subscription shows none", async () => {
      const billed = await subscribed();
      const known = (await stored(billed)).current_period_ends_at!.toISOString();
      await send(
        'customer.subscription.updated',
        subscription(billed, { items: { data: [] }, cancel_at_period_end: true }),
      );
      assert.deepEqual(await seen(billed), { status: 'cancelled', plan: 'pro', periodEnd: known });
    });

    it('takes a subscription back that is no longer set to cancel', async () => {
      const billed = await subscribed();
      await send('customer.subscription.updated', subscription(billed, { cancel_at_period_end: true }));
      await send('customer.subscription.updated', subscription(billed));
      assert.equal((await seen(billed)).status, 'active');
    });

    it('sets past_due (every call 402) for past_due and unpaid', async () => {
      for (const status of ['past_due', 'unpaid']) {
        const billed = await subscribed();
        await send('customer.subscription.updated', subscription(billed, { status }));
        assert.deepEqual(await seen(billed), {
          status: 'past_due',
          plan: 'pro',
          periodEnd: iso(billed.periodEnd),
        });
        assert.equal(await resourcesAnswer(billed), 402);
      }
    });

    it('cancels at once for canceled: the free plan from the end', async () => {
      const billed = await subscribed();
      const endedAt = nowSeconds() - 5;
      await send(
        'customer.subscription.updated',
        subscription(billed, { status: 'canceled', ended_at: endedAt }),
      );
      assert.deepEqual(await seen(billed), { status: 'cancelled', plan: 'free', periodEnd: iso(endedAt) });
    });

    it('keeps a trial through a trialing subscription, and activates a paid one', async () => {
      const billed = await developer();
      await send('customer.subscription.updated', subscription(billed, { status: 'trialing' }));
      assert.equal((await seen(billed)).status, 'trial');
      assert.equal((await stored(billed)).processor_subscription_id, billed.subscriptionId);
      await send('customer.subscription.updated', subscription(billed, { status: 'active' }));
      assert.deepEqual(await seen(billed), {
        status: 'active',
        plan: 'pro',
        periodEnd: iso(billed.periodEnd),
      });
    });

    it('changes nothing for an incomplete subscription', async () => {
      const billed = await subscribed();
      await send('customer.subscription.updated', subscription(billed, { status: 'incomplete' }));
      assert.equal((await seen(billed)).status, 'active');
    });
  });

  describe('customer.subscription.deleted', () => {
    it('cancels: the period is over now, the plan free', async () => {
      const billed = await subscribed();
      const created = nowSeconds();
      await send('customer.subscription.deleted', subscription(billed, { status: 'canceled' }), { created });
      assert.deepEqual(await seen(billed), { status: 'cancelled', plan: 'free', periodEnd: iso(created) });
      assert.equal(await resourcesAnswer(billed), 200);
    });

    it('ignores the end of a subscription the developer never had', async () => {
      const billed = await developer();
      await send('customer.subscription.deleted', subscription(billed, { status: 'canceled' }));
      assert.equal((await seen(billed)).status, 'trial');
    });
  });

  describe('invoice.payment_failed and invoice.payment_succeeded', () => {
    it('sets past_due (402 everywhere but billing), then clears it', async () => {
      const billed = await subscribed();
      await send('invoice.payment_failed', invoice(billed));
      assert.equal((await seen(billed)).status, 'past_due');
      assert.equal(await resourcesAnswer(billed), 402);
      await send('invoice.payment_succeeded', invoice(billed, { status: 'paid' }));
      assert.deepEqual(await seen(billed), {
        status: 'active',
        plan: 'pro',
        periodEnd: (await stored(billed)).current_period_ends_at!.toISOString(),
      });
      assert.equal(await resourcesAnswer(billed), 200);
    });

    it('reads the subscription of an invoice from older API versions too', async () => {
      const billed = await subscribed();
      await send(
        'invoice.payment_failed',
        invoice(billed, { parent: null, subscription: billed.subscriptionId }),
      );
      assert.equal((await seen(billed)).status, 'past_due');
    });

    it("ignores invoices of another subscription, and a cancelled subscription's", async () => {
      const billed = await subscribed();
      await send('invoice.payment_failed', invoice({ ...billed, subscriptionId: processorId('sub') }));
      await send('invoice.payment_failed', invoice(billed, { parent: null }));
      assert.equal((await seen(billed)).status, 'active');
      await send('customer.subscription.updated', subscription(billed, { cancel_at_period_end: true }));
      await send('invoice.payment_failed', invoice(billed));
      assert.equal((await seen(billed)).status, 'cancelled');
    });

    it('leaves an active subscription active when an invoice is paid', async () => {
      const billed = await subscribed();
      await send('invoice.payment_succeeded', invoice(billed, { status: 'paid' }));
      assert.equal((await seen(billed)).status, 'active');
    });
  });

  describe('duplicates', () => {
    it('applies an event id once, however often it is delivered', async () => {
      const billed = await subscribed();
      const failed = { id: processorId('evt') };
      await send('invoice.payment_failed', invoice(billed), failed);
      await send('invoice.payment_succeeded', invoice(billed));
      await send('invoice.payment_failed', invoice(billed), failed);
      assert.equal((await seen(billed)).status, 'active');
      const recorded = await ctx.database.db
        .selectFrom('processor_events')
        .select('id')
        .where('id', '=', failed.id)
        .execute();
      assert.equal(recorded.length, 1);
    });
  });

  describe('out of order', () => {
    it('ends active when the payment arrives before the failure it followed', async () => {
      const billed = await subscribed();
      const t = nowSeconds();
      await send('invoice.payment_succeeded', invoice(billed), { created: t });
      await send('invoice.payment_failed', invoice(billed), { created: t - 10 });
      assert.equal((await seen(billed)).status, 'active');
      assert.equal(await resourcesAnswer(billed), 200);
    });

    it('ends cancelled when the cancellation arrives before an older update', async () => {
      const billed = await subscribed();
      const t = nowSeconds();
      await send('customer.subscription.deleted', subscription(billed, { status: 'canceled' }), {
        created: t,
      });
      await send('customer.subscription.updated', subscription(billed), { created: t - 30 });
      await send('invoice.payment_failed', invoice(billed), { created: t - 20 });
      assert.deepEqual(await seen(billed), { status: 'cancelled', plan: 'free', periodEnd: iso(t) });
    });

    it("ends on the subscription's own state when its update beats the checkout", async () => {
      const billed = await developer();
      const t = nowSeconds();
      await send('customer.subscription.updated', subscription(billed, { cancel_at_period_end: true }), {
        created: t,
      });
      await send('checkout.session.completed', checkoutSession(billed), { created: t - 2 });
      assert.deepEqual(await seen(billed), {
        status: 'cancelled',
        plan: 'pro',
        periodEnd: iso(billed.periodEnd),
      });
      const row = await stored(billed);
      assert.equal(row.processor_subscription_id, billed.subscriptionId);
      assert.equal(row.processor_customer_id, billed.customerId);
    });

    it('keeps a new subscription when the old one ends after it began', async () => {
      const old = await subscribed();
      await send('customer.subscription.updated', subscription(old, { cancel_at_period_end: true }));
      const renewed = { ...old, subscriptionId: processorId('sub') };
      await send(
        'checkout.session.completed',
        checkoutSession(renewed, {
          metadata: { developer_id: old.tenant.developer.id, plan: 'premium' },
        }),
      );
      await send('customer.subscription.deleted', subscription(old, { status: 'canceled' }));
      await send('invoice.payment_failed', invoice(old));
      assert.equal((await seen(old)).status, 'active');
      assert.equal((await seen(old)).plan, 'premium');
      assert.equal((await stored(old)).processor_subscription_id, renewed.subscriptionId);
    });
  });
});

describe('POST /webhooks/payments: account.updated', () => {
  const connect = async (synced: Date | null = null) => {
    const tenant = await createTenant(ctx.app);
    const accountId = processorId('acct');
    await ctx.database.db
      .insertInto('connected_accounts')
      .values({
        business_id: tenant.businessId,
        processor: 'simulated',
        processor_account_id: accountId,
        synced_at: synced,
      })
      .execute();
    return { tenant, accountId };
  };
  const flags = (accountId: string) =>
    ctx.database.db
      .selectFrom('connected_accounts')
      .select(['details_submitted', 'charges_enabled', 'payouts_enabled'])
      .where('processor_account_id', '=', accountId)
      .executeTakeFirstOrThrow();
  const account = (id: string, enabled: boolean) => ({
    id,
    object: 'account',
    details_submitted: enabled,
    charges_enabled: enabled,
    payouts_enabled: enabled,
  });

  it("syncs the business's account and with it deposits_enabled", async () => {
    const { tenant, accountId } = await connect();
    await send('account.updated', account(accountId, true), { account: accountId });
    assert.deepEqual(await flags(accountId), {
      details_submitted: true,
      charges_enabled: true,
      payouts_enabled: true,
    });
    const subscription = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/subscription',
      headers: tenant.headers,
    });
    assert.equal(subscription.json().deposits_enabled, true);
  });

  it('ignores an update older than what the account already knows, and unknown accounts', async () => {
    const t = nowSeconds();
    const { accountId } = await connect(new Date(t * 1000));
    await send('account.updated', account(accountId, true), { created: t - 1 });
    assert.equal((await flags(accountId)).charges_enabled, false);
    await send('account.updated', account(accountId, true), { created: t });
    assert.equal((await flags(accountId)).charges_enabled, true);
    await send('account.updated', account(processorId('acct'), true));
  });
});
