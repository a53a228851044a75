import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { escapeHtml } from '../engine/html.ts';
import { MIN_PASSWORD_LENGTH } from '../platform/auth.ts';
import { linkPage } from '../platform/html.ts';
import type { MembershipRole } from '../schema.ts';
import { INVITATION_DAYS, type InvitationView } from './staff.service.ts';

/** Where the page's script is served: CSP allows scripts of the page's own origin only. */
export const INVITATION_SCRIPT_PATH = '/staff/accept.js';

/** The longest password the accept route takes. */
const MAX_PASSWORD_LENGTH = 256;

const STYLE = `
body { margin: 0; background: #f4f4f6; color: #1d1d22; font: 1rem/1.5 system-ui, sans-serif; }
main { box-sizing: border-box; max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 0.75rem; box-shadow: 0 1px 3px rgb(0 0 0 / 0.15); }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; line-height: 1.3; margin: 0 0 0.5rem; }
p { margin: 0 0 0.75rem; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input { box-sizing: border-box; width: 100%; margin-top: 0.25rem; padding: 0.6rem 0.7rem; font: inherit; color: inherit; border: 1px solid #6b6b76; border-radius: 0.4rem; }
input[readonly] { background: #f4f4f6; border-color: #c9c9d1; }
input[aria-invalid="true"] { border: 2px solid #b00020; }
input:focus-visible, button:focus-visible, [tabindex="-1"]:focus-visible { outline: 3px solid #1f5fbf; outline-offset: 2px; }
.hint, .note { font-size: 0.9rem; color: #4a4a55; }
.hint { margin: 0.25rem 0 0; }
.note { margin: 1rem 0 0; }
.problem { color: #b00020; font-weight: 600; margin: 1rem 0 0; }
.problem:empty { display: none; }
button { margin-top: 1.25rem; width: 100%; padding: 0.75rem; font: inherit; font-weight: 600; color: #fff; background: #1f5fbf; border: 0; border-radius: 0.4rem; cursor: pointer; }
button:disabled { opacity: 0.7; cursor: progress; }
[hidden] { display: none !important; }
@media (max-width: 30rem) { main { margin: 0; border-radius: 0; box-shadow: none; } }
`;

/**
 * The page's own script and API only, its one style by hash; no framing (a framed page could be
 * dressed up to collect the password), and a form that cannot be sent anywhere without the script.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page's URL carries the link's token: no Referer may take it elsewhere, no cache or search
 * engine may keep the page, no other site may frame it.
 */
export const INVITATION_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
};

const ROLE_NAMES: Record<MembershipRole, string> = {
  business_owner: 'an owner',
  staff_member: 'a staff member',
};

const GONE_TITLE = 'This invitation link does not work any more';
const GONE_TEXT = `An invitation link works once, for ${INVITATION_DAYS} days, and a new link replaces the earlier one. Ask the business that invited you to send a new one. If you have already chosen your password, sign in with it.`;

const document = (title: string, body: string) =>
  linkPage({ lang: 'en', title, style: STYLE, body, script: INVITATION_SCRIPT_PATH });

/**
 * The page behind an invitation link. For a link that works, the form choosing the password, and
 * the answers its script shows in its place (hidden until then); otherwise only that the link does
 * not work, with nothing of any invitation.
 */
export function invitationPage(invitation: InvitationView | undefined): string {
  if (!invitation) {
    return document(
      `${GONE_TITLE} - Slotwise`,
      `<h1>${GONE_TITLE}</h1>
<p>${GONE_TEXT}</p>
<p><a href="/staff/">Sign in to the dashboard</a></p>`,
    );
  }
  const business = escapeHtml(invitation.business_name);
  const email = escapeHtml(invitation.email);
  const title = `Join ${business} on Slotwise`;
  return document(
    title,
    `<h1>${title}</h1>
<div id="invitation">
<p>You are invited to work with <strong>${business}</strong> as ${ROLE_NAMES[invitation.role]}. To accept, choose the password of your Slotwise account.</p>
<form id="accept" method="post" novalidate data-min="${MIN_PASSWORD_LENGTH}">
<label for="email">Email</label>
<input id="email" type="email" autocomplete="username" value="${email}" readonly>
<label for="password">New password</label>
<input id="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required aria-describedby="rule problem">
<p id="rule" class="hint">At least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a strong one.</p>
<label for="repeat">Repeat the new password</label>
<input id="repeat" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required aria-describedby="problem">
<p id="problem" class="problem" role="alert"></p>
<button type="submit">Set my password and join</button>
</form>
<p class="note">This password replaces any earlier one of your account and signs it out everywhere else.</p>
<noscript><p class="problem">This page needs JavaScript to set your password.</p></noscript>
</div>
<section id="done" aria-labelledby="done-title" hidden>
<h2 id="done-title" tabindex="-1">Your password is set</h2>
<p>You can now sign in to ${business} with ${email} and your new password.</p>
<p><a href="/staff/">Sign in to the dashboard</a></p>
</section>
<section id="gone" aria-labelledby="gone-title" hidden>
<h2 id="gone-title" tabindex="-1">${GONE_TITLE}</h2>
<p>${GONE_TEXT}</p>
<p><a href="/staff/">Sign in to the dashboard</a></p>
</section>`,
  );
}

/** The page's script, read once, with the ETag a browser revalidates it by. */
const scriptBody = readFileSync(new URL('./invitation-page.browser.js', import.meta.url));
export const invitationScript = {
  body: scriptBody,
  etag: `"${createHash('sha256').update(scriptBody).digest('base64url').slice(0, 16)}"`,
};
