// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn, wallTimeToInstant } from '../../src/engine/time.ts';
import { dayLong } from '../../widget/format.ts';
import {
  axeClean,
  browserSkipReason,
  launchBrowser,
  screenshotPath,
  signIn,
  tabTo,
  untilInPage,
} from '../browser.ts';
import { freePort } from '../free-port.ts';
import {
  bearer,
  createTenant,
  createTestApp,
  type Tenant,
  type TestContext,
  uniqueEmail,
} from '../helpers.ts';

/**
 * The staff dashboard in a real browser against the real server: a dashboard user and a developer
 * sign in, see the day's bookings where they belong, move between days with the keyboard and
 * switch business. The pictures of the README go to docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const PASSWORD = 'four words of mine';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let api: string;
let browser: Browser;
let today: string;

async function send(
  headers: Record<string, string>,
  method: 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload: unknown,
) {
  const response = await ctx.app.inject({ method, url, headers, payload: payload as object });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** Opening hours, lunch and dinner, and tables in two sections, in Paris, on a 24-hour clock. */
async function furnish(tenant: Tenant, tables: { name: string; section: string }[]) {
  const call = (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown) =>
    send(tenant.headers, method, url, payload);
  await call('PATCH', '/v1/manage/settings', { timezone: ZONE, time_format: '24h' });
  await call(
    'PUT',
    '/v1/manage/hours',
    [0, 1, 2, 3, 4, 5, 6].map((day) => ({
      day_of_week: day,
      is_open: true,
      open_time: '11:00',
      close_time: '23:00',
    })),
  );
  await call('PUT', '/v1/manage/service-periods', [
    { name: 'Lunch', days_of_week: [0, 1, 2, 3, 4, 5, 6], start_time: '12:00', end_time: '14:30' },
    { name: 'Dinner', days_of_week: [0, 1, 2, 3, 4, 5, 6], start_time: '18:00', end_time: '22:30' },
  ]);
  const ids: Record<string, string> = {};
  for (const table of tables) {
    ids[table.name] = (
      await call('POST', '/v1/manage/resources', { ...table, capacity_min: 2, capacity_max: 4 })
    ).id;
  }
  return ids;
}

interface Venue {
  tenant: Tenant;
  tables: Record<string, string>;
}

/** Brasserie Lumière tonight: Dupont on T1, a party of 7 on T3 + T4 joined, lunch on T2, blocks. */
async function openBrasserie(): Promise<Venue> {
  const tenant = await createTenant(ctx.app, { name: 'Brasserie Lumière' });
  const tables = await furnish(tenant, [
    { name: 'T1', section: 'Salle' },
    { name: 'T2', section: 'Salle' },
    { name: 'T3', section: 'Terrasse' },
    { name: 'T4', section: 'Terrasse' },
  ]);
  const call = (method: 'POST', url: string, payload: unknown) => send(tenant.headers, method, url, payload);
  await call('POST', '/v1/manage/combinations', {
    name: 'Terrasse long',
    resource_ids: [tables.T3, tables.T4],
    capacity_min: 5,
    capacity_max: 8,
  });
  const book = (body: Record<string, unknown>) =>
    call('POST', '/v1/manage/bookings/staff', { date: today, phone: '+33 1 23 45 67 89', ...body });
  await book({ time: '19:00', capacity: 2, first_name: 'Anna', last_name: 'Dupont', resource_id: tables.T1 });
  await book({
    time: '12:30',
    capacity: 4,
    first_name: 'Paul',
    last_name: 'Bernard',
    resource_id: tables.T2,
  });
  await book({
    time: '20:00',
    capacity: 7,
    first_name: 'Léa',
    last_name: 'Martin',
    phone: '+33 6 12 34 56 78',
  });
  const at = (time: string) => new Date(`${today}T${time}:00+01:00`).toISOString();
  await call('POST', `/v1/manage/resources/${tables.T2}/blocks`, {
    start_at: at('15:00'),
    end_at: at('16:00'),
    reason: 'Deep clean',
  });
  await call('POST', `/v1/manage/resources/${tables.T1}/blocks`, {
    start_at: at('11:00'),
    end_at: at('12:00'),
    source: 'ical',
  });
  return { tenant, tables };
}

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
  today = todayIn(ZONE, Date.now());
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/** The dashboard's sign-in page; `now`, when given, is the browser's clock (the server keeps its own). */
async function openDashboard(viewport: { width: number; height: number }, now?: number) {
  // The browser's own zone is another than the venue's: every time shown is the venue's.
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'America/New_York' });
  const page = await context.newPage();
  if (now !== undefined) await page.clock.setFixedTime(now);
  const response = await page.goto(`${api}/staff/`);
  assert.equal(response?.status(), 200);
  await page.getByRole('heading', { level: 1, name: 'Sign in to your dashboard' }).waitFor();
  return { page, close: () => context.close() };
}

const dayHeading = (page: Page, date: string) =>
  page.getByRole('heading', { level: 1, name: dayLong('en', date) });

/** The booking's block: in the row of `table`, starting under the hour label `hour`. */
async function assertPlaced(page: Page, name: RegExp, table: string, start: string, hour: string) {
  const inRow = page.locator(`li[data-resource="${table}"]`).getByRole('button', { name });
  await inRow.waitFor();
  assert.equal(await inRow.getAttribute('data-start'), start);
  const label = page.locator('.tl-hour', { hasText: new RegExp(`^${hour}$`) });
  const [blockBox, labelBox] = [await inRow.boundingBox(), await label.boundingBox()];
  assert.ok(blockBox && labelBox);
  const minutes = Number(start.slice(3));
  // A quarter hour is a fixed share of the track: a booking on the hour starts at the label's left edge.
  if (minutes === 0) assert.ok(Math.abs(blockBox.x - labelBox.x) < 2, `${blockBox.x} vs ${labelBox.x}`);
  else assert.ok(blockBox.x > labelBox.x + 2, `${blockBox.x} after ${labelBox.x}`);
}

describe('the staff dashboard', { skip }, () => {
  it('shows a dashboard user tonight on the timeline, day by day with the keyboard, and switches business', async () => {
    const brasserie = await openBrasserie();
    const cafe = await createTenant(ctx.app, { name: 'Café du Port' });
    await furnish(cafe, [{ name: 'Quai 1', section: 'Quai' }]);
    const email = uniqueEmail('host');
    // A new account with its password from the invite, then an invitation to a second business accepted by link.
    await send(brasserie.tenant.headers, 'POST', '/v1/manage/staff', {
      email,
      role: 'staff_member',
      password: PASSWORD,
    });
    await send(cafe.headers, 'POST', '/v1/manage/staff', { email, role: 'business_owner' });
    const message = await ctx.app.db
      .selectFrom('message_outbox')
      .select('body_text')
      .where('to_address', '=', email)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const token = /\/staff\/accept\?token=([A-Za-z0-9_]+)/.exec(message.body_text ?? '')![1];
    await send({}, 'POST', '/v1/auth/invitations/accept', { token, password: PASSWORD });

    const { page, close } = await openDashboard(TABLET, wallTimeToInstant(today, '19:30', ZONE)!);
    try {
      await axeClean(page, 'sign-in');
      await signIn(page, email, 'not the password');
      await page.getByRole('alert').getByText('The email or the password is not right.').waitFor();
      await signIn(page, email, PASSWORD);
      await dayHeading(page, today).waitFor();
      assert.equal(await page.getByLabel('Business').inputValue(), brasserie.tenant.businessId);
      assert.ok(await page.getByRole('link', { name: 'Today', exact: true }).first().isVisible());

      await assertPlaced(page, /^2 Dupont ?, Anna Dupont, 19:00–20:00, confirmed$/, 'T1', '19:00', '19:00');
      await assertPlaced(page, /^4 Bernard ?, Paul Bernard, 12:30–/, 'T2', '12:30', '12:00');
      // The party of seven holds both tables of the combination, each block naming the other.
      await assertPlaced(page, /^7 Martin ?, Léa Martin, 20:00–.*, with T4$/, 'T3', '20:00', '20:00');
      await assertPlaced(page, /^7 Martin ?, Léa Martin, 20:00–.*, with T3$/, 'T4', '20:00', '20:00');
      assert.ok(
        await page.locator('li[data-resource="T1"]').getByText('Calendar', { exact: true }).isVisible(),
      );
      assert.ok(await page.locator('li[data-resource="T2"]').getByText('Deep clean').isVisible());
      assert.ok(await page.getByText('Dinner 18:00–22:30').isVisible());
      assert.ok(await page.getByRole('heading', { name: 'Terrasse' }).isVisible());
      assert.ok(await page.getByText('3 bookings, 13 guests').isVisible());
      // The now-line at 19:30 in Paris: halfway between the labels of 19:00 and 20:00.
      const nowLine = await page.locator('.tl-now').boundingBox();
      const seven = await page.locator('.tl-hour', { hasText: /^19:00$/ }).boundingBox();
      const eight = await page.locator('.tl-hour', { hasText: /^20:00$/ }).boundingBox();
      assert.ok(nowLine && seven && eight);
      assert.ok(
        Math.abs(nowLine.x - (seven.x + eight.x) / 2) < 3,
        `${nowLine.x} between ${seven.x} and ${eight.x}`,
      );
      await axeClean(page, 'today, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-today-tablet.png') });

      await page.getByRole('button', { name: /^2 Dupont ?, Anna Dupont/ }).click();
      const panel = page.getByRole('complementary', { name: 'Booking: Anna Dupont' });
      await panel.waitFor();
      assert.ok(await panel.getByText('+33 1 23 45 67 89').isVisible());
      assert.ok(await panel.getByText('T1', { exact: true }).isVisible());
      await untilInPage(page, "document.activeElement?.id === 'panel-title'");
      await axeClean(page, 'booking selected');

      // Days by keyboard alone.
      await tabTo(page, /^Next day/);
      await page.keyboard.press('Enter');
      await dayHeading(page, addDays(today, 1)).waitFor();
      assert.ok(page.url().endsWith(`#/today/${addDays(today, 1)}`), page.url());
      await page.getByText('0 bookings, 0 guests').waitFor();
      await tabTo(page, /Previous day$/);
      await page.keyboard.press('Enter');
      await dayHeading(page, today).waitFor();
      await page.keyboard.press('Enter');
      await dayHeading(page, addDays(today, -1)).waitFor();
      await tabTo(page, /^Today$/);
      await page.keyboard.press('Enter');
      await dayHeading(page, today).waitFor();
      await page.getByRole('button', { name: /^2 Dupont ?, Anna Dupont/ }).waitFor();

      // A date that does not exist opens today; a reload keeps the session of this tab.
      await page.goto(`${api}/staff/#/today/2026-02-30`);
      await dayHeading(page, today).waitFor();
      await page.reload();
      await page.getByRole('button', { name: /^2 Dupont ?, Anna Dupont/ }).waitFor();

      await page.getByLabel('Business').selectOption({ label: 'Café du Port' });
      await page.locator('li[data-resource="Quai 1"]').waitFor();
      assert.equal(
        await page.getByRole('button', { name: /Dupont/ }).count(),
        0,
        "the other business's bookings are gone",
      );
      assert.equal(await page.locator('li[data-resource="T1"]').count(), 0);
      await axeClean(page, 'second business');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to your dashboard' }).waitFor();
    } finally {
      await close();
    }
  });

  it('signs in with one form, and asks which account when the email and password open two', async () => {
    const tenant = await createTenant(ctx.app, { name: 'Café du Port' });
    await furnish(tenant, [{ name: 'Quai 1', section: 'Quai' }]);
    // The developer is also the venue's owner on the dashboard, with the same password.
    await send(tenant.headers, 'POST', '/v1/manage/staff', {
      email: tenant.developer.email,
      role: 'business_owner',
      password: tenant.developer.password,
    });
    const { page, close } = await openDashboard(PHONE);
    try {
      assert.equal(await page.getByRole('checkbox').count(), 0, 'no box to say which kind of account');
      await signIn(page, tenant.developer.email, tenant.developer.password);
      const choice = page.getByRole('group', { name: /Which one\?/ });
      await choice.waitFor();
      await axeClean(page, 'sign-in, which account');
      await page.screenshot({ path: screenshotPath('dashboard-sign-in-which-account.png'), fullPage: true });
      await choice.getByLabel(/Developer account/).check();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await dayHeading(page, today).waitFor();
    } finally {
      await close();
    }
  });

  it("shows a developer's businesses on a phone, as a list or a timeline, and refreshes an expired token", async () => {
    const brasserie = await openBrasserie();
    const developer = brasserie.tenant.developer;
    const second = await send(bearer(developer.token), 'POST', '/v1/developer/businesses', {
      name: 'Bistro Nord',
    });

    const { page, close } = await openDashboard(PHONE);
    try {
      const businessHeaders: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/v1/manage/'))
          businessHeaders.push(request.headers()['x-business-id'] ?? '');
      });
      // A deposit still to pay, as the API would show it: the day's first booking is marked.
      await page.route('**/v1/manage/bookings?*', async (route) => {
        const answer = await route.fetch();
        const body = await answer.json();
        body.items[0].deposit = {
          status: 'requires_payment',
          type: 'charge',
          amount_cents: 2000,
          processor_payment_id: null,
        };
        await route.fulfill({ response: answer, json: body });
      });
      await signIn(page, developer.email, developer.password);
      await dayHeading(page, today).waitFor();
      // A phone opens on the list, in order of time.
      const lines = page.locator('.day-list').getByRole('button');
      await lines.first().waitFor();
      assert.deepEqual(
        (await lines.allInnerTexts()).map((text) => text.split('\n')[0]),
        ['12:30–13:30', '19:00–20:00', '20:00–21:00'],
      );
      assert.ok(await lines.nth(2).getByText('T3 + T4').isVisible());
      assert.equal(await page.getByText('confirmed, deposit due').count(), 1);
      await axeClean(page, 'today, phone, list');
      await page.screenshot({ path: screenshotPath('dashboard-today-phone.png') });

      await page.getByRole('button', { name: 'Timeline' }).click();
      await assertPlaced(page, /^2 Dupont ?, Anna Dupont/, 'T1', '19:00', '19:00');
      await axeClean(page, 'today, phone, timeline');
      assert.ok(
        businessHeaders.length > 0 && businessHeaders.every((id) => id === brasserie.tenant.businessId),
      );

      // The access token is refused once: the dashboard refreshes it and asks again.
      await page.unrouteAll();
      let refused = false;
      await page.route('**/v1/manage/bookings?*', async (route) => {
        if (refused) return route.continue();
        refused = true;
        await route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'invalid_token', message: 'expired' } }),
        });
      });
      const refreshed = page.waitForRequest('**/v1/auth/refresh');
      await page.getByLabel('Business').selectOption({ label: 'Bistro Nord' });
      await refreshed;
      await page.getByText('0 bookings, 0 guests').waitFor();
      assert.equal(businessHeaders.at(-1), second.business_id);
      assert.equal(await page.getByRole('alert').textContent(), '');
    } finally {
      await close();
    }
  });
});
