// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn } from '../../src/engine/time.ts';
import { Receiver } from '../../src/webhooks/receiver.fixture.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import { axeClean, browserSkipReason, launchBrowser, screenshotPath, signIn } from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, eventually, type Tenant, type TestContext, uniqueEmail } from '../helpers.ts';

/**
 * The settings' closed days, services, table combinations and webhooks in a real browser
 * against the real server: an owner adds and removes each through the forms and every change is
 * read back through the API; a staff member reads the first three and is not offered webhooks.
 * The pictures go to docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const PASSWORD = 'four words of mine';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
const SECTIONS = ['Booking rules', 'Table combinations', 'Services', 'Closed days', 'Webhooks'];

let ctx: TestContext;
let api: string;
let browser: Browser;
let receiver: Receiver;

/** A venue in Paris open every day 11:00–23:00 with two tables, and its owner's and a staff member's accounts. */
async function openVenue() {
  const { tenant } = await setupBookable(ctx.app, {
    name: 'Osteria Luna',
    settings: { timezone: ZONE },
    resources: ['T1', 'T2'].map((name) => ({ name, capacity_min: 2, capacity_max: 4 })),
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
  receiver = await Receiver.start();
  // The local receiver is a private address: a server configured for tests accepts it.
  ctx = await createTestApp({ publicBaseUrl: api, webhookAllowPrivateUrls: true });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
  await receiver.close();
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

async function openSection(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 2, name }).waitFor();
  await page
    .locator('.settings-section [role="status"]', { hasText: 'Loading' })
    .waitFor({ state: 'detached' });
}

const availability = async (tenant: Tenant, date: string) =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${tenant.businessId}?date=${date}&capacity=2`,
    })
  ).json();

describe('the settings screen, more sections', { skip }, () => {
  it('lets an owner close days, add a service, join tables and add a webhook, read back through the API', async () => {
    const { tenant, owner } = await openVenue();
    const { page, close } = await signedIn(TABLET, owner);
    try {
      // Closed days: one day closed with a reason, then reopened.
      const closing = addDays(todayIn(ZONE, Date.now()), 3);
      assert.ok((await availability(tenant, closing)).slots.length > 0);
      await openSection(page, 'Closed days');
      await page.getByText('No closed days.').waitFor();
      await page.getByLabel('First closed day').fill(closing);
      await page.getByLabel('Reason').fill('Staff outing');
      await page.getByRole('button', { name: 'Close days' }).click();
      await page.getByText('Staff outing').waitFor();
      await axeClean(page, 'closed days');
      const closed = await availability(tenant, closing);
      assert.deepEqual([closed.slots.length, closed.reason], [0, 'blackout']);
      const listed = await send(ctx.app, tenant, 'GET', '/v1/manage/blackout-dates');
      assert.deepEqual(
        listed.items.map((b: Record<string, unknown>) => [b.start_date, b.end_date, b.reason]),
        [[closing, closing, 'Staff outing']],
      );
      // Changed in place: one more day, another reason.
      await page.getByRole('button', { name: /^Change / }).click();
      await page.getByRole('heading', { name: 'Change a closed day' }).waitFor();
      assert.equal(await page.getByLabel('First closed day').inputValue(), closing);
      await page.getByLabel('Last closed day').fill(addDays(closing, 1));
      await page.getByLabel('Reason').fill('Staff outing and inventory');
      await axeClean(page, 'a closed day changed');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Staff outing and inventory').waitFor();
      const changed = await send(ctx.app, tenant, 'GET', '/v1/manage/blackout-dates');
      assert.deepEqual(
        changed.items.map((b: Record<string, unknown>) => [b.start_date, b.end_date, b.reason]),
        [[closing, addDays(closing, 1), 'Staff outing and inventory']],
      );
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: /^Reopen / }).click();
      await page.getByText('No closed days.').waitFor();
      assert.ok((await availability(tenant, closing)).slots.length > 0);

      // Services: one added, then changed to inactive.
      await openSection(page, 'Services');
      await page.getByLabel('Name').fill('Tasting menu');
      await page.getByLabel('Duration (minutes)').fill('150');
      await page.getByRole('button', { name: 'Add a service' }).click();
      await page.getByRole('button', { name: 'Change Tasting menu' }).click();
      // The row's own form, open beside the form for a new service.
      await page.getByRole('listitem').getByLabel('Bookable').uncheck();
      await page.getByRole('button', { name: 'Save Tasting menu' }).click();
      await page.getByText('inactive').waitFor();
      await axeClean(page, 'services');
      const services = await send(ctx.app, tenant, 'GET', '/v1/manage/services?include_inactive=true');
      assert.deepEqual(
        services.items.map((s: Record<string, unknown>) => [s.name, s.duration_minutes, s.is_active]),
        [['Tasting menu', 150, false]],
      );

      // Combinations: a refused party range shows its message, then T1 + T2 for 5 to 8.
      await openSection(page, 'Table combinations');
      await page.getByLabel('Name').fill('T1 + T2');
      await page.getByLabel('T1', { exact: true }).check();
      await page.getByLabel('T2', { exact: true }).check();
      await page.getByLabel('Smallest party').fill('9');
      await page.getByRole('button', { name: 'Add a combination' }).click();
      await page.locator('.field-error').first().waitFor();
      await axeClean(page, 'combinations with a refused field');
      await page.getByLabel('Smallest party').fill('5');
      await page.getByRole('button', { name: 'Add a combination' }).click();
      await page.getByText('T1 + T2 · 5–8 guests').waitFor();
      await axeClean(page, 'combinations');
      const tables = await send(ctx.app, tenant, 'GET', '/v1/manage/resources');
      const combinations = await send(ctx.app, tenant, 'GET', '/v1/manage/combinations');
      assert.deepEqual(
        combinations.items.map((c: Record<string, unknown>) => [
          c.name,
          c.resource_ids,
          c.capacity_min,
          c.capacity_max,
        ]),
        [['T1 + T2', tables.items.map((t: { id: string }) => t.id), 5, 8]],
      );
      // Changed in place: seats for 7 at most, and no longer offered.
      await page.getByRole('button', { name: 'Change T1 + T2' }).click();
      await page.getByRole('heading', { name: 'Change T1 + T2' }).waitFor();
      await page.getByLabel('Largest party').fill('7');
      await page.getByLabel('Offered to parties').uncheck();
      await axeClean(page, 'a combination changed');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('T1 + T2 · 5–7 guests').waitFor();
      const [changedCombination] = (await send(ctx.app, tenant, 'GET', '/v1/manage/combinations')).items;
      assert.deepEqual([changedCombination.capacity_max, changedCombination.is_active], [7, false]);

      // Webhooks: an endpoint for two events, its secret shown once, a test sent and listed.
      await openSection(page, 'Webhooks');
      await page.getByLabel('URL (https)').fill(receiver.url);
      await page.getByLabel('All events').uncheck();
      await page.getByLabel('booking.created').check();
      await page.getByLabel('booking.cancelled').check();
      await page.getByRole('button', { name: 'Add an endpoint' }).click();
      const once = page.getByRole('region', {
        name: `The signing secret of ${receiver.url}, shown this once`,
      });
      await once.waitFor();
      const secret = await once.locator('code').textContent();
      assert.match(secret ?? '', /^whsec_/);
      await once.getByRole('button', { name: 'Copy the secret' }).click();
      await once.getByText('Copied.').waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
      await axeClean(page, 'a new webhook');
      await once.getByRole('button', { name: 'I have stored it' }).click();
      const endpoints = await send(ctx.app, tenant, 'GET', '/v1/manage/webhooks');
      assert.deepEqual(
        endpoints.items.map((e: Record<string, unknown>) => [e.url, e.events, e.status]),
        [[receiver.url, ['booking.created', 'booking.cancelled'], 'active']],
      );
      const endpoint = endpoints.items[0].id as string;
      const actions = page.getByRole('group', { name: receiver.url });
      await actions.getByRole('button', { name: 'Send a test' }).click();
      const deliveries = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
      await deliveries.getByText('webhook.test').waitFor();
      await axeClean(page, 'webhook deliveries');

      // A failed delivery is offered again, and sent again it waits for its next attempt.
      await ctx.app.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: 'connection_refused', attempts: 8 })
        .where('endpoint_id', '=', endpoint)
        .execute();
      // Closed and opened again, the list is read afresh.
      await actions.getByRole('button', { name: 'Deliveries' }).click();
      await deliveries.waitFor({ state: 'detached' });
      await actions.getByRole('button', { name: 'Deliveries' }).click();
      await deliveries.getByText('connection_refused').waitFor();
      await deliveries.getByRole('button', { name: 'Send webhook.test again' }).click();
      await deliveries
        .getByRole('button', { name: 'Send webhook.test again' })
        .waitFor({ state: 'detached' });
      const log = await send(ctx.app, tenant, 'GET', `/v1/manage/webhooks/${endpoint}/deliveries`);
      assert.notEqual(log.items[0].status, 'failed');
      await page.screenshot({
        path: screenshotPath('dashboard-settings-webhooks-tablet.png'),
        fullPage: true,
      });

      page.once('dialog', (dialog) => void dialog.accept());
      await actions.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('No webhook endpoints.').waitFor();
      assert.deepEqual((await send(ctx.app, tenant, 'GET', '/v1/manage/webhooks')).items, []);
    } finally {
      await close();
    }
  });

  it('sets up a class and a service of two groups, and shows a class as one block on Today', async () => {
    const { tenant, owner } = await openVenue();
    const { page, close } = await signedIn(TABLET, owner);
    try {
      await openSection(page, 'Services');
      await page.getByLabel('Name').fill('Yoga');
      await page.getByLabel('Duration (minutes)').fill('60');
      await page.getByLabel('Class: places per start').fill('12');
      await page.getByRole('button', { name: 'Add a service' }).click();
      await page.getByText('class of 12 places').waitFor();

      await page.getByLabel('Name', { exact: true }).first().fill('Colour');
      await page.getByRole('button', { name: 'Add a group of resources' }).click();
      await page.getByRole('button', { name: 'Add a group of resources' }).click();
      const groups = page.locator('fieldset.groups fieldset');
      await groups.nth(0).getByLabel('Name').fill('Stylist');
      await groups.nth(0).getByLabel('T1', { exact: true }).check();
      await groups.nth(1).getByLabel('Name').fill('Chair');
      await groups.nth(1).getByLabel('T2', { exact: true }).check();
      await axeClean(page, 'a service of two groups');
      await page.screenshot({ path: screenshotPath('dashboard-service-groups.png'), fullPage: true });
      await page.getByRole('button', { name: 'Add a service' }).click();
      await page.getByText('Stylist + Chair').waitFor();
      const services = await send(ctx.app, tenant, 'GET', '/v1/manage/services');
      const byName = Object.fromEntries(
        services.items.map((service: { name: string }) => [service.name, service]),
      );
      assert.equal(byName.Yoga.seats, 12);
      assert.deepEqual(
        byName.Colour.requirements.map((group: { name: string; resource_ids: string[] }) => [
          group.name,
          group.resource_ids.length,
        ]),
        [
          ['Stylist', 1],
          ['Chair', 1],
        ],
      );

      // Two bookings of the class at 20:00 today: one block on its room, with both parties' guests.
      const today = todayIn(ZONE, Date.now());
      for (const first_name of ['Ada', 'Grace']) {
        await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
          date: today,
          time: '20:00',
          capacity: 2,
          service_id: byName.Yoga.id,
          first_name,
          last_name: 'Guest',
          phone: `+33 6 12 34 56 ${first_name === 'Ada' ? '01' : '02'}`,
        });
      }
      await page.getByRole('link', { name: 'Today', exact: true }).first().click();
      const block = page.locator('.bk-class');
      await block.waitFor();
      assert.match((await block.textContent()) ?? '', /4\s*class · 2 bookings, 4 of 12 places/);
      await axeClean(page, 'a class on Today');
      await page.screenshot({ path: screenshotPath('dashboard-class.png'), fullPage: true });
      await block.click();
      await page.getByLabel('Keep on this table (never moved to seat another party)').check();
      // The block opens the class's first booking; its table is kept from re-seating at once.
      await eventually(async () => {
        const listed = await send(ctx.app, tenant, 'GET', `/v1/manage/bookings?booking_date=${today}`);
        return listed.items.filter((booking: { table_locked: boolean }) => booking.table_locked).length === 1;
      }, 'one booking of the class locked to its table');
    } finally {
      await close();
    }
  });

  it("sets the booking rules, the guests' cut-offs among them, with the API's message beside a refused one", async () => {
    const { tenant, owner } = await openVenue();
    const { page, close } = await signedIn(TABLET, owner);
    try {
      await openSection(page, 'Booking rules');
      const form = page.locator('.settings-section form');
      assert.equal(await form.getByLabel('Time zone').inputValue(), ZONE);
      await form.getByLabel('Guests may change time or party until (hours before)').fill('6');
      await form.getByLabel('Clock').selectOption({ label: '24-hour (19:30)' });
      await form.getByLabel('Minimum notice (hours)').fill('3');
      await form.getByLabel('Largest party online').fill('');
      await form.getByLabel('Bookable up to (days ahead)').fill('999');
      await form.getByRole('button', { name: 'Save' }).click();
      const refused = form.locator('#f-booking_window_days-error');
      await refused.waitFor();
      assert.match((await refused.textContent()) ?? '', /365/);
      await axeClean(page, 'booking rules, refused');
      await form.getByLabel('Bookable up to (days ahead)').fill('60');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByRole('status').getByText('Saved').waitFor();
      const settings = await send(ctx.app, tenant, 'GET', '/v1/manage/settings');
      assert.equal(settings.guest_change_cutoff_hours, 6);
      assert.equal(settings.min_notice_hours, 3);
      assert.equal(settings.booking_window_days, 60);
      assert.equal(settings.max_online_party_size, null);
      assert.equal(settings.time_format, '24h');
      await page.screenshot({ path: screenshotPath('dashboard-settings-rules-tablet.png'), fullPage: true });
    } finally {
      await close();
    }
  });

  it('fits a phone, and shows a staff member these sections read-only, without webhooks', async () => {
    const { tenant, owner, staff } = await openVenue();
    await send(ctx.app, tenant, 'POST', '/v1/manage/blackout-dates', {
      start_date: '2030-12-24',
      end_date: '2030-12-26',
      reason: 'Christmas',
    });
    await send(ctx.app, tenant, 'POST', '/v1/manage/services', { name: 'Dinner', duration_minutes: 90 });
    await send(ctx.app, tenant, 'POST', '/v1/manage/webhooks', { url: receiver.url, events: ['*'] });
    const phone = await signedIn(PHONE, owner);
    try {
      for (const name of SECTIONS) {
        await openSection(phone.page, name);
        await axeClean(phone.page, `${name}, phone`);
        assert.ok(
          await phone.page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth'),
          `${name} fits the phone`,
        );
        if (name === 'Webhooks') {
          await phone.page.screenshot({
            path: screenshotPath('dashboard-settings-webhooks-phone.png'),
            fullPage: true,
          });
        }
      }
    } finally {
      await phone.close();
    }

    const { page, close } = await signedIn(TABLET, staff);
    try {
      const offered = await page
        .getByRole('navigation', { name: 'Settings sections' })
        .getByRole('link')
        .allInnerTexts();
      assert.ok(!offered.includes('Webhooks'));
      await openSection(page, 'Closed days');
      await page.getByText('Christmas').waitFor();
      await openSection(page, 'Services');
      await page.getByText('Dinner').waitFor();
      for (const name of ['Closed days', 'Services', 'Table combinations']) {
        await openSection(page, name);
        assert.equal(await page.locator('.settings-section button').count(), 0, `${name}: no actions`);
        await axeClean(page, `staff member, ${name}`);
      }
    } finally {
      await close();
    }
  });
});
