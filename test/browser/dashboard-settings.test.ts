// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn } from '../../src/engine/time.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import { axeClean, browserSkipReason, launchBrowser, screenshotPath, signIn } from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, type Tenant, type TestContext, uniqueEmail } from '../helpers.ts';

/**
 * The settings screen in a real browser against the real server: an owner changes the venue's
 * hours, periods, tables, profile, messages, keys and staff through the forms and each change is
 * read back through the API; a refused field shows its message beside it; a staff member only
 * reads. The pictures go to docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const PASSWORD = 'four words of mine';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
const SECTIONS = [
  'Profile',
  'Opening hours',
  'Booking rules',
  'Service periods',
  'Tables',
  'Table combinations',
  'Services',
  'Closed days',
  'Messages',
  'Deposits',
  'API keys',
  'Staff',
  'Webhooks',
  'Plan',
];

let ctx: TestContext;
let api: string;
let browser: Browser;

/** A venue in Paris open every day 11:00–23:00 with one table, and its owner's and a staff member's accounts. */
async function openVenue() {
  const { tenant } = await setupBookable(ctx.app, {
    name: 'Trattoria Sole',
    settings: { timezone: ZONE },
    resources: [{ name: 'T1', section: 'Sala', capacity_min: 2, capacity_max: 4 }],
    open: '11:00',
    close: '23:00',
  });
  const owner = uniqueEmail('owner');
  const staff = uniqueEmail('staff');
  await send(ctx.app, tenant, 'POST', '/v1/manage/staff', {
    email: owner,
    role: 'business_owner',
    password: PASSWORD,
  });
  await send(ctx.app, tenant, 'POST', '/v1/manage/staff', {
    email: staff,
    role: 'staff_member',
    password: PASSWORD,
  });
  return { tenant, owner, staff };
}

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

async function signedIn(viewport: { width: number; height: number }, email: string) {
  const context = await browser.newContext({ viewport, locale: 'en-GB' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${api}/staff/`);
  await signIn(page, email, PASSWORD);
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  return { page, close: () => context.close() };
}

/** Opens a section from the settings' own navigation and waits for its form. */
async function openSection(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 2, name }).waitFor();
  await page
    .locator('.settings-section [role="status"]', { hasText: 'Loading' })
    .waitFor({ state: 'detached' });
}

async function save(page: Page, name = 'Save') {
  await page.getByRole('button', { name, exact: true }).click();
}

const availability = async (tenant: Tenant, date: string) =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${tenant.businessId}?date=${date}&capacity=2`,
    })
  ).json();

describe('the settings screen', { skip }, () => {
  it("lets an owner change the venue's settings, each change read back through the API", async () => {
    const { tenant, owner } = await openVenue();
    const { page, close } = await signedIn(TABLET, owner);
    try {
      // Profile: a refused field shows the API's message beside it; a good one reaches the public page.
      await page.getByRole('heading', { level: 2, name: 'Profile' }).waitFor();
      await page.getByLabel('Description').fill('Wood-fired pizza by the harbour.');
      await page.getByLabel('Website').fill('http://sole.example');
      await save(page);
      const website = page.getByLabel('Website');
      await page.locator('#f-website-error').waitFor();
      assert.equal(await website.getAttribute('aria-invalid'), 'true');
      assert.match((await website.getAttribute('aria-describedby')) ?? '', /f-website-error/);
      assert.match((await page.getByRole('alert').textContent()) ?? '', /not accepted/);
      await axeClean(page, 'profile with a refused field');
      await website.fill('https://sole.example');
      await page.getByLabel('Phone').fill('+33 4 91 00 00 00');
      await save(page);
      await page.getByRole('status').getByText('Saved.').waitFor();
      assert.equal(await page.locator('#f-website-error').count(), 0);
      const profile = (
        await ctx.app.inject({ method: 'GET', url: `/v1/public/business/${tenant.slug}` })
      ).json();
      assert.equal(profile.description, 'Wood-fired pizza by the harbour.');
      assert.equal(profile.website, 'https://sole.example');
      assert.equal(profile.phone, '+33 4 91 00 00 00');

      // Hours: the day after tomorrow's weekday closed, and no slot is offered on it any more.
      const closing = addDays(todayIn(ZONE, Date.now()), 2);
      assert.ok((await availability(tenant, closing)).slots.length > 0);
      await openSection(page, 'Opening hours');
      await axeClean(page, 'hours');
      const weekday = new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: 'UTC' }).format(
        new Date(`${closing}T12:00:00Z`),
      );
      await page.getByLabel(`${weekday}: Open`).uncheck();
      await save(page);
      await page.getByRole('status').getByText('Saved.').waitFor();
      const closed = await availability(tenant, closing);
      assert.deepEqual([closed.slots.length, closed.reason], [0, 'closed']);

      // Service periods: a new one, keyboard-focused when added.
      await openSection(page, 'Service periods');
      await page.getByRole('button', { name: 'Add a period' }).click();
      await page.getByLabel('Name').fill('Pranzo');
      await page.getByLabel('From').fill('12:00');
      await page.getByLabel('Until').fill('14:30');
      await page.getByLabel('Minutes between starts').fill('15');
      // A period lies inside its days' opening hours: not on the day just closed.
      await page.getByLabel(weekday, { exact: true }).uncheck();
      await axeClean(page, 'periods');
      await save(page, 'Save the periods');
      await page.getByRole('status').getByText('Saved.').waitFor();
      const periods = await send(ctx.app, tenant, 'GET', '/v1/manage/service-periods');
      assert.deepEqual(
        periods.map((p: Record<string, unknown>) => [
          p.name,
          p.start_time,
          p.end_time,
          p.slot_interval_minutes,
        ]),
        [['Pranzo', '12:00', '14:30', 15]],
      );

      // Tables: one more in a new section.
      await openSection(page, 'Tables');
      await page.getByLabel('Name').fill('T9');
      await page.getByLabel('Section', { exact: true }).fill('Terrazza');
      await page.getByLabel('Largest party').fill('6');
      await save(page, 'Add a table');
      await page.getByRole('heading', { level: 3, name: 'Terrazza' }).waitFor();
      await axeClean(page, 'tables');
      const tables = await send(ctx.app, tenant, 'GET', '/v1/manage/resources');
      assert.deepEqual(
        tables.items.map((r: Record<string, unknown>) => [r.name, r.section, r.capacity_max]),
        [
          ['T1', 'Sala', 4],
          ['T9', 'Terrazza', 6],
        ],
      );

      // API keys: a publishable key shown once with a copy button, then revoked.
      await openSection(page, 'API keys');
      await page.getByLabel('Name').fill('Shop widget');
      await page.getByLabel(/^Allowed origins/).fill('https://shop.example');
      await save(page, 'Create the key');
      const once = page.getByRole('region', { name: 'The key Shop widget, shown this once' });
      await once.waitFor();
      const shown = await once.locator('code').textContent();
      assert.match(shown ?? '', /^svc_pk_/);
      await once.getByRole('button', { name: 'Copy the key' }).click();
      await once.getByText('Copied.').waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), shown);
      await axeClean(page, 'a new key');
      await once.getByRole('button', { name: 'I have stored it' }).click();
      assert.equal(await once.count(), 0);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Revoke Shop widget' }).click();
      await page.getByText('revoked').waitFor();
      const keys = await send(ctx.app, tenant, 'GET', '/v1/manage/api-keys');
      const made = keys.items.find((k: { name: string }) => k.name === 'Shop widget');
      assert.deepEqual(
        [made.type, made.allowed_origins, made.is_active],
        ['publishable', ['https://shop.example'], false],
      );

      // Staff: an invitation, in the outbox.
      await openSection(page, 'Staff');
      const invited = uniqueEmail('waiter');
      await page.getByLabel('Email').fill(invited);
      await save(page, 'Send the invitation');
      await page.getByText(`Invitation sent to ${invited}.`).waitFor();
      await page.getByRole('button', { name: `Send the invitation to ${invited} again` }).waitFor();
      await axeClean(page, 'staff');
      const message = await ctx.app.db
        .selectFrom('message_outbox')
        .select('body_text')
        .where('to_address', '=', invited)
        .executeTakeFirstOrThrow();
      assert.match(message.body_text ?? '', /\/staff\/accept\?token=/);

      for (const name of ['Deposits', 'Plan']) {
        await openSection(page, name);
        await axeClean(page, name);
      }

      // Messages last: the dashboard follows the venue's language.
      await openSection(page, 'Messages');
      await axeClean(page, 'messages');
      await page.getByLabel('Language of messages').selectOption('de');
      await page.getByLabel('Reminder, hours before').fill('3');
      await save(page);
      await page.getByRole('heading', { level: 1, name: 'Einstellungen' }).waitFor();
      const settings = await send(ctx.app, tenant, 'GET', '/v1/manage/settings');
      assert.deepEqual([settings.notification_language, settings.reminder_hours_before], ['de', 3]);
      await page.getByLabel('Sprache der Nachrichten').selectOption('en');
      await save(page, 'Speichern');
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await openSection(page, 'Opening hours');
      await page.screenshot({
        path: screenshotPath('dashboard-settings-tablet.png'),
        fullPage: true,
      });
    } finally {
      await close();
    }
  });

  it('fits a phone, and shows a staff member the settings read-only, without keys and staff', async () => {
    const { owner, staff } = await openVenue();
    const phone = await signedIn(PHONE, owner);
    try {
      for (const name of SECTIONS) {
        await openSection(phone.page, name);
        await axeClean(phone.page, `${name}, phone`);
        // Nothing wider than the phone: the page never scrolls sideways.
        assert.ok(
          await phone.page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth'),
          `${name} fits the phone`,
        );
        if (name === 'Opening hours') {
          await phone.page.screenshot({ path: screenshotPath('dashboard-settings-phone.png') });
        }
      }
    } finally {
      await phone.close();
    }

    const { page, close } = await signedIn(TABLET, staff);
    try {
      await page.getByText('only an owner can change them').waitFor();
      const offered = await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link')
        .allInnerTexts();
      assert.deepEqual(
        offered,
        SECTIONS.filter((name) => !['API keys', 'Staff', 'Webhooks'].includes(name)),
      );
      assert.ok(await page.getByLabel('Description').isDisabled());
      assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
      await page.goto(`${api}/staff/#/settings/keys`);
      await page.getByRole('heading', { level: 2, name: 'Profile' }).waitFor();
      await axeClean(page, 'staff member, profile');
    } finally {
      await close();
    }
  });
});
