import type { operations } from '@slotwise/sdk';
import { useEffect, useState } from 'preact/hooks';
import { call, session } from '../api.ts';
import { versionOf } from '../changes.ts';
import { language, t } from '../i18n.ts';
import { report } from '../problems.ts';

type Subscription = operations['getSubscription']['responses'][200]['content']['application/json'];
const PAID_PLANS = ['starter', 'pro', 'premium'] as const;

/**
 * The developer's plan as this business sees it: status, trial, this month's bookings against the
 * quota. Paying is the developer's (`/v1/developer/billing/*` takes a developer's token only), so
 * only a developer gets the way to the billing page.
 */
export default function Plan() {
  const [plan, setPlan] = useState<Subscription | null>(null);
  const [wanted, setWanted] = useState<(typeof PAID_PLANS)[number]>('pro');
  const version = versionOf('settings');
  useEffect(() => {
    call((api) => api.GET('/v1/manage/subscription'))
      .then(setPlan)
      .catch(report);
  }, [version]);
  if (!plan) return <p role="status">{t('loading')}</p>;
  const date = new Intl.DateTimeFormat(language.value, { dateStyle: 'medium' });
  // A running subscription is changed in the processor's portal; anything else buys a plan (billing.routes.ts).
  const running = plan.subscription_status === 'active' || plan.subscription_status === 'past_due';
  const openBilling = () =>
    (running
      ? call((api) => api.POST('/v1/developer/billing/portal', { body: {} })).then(
          (answer) => answer.portal_url,
        )
      : call((api) => api.POST('/v1/developer/billing/checkout', { body: { plan: wanted } })).then(
          (answer) => answer.checkout_url,
        )
    )
      .then((url) => location.assign(url))
      .catch(report);
  return (
    <>
      <dl class="facts">
        <dt>{t('settingsPlanName')}</dt>
        <dd>{plan.subscription_plan_id}</dd>
        <dt>{t('status')}</dt>
        <dd>{plan.subscription_status}</dd>
        {plan.trial_days_remaining > 0 && (
          <>
            <dt>{t('settingsTrialEnds')}</dt>
            <dd>{date.format(new Date(plan.trial_ends_at))}</dd>
          </>
        )}
        {plan.current_period_ends_at && (
          <>
            <dt>{t('settingsPeriodEnds')}</dt>
            <dd>{date.format(new Date(plan.current_period_ends_at))}</dd>
          </>
        )}
        <dt>{t('settingsBookingsMonth')}</dt>
        <dd>
          {plan.bookings_quota === null
            ? plan.bookings_this_month
            : t('settingsOfQuota', { n: plan.bookings_this_month, quota: plan.bookings_quota })}
        </dd>
        <dt>{t('settingsResourceCount')}</dt>
        <dd>{plan.resource_count}</dd>
      </dl>
      {session.value?.kind !== 'developer' ? (
        <p class="hint">{t('settingsBillingDeveloper')}</p>
      ) : running ? (
        <button type="button" onClick={openBilling}>
          {t('settingsBillingPortal')}
        </button>
      ) : (
        <div class="form-actions">
          <label for="plan-choice">{t('settingsPlanChoice')}</label>
          <select
            id="plan-choice"
            value={wanted}
            onChange={(event) => setWanted(event.currentTarget.value as (typeof PAID_PLANS)[number])}
          >
            {PAID_PLANS.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
          <button type="button" onClick={openBilling}>
            {t('settingsBuyPlan')}
          </button>
        </div>
      )}
    </>
  );
}
