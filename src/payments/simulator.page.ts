import { escapeHtml } from '../engine/html.ts';
import type { StoredObject } from './simulated-processor.adapter.ts';
import { SAVEABLE_CARDS } from './simulator.service.ts';

/**
 * The simulated processor's pages: plain HTML forms posting to the JSON actions of
 * `simulator.routes.ts`, which answer a form with a redirect back to its page. No script, nothing
 * loaded from elsewhere.
 */

export const PREFIX = '/simulated-processor';

/** The test page where a guest pays or saves a card for an intent, from its client secret. */
export const intentPagePath = (kind: 'payment_intents' | 'setup_intents', id: string, secret: string) =>
  `${PREFIX}/${kind}/${id}?client_secret=${encodeURIComponent(secret)}`;

/** The same page, found from the client secret alone (`pi_…_secret_…` or `seti_…_secret_…`). */
export const guestPaymentPath = (secret: string) =>
  intentPagePath(
    secret.startsWith('seti_') ? 'setup_intents' : 'payment_intents',
    secret.split('_secret_')[0]!,
    secret,
  );

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} - simulated payment processor</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
.note { background: #fff4d6; border: 1px solid #e8c96a; padding: .5rem .75rem; font-size: .9rem; }
.amount { font-size: 2rem; margin: 1rem 0; }
form { display: inline-block; margin: .5rem .5rem 0 0; }
button { font-size: 1rem; padding: .5rem 1rem; cursor: pointer; }
dt { font-weight: 600; margin-top: .5rem; }
</style>
</head>
<body>
<p class="note">Simulated payment processor: no money moves. Each button sends the events the real processor would.</p>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

function money(cents: unknown, currency: unknown): string {
  return `${(Number(cents) / 100).toFixed(2)} ${String(currency ?? '').toUpperCase()}`;
}

function button(action: string, label: string, fields: Record<string, string> = {}): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return `<form method="post" action="${escapeHtml(action)}">${hidden}<button type="submit">${escapeHtml(label)}</button></form>`;
}

const status = (text: string) => `<p>Status: <strong>${escapeHtml(text)}</strong></p>`;
const link = (href: unknown, label: string) =>
  typeof href === 'string' && href ? `<p><a href="${escapeHtml(href)}">${escapeHtml(label)}</a></p>` : '';

export function paymentIntentPage(intent: StoredObject, clientSecret: string): string {
  const action = `${PREFIX}/payment_intents/${intent.id}/confirm`;
  const waiting = ['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(
    String(intent.status),
  );
  const error = intent.last_payment_error as { message?: string } | null;
  const body = [
    `<p class="amount">${escapeHtml(money(intent.amount, intent.currency))}</p>`,
    intent.capture_method === 'manual'
      ? '<p>An authorisation hold: the card is charged only if captured.</p>'
      : '',
    status(String(intent.status)),
    error?.message ? `<p>Last attempt: ${escapeHtml(error.message)}</p>` : '',
    waiting
      ? button(action, 'Pay', { client_secret: clientSecret, outcome: 'succeed' }) +
        button(action, 'Decline', { client_secret: clientSecret, outcome: 'decline' })
      : '',
  ];
  return page('Test checkout', body.join('\n'));
}

export function setupIntentPage(intent: StoredObject, clientSecret: string): string {
  const action = `${PREFIX}/setup_intents/${intent.id}/confirm`;
  const waiting = intent.status !== 'succeeded' && intent.status !== 'canceled';
  const [card, declining] = SAVEABLE_CARDS;
  const body = [
    '<p>Save a card for a hold placed later.</p>',
    status(String(intent.status)),
    waiting
      ? button(action, 'Save card', {
          client_secret: clientSecret,
          outcome: 'succeed',
          payment_method: card,
        }) +
        button(action, 'Save a card whose hold will be declined', {
          client_secret: clientSecret,
          outcome: 'succeed',
          payment_method: declining,
        }) +
        button(action, 'Decline', { client_secret: clientSecret, outcome: 'decline' })
      : '',
  ];
  return page('Save a card', body.join('\n'));
}

export function checkoutPage(session: StoredObject): string {
  const base = `${PREFIX}/checkout/${session.id}`;
  const open = session.status === 'open';
  const body = [
    `<p>${escapeHtml(session.description)}</p>`,
    `<p class="amount">${escapeHtml(money(session.amount_total, session.currency))}${session.mode === 'subscription' ? ' / month' : ''}</p>`,
    status(String(session.status)),
    open ? button(`${base}/complete`, 'Pay') + button(`${base}/expire`, 'Let it expire') : '',
    session.status === 'complete' ? link(session.success_url, 'Continue') : '',
    session.status === 'expired' ? link(session.cancel_url, 'Back') : '',
  ];
  return page('Checkout', body.join('\n'));
}

export function onboardingPage(onboardingLink: StoredObject, account: StoredObject | undefined): string {
  const done = account?.details_submitted === true;
  const body = [
    `<p>Connected account <code>${escapeHtml(onboardingLink.account)}</code></p>`,
    status(done ? 'onboarding complete' : 'details missing'),
    done
      ? link(onboardingLink.return_url, 'Return')
      : button(`${PREFIX}/connect/${onboardingLink.id}/complete`, 'Complete'),
  ];
  return page('Connect a payment account', body.join('\n'));
}

export function portalPage(
  session: StoredObject,
  subscription: StoredObject | undefined,
  invoice: StoredObject | undefined,
): string {
  const base = `${PREFIX}/portal/${session.id}`;
  const body: string[] = [];
  if (!subscription) {
    body.push('<p>No subscription yet.</p>');
  } else {
    const periodEnd = new Date(Number(subscription.current_period_end) * 1000).toISOString();
    const metadata = subscription.metadata as Record<string, string> | null;
    body.push(
      `<dl><dt>Plan</dt><dd>${escapeHtml(metadata?.plan ?? '-')}</dd><dt>Status</dt><dd>${escapeHtml(subscription.status)}${
        subscription.cancel_at_period_end === true ? ' (ends with its period)' : ''
      }</dd><dt>Current period ends</dt><dd>${escapeHtml(periodEnd)}</dd></dl>`,
      invoice ? `<p>Open invoice: ${escapeHtml(money(invoice.amount_due, invoice.currency))}</p>` : '',
    );
    if (subscription.status !== 'canceled') {
      body.push(
        subscription.cancel_at_period_end === true
          ? ''
          : button(`${base}/cancel_at_period_end`, 'Cancel at period end'),
        button(`${base}/cancel_now`, 'Cancel now'),
        button(`${base}/fail_invoice`, 'Fail the next invoice'),
        invoice ? button(`${base}/pay_invoice`, 'Pay the invoice') : '',
      );
    }
  }
  body.push(link(session.return_url, 'Return'));
  return page('Billing', body.join('\n'));
}
