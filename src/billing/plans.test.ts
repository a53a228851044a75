import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubscriptionState } from '../schema.ts';
import { entitlementAt, PLANS, quotaMonth } from './plans.rules.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-10T12:00:00Z');
const state = (overrides: Partial<SubscriptionState>): SubscriptionState => ({
  status: 'active',
  planId: 'starter',
  trialEndsAt: new Date(NOW - 30 * DAY),
  currentPeriodEndsAt: null,
  ...overrides,
});

describe('entitlementAt', () => {
  it('gives a running trial the premium features and counts its days up', () => {
    const running = entitlementAt(
      state({ status: 'trial', planId: 'trial', trialEndsAt: new Date(NOW + 13 * DAY + 1) }),
      NOW,
    );
    assert.equal(running.status, 'trial');
    assert.equal(running.planId, 'trial');
    assert.deepEqual(running.plan, { ...PLANS.premium, monthlySms: 50 });
    assert.equal(running.trialDaysRemaining, 14);
  });

  it('puts a trial past its end on the free plan, as an active subscription', () => {
    const lapsed = entitlementAt(
      state({ status: 'trial', planId: 'trial', trialEndsAt: new Date(NOW) }),
      NOW,
    );
    assert.equal(lapsed.status, 'active');
    assert.equal(lapsed.planId, 'free');
    assert.deepEqual(lapsed.plan, PLANS.free);
    assert.equal(lapsed.trialDaysRemaining, 0);
  });

  it('keeps a paid plan while active or past due, with no trial days', () => {
    for (const status of ['active', 'past_due'] as const) {
      const paid = entitlementAt(state({ status, planId: 'pro', trialEndsAt: new Date(NOW + DAY) }), NOW);
      assert.equal(paid.status, status);
      assert.equal(paid.planId, 'pro');
      assert.equal(paid.trialDaysRemaining, 0);
    }
  });

  it('keeps a cancelled plan until the end of its period, then falls to free', () => {
    const cancelled = state({
      status: 'cancelled',
      planId: 'premium',
      currentPeriodEndsAt: new Date(NOW + 1),
    });
    assert.equal(entitlementAt(cancelled, NOW).planId, 'premium');
    const over = entitlementAt(cancelled, NOW + 1);
    assert.equal(over.status, 'cancelled');
    assert.equal(over.planId, 'free');
    assert.equal(entitlementAt(state({ status: 'cancelled', planId: 'pro' }), NOW).planId, 'free');
  });

  it('carries the quotas and features of the plan table', () => {
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(PLANS).map(([id, p]) => [
          id,
          [p.monthlyBookings, p.dynamicMode, p.authorizationHolds],
        ]),
      ),
      {
        free: [500, false, false],
        starter: [2000, false, false],
        pro: [10000, false, true],
        premium: [50000, true, true],
      },
    );
  });
});

describe('quotaMonth', () => {
  it('is the first day of the UTC month', () => {
    assert.equal(quotaMonth(Date.parse('2026-03-31T23:59:59Z')), '2026-03-01');
    assert.equal(quotaMonth(Date.parse('2026-04-01T00:00:00Z')), '2026-04-01');
  });
});
