import type { StoredPlanId, SubscriptionState, SubscriptionStatus } from '../schema.ts';

/**
 * The plans of decisions.md, in one table: what each costs, how many bookings a month it takes,
 * and which features it carries. Everything that gates on a plan reads it from here.
 */
export type PlanId = Exclude<StoredPlanId, 'trial'>;

export interface Plan {
  /** Monthly price in euro cents. */
  priceCents: number;
  /** Bookings created per calendar month (UTC) across the developer's live businesses. */
  monthlyBookings: number;
  /** SMS sent per calendar month (UTC) across the developer's live businesses. */
  monthlySms: number;
  dynamicMode: boolean;
  authorizationHolds: boolean;
  calendarSync: boolean;
}

export const PLANS: Record<PlanId, Plan> = {
  free: {
    priceCents: 0,
    monthlyBookings: 500,
    monthlySms: 0,
    dynamicMode: false,
    authorizationHolds: false,
    calendarSync: false,
  },
  starter: {
    priceCents: 999,
    monthlyBookings: 2_000,
    monthlySms: 200,
    dynamicMode: false,
    authorizationHolds: false,
    calendarSync: false,
  },
  pro: {
    priceCents: 4_900,
    monthlyBookings: 10_000,
    monthlySms: 1_000,
    dynamicMode: false,
    authorizationHolds: true,
    calendarSync: true,
  },
  premium: {
    priceCents: 12_900,
    monthlyBookings: 50_000,
    monthlySms: 5_000,
    dynamicMode: true,
    authorizationHolds: true,
    calendarSync: true,
  },
};

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];
export const TRIAL_DAYS = 14;
/** A trial has the top plan's features and booking quota, but SMS of its own: they cost money per message. */
const TRIAL_PLAN: Plan = { ...PLANS.premium, monthlySms: 50 };

export type Feature = 'dynamicMode' | 'authorizationHolds' | 'calendarSync';

export const FEATURE_NAMES: Record<Feature, string> = {
  dynamicMode: 'dynamic booking mode',
  authorizationHolds: 'authorization-hold deposits',
  calendarSync: 'two-way calendar sync',
};

/** What a subscription entitles to at one moment. */
export interface Entitlement {
  status: SubscriptionStatus;
  /** `trial` while the trial runs, else the plan in force. */
  planId: StoredPlanId;
  plan: Plan;
  trialEndsAt: Date;
  trialDaysRemaining: number;
}

const DAY_MS = 86_400_000;

/**
 * The subscription in force at `now`. Lapses are read, not written: a trial past its end, or a
 * cancelled subscription past its period, is on the free plan from that instant, whatever job
 * would otherwise have had to run. A lapsed trial reads as an `active` free plan; a lapsed
 * cancellation stays `cancelled`, on the free plan.
 */
export function entitlementAt(state: SubscriptionState, now: number): Entitlement {
  const trialEndsAt = state.trialEndsAt;
  const trialLeft = trialEndsAt.getTime() - now;
  const trialDaysRemaining = state.status === 'trial' && trialLeft > 0 ? Math.ceil(trialLeft / DAY_MS) : 0;
  const base = { trialEndsAt, trialDaysRemaining };
  if (state.status === 'trial' || state.planId === 'trial') {
    return trialLeft > 0 && state.status === 'trial'
      ? { ...base, status: 'trial', planId: 'trial', plan: TRIAL_PLAN }
      : {
          ...base,
          status: state.status === 'trial' ? 'active' : state.status,
          planId: 'free',
          plan: PLANS.free,
        };
  }
  const periodOver =
    state.status === 'cancelled' &&
    (state.currentPeriodEndsAt === null || state.currentPeriodEndsAt.getTime() <= now);
  const planId: PlanId = periodOver ? 'free' : state.planId;
  return { ...base, status: state.status, planId, plan: PLANS[planId] };
}

/** The first day of the calendar month (UTC) `now` falls in: the period booking quotas count over. */
export const quotaMonth = (now: number) => `${new Date(now).toISOString().slice(0, 7)}-01`;
