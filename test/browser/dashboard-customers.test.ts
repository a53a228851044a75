// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn } from '../../src/engine/time.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  downloaded,
  launchBrowser,
  screenshotPath,
  signIn,
  tabTo,
  untilInPage,
} from '../browser.ts';
import { createTestApp, type TestContext, uniqueEmail } from '../helpers.ts';

/**
 * The dashboard's Customers screen in a real browser: a host finds guests by typing part of a name
 * (without its accents) or of a phone number (in another format than stored), and opens one's
 * history, by keyboard on a tablet and by touch on a phone.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Berlin';
const PASSWORD = 'four words of mine';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let api: string;
let browser: Browser;

/** A venue whose regulars are Jürgen Müller (a visit, a no-show, one to come) and two others. */
async function openVenue() {
  const { tenant } = await setupBookable(ctx.app, {
    name: 'Gasthaus Linde',
    settings: { timezone: ZONE },
    resources: [{ name: 'T1', capacity_min: 1, capacity_max: 6 }],
    open: '11:00',
    close: '23:00',
  });
  const today = todayIn(ZONE, Date.now());
  const book = async (date: string, guest: Record<string, string>) =>
    (
      await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
        date,
        time: '19:00',
        capacity: 2,
        ...guest,
      })
    ).booking;
  const muller = {
    first_name: 'Jürgen',
    last_name: 'Müller',
    phone: '+49 89 555 0101',
    email: 'jm@linde.example',
  };
  const visit = await book(addDays(today, -14), muller);
  for (const status of ['checked_in', 'completed']) {
    await send(ctx.app, tenant, 'PATCH', `/v1/manage/bookings/${visit.id}`, { status });
  }
  const missed = await book(addDays(today, -7), muller);
  await send(ctx.app, tenant, 'PATCH', `/v1/manage/bookings/${missed.id}`, { status: 'no_show' });
  await book(addDays(today, 5), muller);
  await book(addDays(today, 2), { first_name: 'Hans', last_name: 'Schmidt', phone: '+49 30 123 4567' });
  await book(addDays(today, 3), { first_name: 'Max', last_name: 'Muster', phone: '0171 222 3333' });
  return { tenant, customerId: visit.customer_id as string };
}

before(async () => {
  if (skip) return;
  ctx = await createTestApp();
  api = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/** Signed in, on the Customers screen. */
async function openCustomers(viewport: { width: number; height: number }, email: string, password: string) {
  const context = await browser.newContext({ viewport, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${api}/staff/#/customers`);
  await signIn(page, email, password);
  await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
  return { page, close: () => context.close() };
}

const results = (page: Page) => page.getByRole('list', { name: 'Results' }).getByRole('link');

/** What the search finds once its answer is announced. */
async function search(page: Page, text: string, count: number) {
  await page.getByLabel('Search customers').fill(text);
  await page
    .getByRole('status')
    .getByText(count ? `Customers found: ${count}` : 'No customer found')
    .waitFor();
  return (await results(page).allInnerTexts()).map((line) => line.split('\n')[0]);
}

describe('the Customers screen', { skip }, () => {
  it('finds guests as a host types, by name without accents or by phone in any format, and opens a history', async () => {
    const { tenant, customerId } = await openVenue();
    const email = uniqueEmail('host');
    await send(ctx.app, tenant, 'POST', '/v1/manage/staff', {
      email,
      role: 'staff_member',
      password: PASSWORD,
    });

    const { page, close } = await openCustomers(TABLET, email, PASSWORD);
    try {
      // Everyone before anything is typed.
      await page.getByRole('status').getByText('Customers found: 3').waitFor();
      assert.deepEqual((await results(page).allInnerTexts()).map((line) => line.split('\n')[0]).sort(), [
        'Hans Schmidt',
        'Jürgen Müller',
        'Max Muster',
      ]);
      await axeClean(page, 'customers, tablet');

      assert.deepEqual(await search(page, 'mul', 1), ['Jürgen Müller']);
      assert.deepEqual(await search(page, '030 123', 1), ['Hans Schmidt']);
      assert.deepEqual(await search(page, 'nobody', 0), []);
      // One letter is no search yet (the API takes two): everyone again, no error.
      assert.equal((await search(page, 'm', 3)).length, 3);
      assert.deepEqual(await search(page, 'MULLER', 1), ['Jürgen Müller']);

      // Opened by keyboard: the reader lands on the customer's name.
      await tabTo(page, /^Jürgen Müller/);
      await page.keyboard.press('Enter');
      const detail = page.getByRole('region', { name: 'Jürgen Müller' });
      await detail.waitFor();
      assert.ok(page.url().endsWith(`#/customers/${customerId}`), page.url());
      await untilInPage(page, "document.activeElement?.id === 'customer-title'");
      const shown = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/customers/${customerId}`,
        headers: tenant.headers,
      });
      const { stats, bookings } = shown.json();
      const fact = (term: string) => detail.locator(`dt:text-is("${term}") + dd`).textContent();
      assert.equal(await fact('Visits'), String(stats.completed));
      assert.equal(await fact('No-shows'), String(stats.no_shows));
      assert.equal(await fact('Upcoming'), String(stats.upcoming));
      assert.deepEqual([stats.completed, stats.no_shows, stats.upcoming], [1, 1, 1]);
      const rows = detail.getByRole('table').locator('tbody tr');
      assert.equal(await rows.count(), bookings.length);
      assert.deepEqual(
        (await rows.allInnerTexts()).map((row) => row.split('\t').at(-1)?.trim()),
        ['confirmed', '✕ no-show', '✔ finished'].map((status) =>
          status.replace(/^confirmed$/, '✓ confirmed'),
        ),
      );
      await axeClean(page, 'customer, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-customers-tablet.png') });
    } finally {
      await close();
    }
  });

  it('shows a customer on a phone in place of the list, and only the business’s own', async () => {
    // The first test's venue has its own Jürgen Müller: the search shows this business's alone.
    const { tenant } = await openVenue();
    const { page, close } = await openCustomers(PHONE, tenant.developer.email, tenant.developer.password);
    try {
      await page
        .getByRole('status')
        .getByText(/Customers found/)
        .waitFor();
      assert.deepEqual(await search(page, 'mul', 1), ['Jürgen Müller']);
      await axeClean(page, 'customers, phone');
      await results(page).first().click();
      await page.getByRole('region', { name: 'Jürgen Müller' }).waitFor();
      assert.equal(await page.getByLabel('Search customers').isVisible(), false);
      await axeClean(page, 'customer, phone');
      await page.screenshot({ path: screenshotPath('dashboard-customers-phone.png') });

      await page.getByRole('link', { name: 'Back to the list' }).click();
      await page.getByLabel('Search customers').waitFor();
      assert.equal(await page.getByLabel('Search customers').inputValue(), 'mul');
      // The list shows again in the render that ends the detail; the focus moves after it is drawn.
      await untilInPage(page, 'document.activeElement?.textContent?.startsWith("Jürgen Müller") ?? false');
    } finally {
      await close();
    }
  });

  it('suggests a profile with the same email as the same guest, and merges it after asking', async () => {
    const { tenant, customerId } = await openVenue();
    const duplicate = (
      await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
        date: addDays(todayIn(ZONE, Date.now()), 9),
        time: '12:00',
        capacity: 2,
        first_name: 'J.',
        last_name: 'Mueller',
        phone: '+49 89 555 0199',
        email: 'JM@linde.example',
      })
    ).booking;
    const { page, close } = await openCustomers(TABLET, tenant.developer.email, tenant.developer.password);
    try {
      await page.goto(`${api}/staff/#/customers/${customerId}`);
      const detail = page.getByRole('region', { name: 'Jürgen Müller' });
      const suggested = detail.getByRole('region', { name: 'Possibly the same guest' });
      await suggested.getByText('J. Mueller', { exact: true }).waitFor();
      await suggested.getByText(/same email/).waitFor();
      await suggested.getByRole('button', { name: 'Merge J. Mueller into this guest' }).click();
      await suggested.getByText(/Merge J\. Mueller into this guest\? Their bookings move here/).waitFor();
      await axeClean(page, 'merge question');
      await page.screenshot({ path: screenshotPath('dashboard-guest-duplicates.png'), fullPage: true });
      await suggested.getByRole('button', { name: 'Yes, merge' }).click();
      await page.getByRole('status').getByText('J. Mueller was merged into this guest.').waitFor();
      const moved = await send(ctx.app, tenant, 'GET', `/v1/manage/bookings/${duplicate.id}`);
      assert.equal(moved.customer_id, customerId);
      await detail.getByText('Last bookings (4 in all)').waitFor();
    } finally {
      await close();
    }
  });

  it("keeps a guest's allergies and tags from the profile form, and lets an owner download and erase the guest", async () => {
    const { tenant, customerId } = await openVenue();
    const { page, close } = await openCustomers(TABLET, tenant.developer.email, tenant.developer.password);
    try {
      await page.goto(`${api}/staff/#/customers/${customerId}`);
      const detail = page.getByRole('region', { name: 'Jürgen Müller' });
      await detail.waitFor();
      const form = detail.getByRole('form', { name: 'Guest profile' });
      await form.getByLabel('Allergies').fill('peanuts, shellfish');
      await form.getByLabel('Tags').fill('vip, regular');
      await form.getByLabel('Staff notes').fill('Likes the window table');
      await form.getByRole('button', { name: 'Save profile' }).click();
      await detail.getByText('Allergies: peanuts, shellfish').waitFor();
      assert.deepEqual(
        await detail.getByRole('list', { name: 'Tags' }).getByRole('listitem').allInnerTexts(),
        ['vip', 'regular'],
      );
      const stored = await send(ctx.app, tenant, 'GET', `/v1/manage/customers/${customerId}`);
      assert.equal(stored.allergies, 'peanuts, shellfish');
      assert.deepEqual(stored.tags, ['vip', 'regular']);
      await axeClean(page, 'guest profile, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-guest-profile.png'), fullPage: true });

      const exported = JSON.parse(
        await downloaded(page, () =>
          detail.getByRole('button', { name: "Download the guest's data" }).click(),
        ),
      );
      assert.equal(exported.customer.allergies, 'peanuts, shellfish');
      assert.equal(exported.bookings.length, 3);
      const csv = await downloaded(page, () => page.getByRole('button', { name: 'Download CSV' }).click());
      assert.ok(csv.startsWith('\uFEFFid,first_name,last_name,'), csv.slice(0, 40));
      assert.match(csv, /Jürgen,Müller,.*vip; regular,"peanuts, shellfish"/);

      const erase = detail.getByRole('button', { name: 'Erase the guest' });
      assert.equal(await erase.isDisabled(), true, 'erasing waits for the name typed');
      await detail.getByLabel(/To erase this guest, type their name/).fill('Jürgen Müller');
      await erase.click();
      await page.getByRole('region', { name: 'Erased guest' }).waitFor();
      await axeClean(page, 'erased guest, tablet');
      const erased = await send(ctx.app, tenant, 'GET', `/v1/manage/customers/${customerId}`);
      assert.ok(erased.erased_at);
      assert.equal(erased.last_name, '');
    } finally {
      await close();
    }
  });
});
