// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addDays, todayIn } from '../../src/engine/time.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import { axeClean, browserSkipReason, LIVE_WITHIN_MS, launchBrowser, signIn } from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, eventuallyRead, type Tenant, type TestContext } from '../helpers.ts';

/**
 * An evening at the host stand, across the two faces of a venue: a guest books on the hosted page
 * while the host watches the Today screen, which shows the booking by itself; the host then works
 * it (checks the party in, moves it by dragging) and books a waiting guest from the waitlist, on
 * a tablet and on a phone. Each part in depth is its own file (dashboard-panel, -walkin).
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };

let ctx: TestContext;
let api: string;
let browser: Browser;
let day: string;

/** Two tables in Paris, open every day 11:00-23:00, and a guest waiting for tomorrow. */
async function openVenue(name: string): Promise<Tenant> {
  const { tenant } = await setupBookable(ctx.app, {
    name,
    settings: { timezone: ZONE, min_notice_hours: 0, max_capacity: 4 },
    resources: ['T1', 'T2'].map((table) => ({
      name: table,
      section: 'Salle',
      capacity_min: 1,
      capacity_max: 4,
    })),
    open: '11:00',
    close: '23:00',
  });
  const waiting = await ctx.app.inject({
    method: 'POST',
    url: `/v1/waitlist/${tenant.businessId}`,
    payload: {
      customer: { first_name: 'Wanda', last_name: 'Waiting', phone: '+33 6 11 22 33 44' },
      preferred_date: day,
      capacity: 2,
    },
  });
  assert.equal(waiting.statusCode, 201, waiting.body);
  return tenant;
}

/** The venue's developer signed in on the Today screen of `day`, live. */
async function hostStand(tenant: Tenant, viewport: typeof TABLET) {
  const context = await browser.newContext({ viewport, locale: 'en-GB' });
  const page = await context.newPage();
  await page.goto(`${api}/staff/#/today/${day}`);
  await signIn(page, tenant.developer.email, tenant.developer.password);
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  return { page, close: () => context.close() };
}

/** A guest books `day` at its first free time on the venue's hosted page. */
async function guestBooksOnline(tenant: Tenant, last: string) {
  const context = await browser.newContext({ viewport: PHONE, locale: 'en-GB' });
  const page = await context.newPage();
  try {
    await page.goto(`${api}/book/${tenant.slug}`);
    const widget = page.locator('slotwise-booking');
    await widget.getByRole('button', { name: 'Continue' }).click();
    const date = widget.locator(`button[data-date="${day}"]`);
    await widget.locator('.cal button[data-act=day]').first().waitFor();
    if ((await date.count()) === 0) await widget.getByRole('button', { name: 'Next month' }).click();
    await date.click();
    await widget.locator('[data-act=slot]').first().click();
    await widget.getByRole('button', { name: 'Continue' }).click();
    await widget.getByLabel('First name').fill('Olive');
    await widget.getByLabel('Last name').fill(last);
    await widget.getByLabel('Email').fill(`${last.toLowerCase()}@example.com`);
    await widget.getByLabel('Phone').fill('+33 1 98 76 54 32');
    await widget.getByRole('button', { name: 'Book' }).click();
    await widget.getByRole('heading', { name: 'Your booking is confirmed' }).waitFor();
  } finally {
    await context.close();
  }
}

async function bookingOf(tenant: Tenant, last: string) {
  const { items } = await send(ctx.app, tenant, 'GET', `/v1/manage/bookings?booking_date=${day}`);
  return (
    items as {
      id: string;
      status: string;
      start_time: string;
      resource_id: string;
      guest: { last_name?: string };
      customer?: { last_name?: string };
    }[]
  ).find((booking) => (booking.guest?.last_name ?? booking.customer?.last_name) === last);
}

const until = <T>(read: () => Promise<T>, wanted: (value: T) => boolean, what: string): Promise<T> =>
  eventuallyRead(read, wanted, what, LIVE_WITHIN_MS);

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
  day = addDays(todayIn(ZONE, Date.now()), 1);
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

describe('an evening at the host stand', { skip }, () => {
  it('shows a booking made on the hosted page by itself, then checks it in, moves it by dragging and books the waitlist, on a tablet', async () => {
    const tenant = await openVenue('Chez Soir');
    const { page, close } = await hostStand(tenant, TABLET);
    try {
      await guestBooksOnline(tenant, 'Online');
      const made = await bookingOf(tenant, 'Online');
      assert.ok(made, 'the hosted page made the booking');
      // No reload: the live stream brings it.
      const block = page.getByRole('button', { name: /Olive Online/ }).first();
      await block.waitFor({ timeout: LIVE_WITHIN_MS });
      await axeClean(page, 'today with the online booking');

      await block.click();
      const panel = page.getByRole('complementary', { name: /^Booking: / });
      await panel.getByRole('button', { name: 'Check in' }).click();
      // Tomorrow's booking: the early check-in is confirmed.
      await panel.getByRole('button', { name: 'Yes, check in' }).click();
      await until(
        () => bookingOf(tenant, 'Online'),
        (b) => b?.status === 'checked_in',
        'checked in',
      );

      // Dragged from its table to the other one, at the same time.
      const { items: tables } = await send(ctx.app, tenant, 'GET', '/v1/manage/resources');
      const other = (tables as { id: string }[]).find((table) => table.id !== made.resource_id)!.id;
      const dragged = page
        .locator(`li[data-resource-id="${made.resource_id}"]`)
        .getByRole('button', { name: /Olive Online/ });
      // The panel's actions scrolled the page: the grid back in view, as a host would scroll it.
      await dragged.scrollIntoViewIfNeeded();
      const from = await dragged.boundingBox();
      const row = await page.locator(`li[data-resource-id="${other}"] .tl-track`).boundingBox();
      assert.ok(from && row);
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + from.width / 2, row.y + row.height / 2, { steps: 8 });
      await page.mouse.up();
      const moved = await until(
        () => bookingOf(tenant, 'Online'),
        (b) => b?.resource_id === other,
        'moved',
      );
      assert.equal(moved!.start_time, made.start_time);

      // The waiting guest gets the other table from the waitlist.
      await page.goto(`${api}/staff/#/waitlist/${day}`);
      await page.getByRole('button', { name: 'Book Wanda Waiting' }).click();
      const dialog = page.getByRole('dialog', { name: 'Book Wanda Waiting' });
      await dialog.getByRole('radio').first().check();
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      await until(
        () => bookingOf(tenant, 'Waiting'),
        (b) => b?.status === 'confirmed',
        'booked from the waitlist',
      );
      await axeClean(page, 'after the waitlist booking');
    } finally {
      await close();
    }
  });

  it('shows the hosted page booking by itself on a phone too', async () => {
    const tenant = await openVenue('Chez Nuit');
    const { page, close } = await hostStand(tenant, PHONE);
    try {
      await guestBooksOnline(tenant, 'Mobile');
      await page
        .locator('.day-list')
        .getByRole('button', { name: /Olive Mobile/ })
        .waitFor({ timeout: LIVE_WITHIN_MS });
      await axeClean(page, 'today on a phone');
    } finally {
      await close();
    }
  });
});
