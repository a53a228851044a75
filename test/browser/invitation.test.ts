// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { axeClean, browserSkipReason, launchBrowser } from '../browser.ts';
import { freePort } from '../free-port.ts';
import {
  bearer,
  createTenant,
  createTestApp,
  dashboardToken,
  type Tenant,
  type TestContext,
  uniqueEmail,
} from '../helpers.ts';

/**
 * The page behind an invitation link in a real browser against the real server: the invited person
 * chooses their password there, then logs in with it. Each state's picture goes to /tmp/accept-*.png.
 */
const skip = browserSkipReason();

let ctx: TestContext;
let api: string;
let browser: Browser;

const PASSWORD = 'four words of mine';

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/** A business whose owner, logged in to the dashboard, invites a new person by email alone. */
async function invite(tenant: Tenant): Promise<{ email: string; id: string; link: string }> {
  const owner = await dashboardToken(ctx.app, tenant, 'business_owner');
  const email = uniqueEmail('invited');
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/staff',
    headers: bearer(owner),
    payload: { email, role: 'staff_member' },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { email, id: response.json().id, link: await linkTo(email) };
}

/** The newest invitation link emailed to `email`, as it stands in the message. */
async function linkTo(email: string): Promise<string> {
  const message = await ctx.app.db
    .selectFrom('message_outbox')
    .select('body_text')
    .where('to_address', '=', email)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  const link = /https?:\/\/\S+\/staff\/accept\?token=[A-Za-z0-9_]+/.exec(message.body_text ?? '');
  assert.ok(link, message.body_text ?? '');
  return link[0];
}

/** A state seen: no axe violation, and its picture in /tmp. */
async function step(page: Page, name: string) {
  await axeClean(page, name);
  await page.screenshot({ path: `/tmp/accept-${name}.png`, fullPage: true });
}

async function openPage(link: string): Promise<{ page: Page; requests: Request[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 520, height: 760 }, locale: 'en-US' });
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  const response = await page.goto(link);
  assert.equal(response?.status(), 200);
  return { page, requests, close: () => context.close() };
}

const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');

describe('the invitation page', { skip }, () => {
  it('sets the password of a new person, who then logs in and is an active member', async () => {
    const tenant = await createTenant(ctx.app, { name: 'Café Nord' });
    const { email, link } = await invite(tenant);
    const { page, requests, close } = await openPage(link);
    try {
      await page.getByRole('heading', { level: 1, name: 'Join Café Nord on Slotwise' }).waitFor();
      assert.equal(await page.getByLabel('Email').inputValue(), email);
      await step(page, 'form');

      // Too short, then two different passwords: said in words, next to the form, nothing sent.
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('Repeat the new password').fill('short');
      await page.getByRole('button', { name: 'Set my password and join' }).click();
      await page.getByRole('alert').getByText('use at least 10 characters').waitFor();
      assert.equal(await focusedId(page), 'password');
      assert.equal(
        await page.getByLabel('New password', { exact: true }).getAttribute('aria-invalid'),
        'true',
      );
      await step(page, 'too-short');
      await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Repeat the new password').fill(`${PASSWORD}!`);
      await page.keyboard.press('Enter');
      await page.getByRole('alert').getByText('The two passwords are not the same').waitFor();
      assert.equal(await focusedId(page), 'repeat');
      await step(page, 'mismatch');
      assert.ok(!requests.some((r) => r.url().includes('/v1/auth/')), 'nothing was sent');

      await page.getByLabel('Repeat the new password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set my password and join' }).click();
      await page.getByRole('heading', { name: 'Your password is set' }).waitFor();
      assert.equal(await focusedId(page), 'done-title');
      assert.ok(await page.getByText(`You can now sign in to Café Nord with ${email}`).isVisible());
      assert.ok(!(await page.locator('#accept').isVisible()), 'the form is gone');
      const signIn = page.locator('#done').getByRole('link', { name: 'Sign in to the dashboard' });
      assert.equal(await signIn.getAttribute('href'), '/staff/');
      await step(page, 'done');

      const sent = requests.filter((r) => r.url().includes('/v1/auth/invitations/accept'));
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.method(), 'POST');
      assert.equal(new URL(sent[0]!.url()).search, '', 'nothing in the URL');
      const referer = (await sent[0]!.allHeaders()).referer;
      assert.ok(!referer, `no Referer carries the token: ${referer}`);
      assert.deepEqual(sent[0]!.postDataJSON(), {
        token: new URL(link).searchParams.get('token'),
        password: PASSWORD,
      });
      for (const request of requests) assert.ok(!request.url().includes('words'), request.url());
    } finally {
      await close();
    }

    const login = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email, password: PASSWORD },
    });
    assert.equal(login.statusCode, 200, login.body);
    assert.deepEqual(login.json().businesses, [
      { id: tenant.businessId, name: 'Café Nord', role: 'staff_member' },
    ]);
    const staff = await ctx.app.inject({ method: 'GET', url: '/v1/manage/staff', headers: tenant.headers });
    const member = staff.json().items.find((item: { email: string }) => item.email === email);
    assert.equal(member.status, 'active');
  });

  it('asks for a new link when the link was used, whether on opening it or on sending the form', async () => {
    const tenant = await createTenant(ctx.app, { name: 'Bistro Sud' });
    const { email, id, link } = await invite(tenant);
    const first = await openPage(link);
    try {
      await first.page.getByRole('heading', { level: 1, name: 'Join Bistro Sud on Slotwise' }).waitFor();
      // Meanwhile the owner sends a new link: the one of this open page stops working.
      const resent = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/staff/${id}/resend`,
        headers: tenant.headers,
      });
      assert.equal(resent.statusCode, 200, resent.body);
      await first.page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await first.page.getByLabel('Repeat the new password').fill(PASSWORD);
      await first.page.getByRole('button', { name: 'Set my password and join' }).click();
      await first.page
        .getByRole('heading', { name: 'This invitation link does not work any more' })
        .waitFor();
      assert.equal(await focusedId(first.page), 'gone-title');
      assert.ok(
        await first.page.getByText('Ask the business that invited you to send a new one').isVisible(),
      );
      await step(first.page, 'replaced');
    } finally {
      await first.close();
    }

    const fresh = await linkTo(email);
    const accepted = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/invitations/accept',
      payload: { token: new URL(fresh).searchParams.get('token'), password: PASSWORD },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const again = await openPage(fresh);
    try {
      await again.page
        .getByRole('heading', { level: 1, name: 'This invitation link does not work any more' })
        .waitFor();
      assert.ok(
        await again.page.getByText('Ask the business that invited you to send a new one').isVisible(),
      );
      assert.ok(!(await again.page.content()).includes('Bistro Sud'));
      assert.equal(await again.page.getByLabel('New password', { exact: true }).count(), 0);
      await step(again.page, 'used');
    } finally {
      await again.close();
    }
  });

  it("says the API's refusal of a password in words, with the rule", async () => {
    const tenant = await createTenant(ctx.app);
    const { link } = await invite(tenant);
    const { page, close } = await openPage(link);
    try {
      // A refusal the form's own checks do not foresee: the API's answer to a weak password.
      await page.route('**/v1/auth/invitations/accept', (route) =>
        route.fulfill({
          status: 422,
          contentType: 'application/json',
          body: JSON.stringify({
            error: {
              code: 'validation_error',
              message: 'invalid',
              fields: [{ field: 'password', message: 'x' }],
            },
          }),
        }),
      );
      await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Repeat the new password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set my password and join' }).click();
      await page
        .getByRole('alert')
        .getByText('This password cannot be used: it needs 10 to 256 characters.')
        .waitFor();
      assert.equal(await focusedId(page), 'password');
      await step(page, 'refused');
    } finally {
      await close();
    }
  });
});
