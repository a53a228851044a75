// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LONG_PRESS_MS } from '../../dashboard/today/touch.ts';
import { addDays, todayIn, wallTimeToInstant } from '../../src/engine/time.ts';
import { SmsSender, smsProvider } from '../../src/messages/sms.jobs.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  downloaded,
  LIVE_WITHIN_MS,
  launchBrowser,
  screenshotPath,
  signIn,
  untilInPage,
} from '../browser.ts';
import { freePort } from '../free-port.ts';
import {
  createPublishableKey,
  createTenant,
  createTestApp,
  eventuallyRead,
  type Tenant,
  type TestContext,
} from '../helpers.ts';

/**
 * The booking panel of the Today screen, driven as a host would: status moves, party, notes, a
 * move by the picker and by dragging, the no-show waiting for the start, a cancellation confirmed,
 * messages and history, and a booking made elsewhere appearing by itself. Tomorrow evening in
 * Paris, always ahead: the clocks are real (a stream ends when its token expires by the server's
 * clock) until the no-show, for which both are set past the booking's start.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
/** A finger held still past the long press that picks a booking up. */
const HELD_STILL_MS = LONG_PRESS_MS + 250;

let ctx: TestContext;
let api: string;
let browser: Browser;
let day: string;

const at = (time: string) => wallTimeToInstant(day, time, ZONE)!;

interface Venue {
  tenant: Tenant;
  tables: Record<string, string>;
  bookings: Record<string, string>;
}

/** Three tables of 2 to 4 in Paris on a 24-hour clock, open 11:00-23:00, and tonight's staff bookings. */
async function openVenue(): Promise<Venue> {
  const { tenant, resources: tables } = await setupBookable(ctx.app, {
    name: 'Chez Panel',
    // Two SMS a day: the first two bookings' confirmations are texted, the others withheld.
    settings: { timezone: ZONE, time_format: '24h', sms_enabled: true, sms_per_day: 2 },
    resources: ['T1', 'T2', 'T3'].map((name) => ({
      name,
      section: 'Salle',
      capacity_min: 1,
      capacity_max: 4,
    })),
    open: '11:00',
    close: '23:00',
  });
  const bookings: Record<string, string> = {};
  const book = async (last: string, time: string, table: string) => {
    const created = await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
      date: day,
      time,
      capacity: 2,
      first_name: 'Guest',
      last_name: last,
      phone: '+33 1 23 45 67 89',
      email: `${last.toLowerCase()}@example.com`,
      resource_id: tables[table],
    });
    bookings[last] = created.id ?? created.booking?.id;
  };
  await book('Marc', '18:30', 'T3');
  await book('Anna', '19:00', 'T1');
  await book('Paul', '20:00', 'T2');
  await book('Lea', '21:00', 'T1');
  await new SmsSender(
    ctx.app.db,
    ctx.app.clock,
    ctx.app.log,
    smsProvider(undefined, ctx.app.log),
    ctx.config,
  ).run();
  return { tenant, tables, bookings };
}

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

/** The developer signed in on the Today screen, on the venue's day. */
async function openToday(venue: Venue, viewport: typeof TABLET) {
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'America/New_York' });
  const page = await context.newPage();
  await page.goto(`${api}/staff/#/today/${day}`);
  const { developer } = venue.tenant;
  await signIn(page, developer.email, developer.password);
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  await page
    .getByRole('button', { name: /Guest Anna/ })
    .first()
    .waitFor();
  return { page, close: () => context.close() };
}

const bookingOf = (venue: Venue, last: string) =>
  send(ctx.app, venue.tenant, 'GET', `/v1/manage/bookings/${venue.bookings[last]}`);

/** Waits until the API says the booking has `wanted` (the dashboard's change went through). */
async function untilBooking(
  venue: Venue,
  last: string,
  wanted: (booking: Record<string, unknown>) => boolean,
) {
  return eventuallyRead(
    () => bookingOf(venue, last),
    wanted,
    `${last} reaching the wanted state`,
    LIVE_WITHIN_MS,
  );
}

const block = (page: Page, table: string, last: string) =>
  page.locator(`li[data-resource="${table}"]`).getByRole('button', { name: new RegExp(`Guest ${last},`) });

describe('the booking panel', { skip }, () => {
  it('checks in, completes, changes party and notes, moves by picker and by drag, cancels, and shows live changes', async () => {
    const venue = await openVenue();
    const { page, close } = await openToday(venue, TABLET);
    let restoreClock = () => {};
    try {
      const panel = page.getByRole('complementary', { name: /^Booking: / });

      // A booking made through the public API shows up without a reload.
      const { key } = await createPublishableKey(ctx.app, venue.tenant, [api]);
      const made = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: { authorization: `Bearer ${key}`, origin: api },
        payload: {
          business_id: venue.tenant.businessId,
          booking_date: day,
          start_time: '22:00',
          capacity: 2,
          first_name: 'Online',
          last_name: 'Guest',
          email: 'online@example.com',
          phone: '+33 6 00 00 00 01',
        },
      });
      assert.equal(made.statusCode, 201, made.body);
      await page
        .getByRole('button', { name: /^2 Guest ?, Online Guest, 22:00/ })
        .waitFor({ timeout: LIVE_WITHIN_MS });

      // Check in, then complete.
      await block(page, 'T1', 'Anna').click();
      await panel.getByRole('heading', { name: 'Booking: Guest Anna' }).waitFor();
      // Tomorrow's booking: checking it in now is asked about first.
      await panel.getByRole('button', { name: 'Check in' }).click();
      await panel
        .getByText(/This booking starts at 19:00, in \d+ minutes\. Check the guests in now\?/)
        .waitFor();
      await axeClean(page, 'early check-in asked');
      await panel.getByRole('button', { name: 'Not yet' }).click();
      assert.equal((await bookingOf(venue, 'Anna')).status, 'confirmed');
      await panel.getByRole('button', { name: 'Check in' }).click();
      await panel.getByRole('button', { name: 'Yes, check in' }).click();
      await untilBooking(venue, 'Anna', (b) => b.status === 'checked_in');
      await panel.getByRole('button', { name: 'Complete' }).click();
      await untilBooking(venue, 'Anna', (b) => b.status === 'completed');
      await panel.locator('dl').getByText('finished').waitFor();
      assert.equal(await panel.getByRole('button', { name: 'Check in' }).count(), 0);

      // Party, notes, then the picker: another table and time, by keyboard-reachable fields.
      await block(page, 'T2', 'Paul').click();
      await panel.getByRole('heading', { name: 'Booking: Guest Paul' }).waitFor();
      await panel.getByLabel('Party size').fill('3');
      await panel.getByRole('button', { name: 'Save', exact: true }).click();
      await untilBooking(venue, 'Paul', (b) => b.capacity === 3);
      await panel.getByLabel('Staff notes on this booking').fill('Window seat, birthday');
      await panel.getByRole('button', { name: 'Save notes' }).click();
      await untilBooking(venue, 'Paul', (b) => b.staff_notes === 'Window seat, birthday');
      await panel.getByLabel('Table', { exact: true }).selectOption({ label: 'T3' });
      await panel.getByLabel('Time', { exact: true }).fill('20:30');
      await panel.getByRole('button', { name: 'Move', exact: true }).click();
      await untilBooking(venue, 'Paul', (b) => b.resource_id === venue.tables.T3 && b.start_time === '20:30');
      await block(page, 'T3', 'Paul').waitFor();

      // Its messages and its history.
      const messages = panel.getByRole('region', { name: 'Messages' });
      await messages
        .getByText(/Confirmation, email to p\*\*\*@e\*\*\*\.com/)
        .first()
        .waitFor();
      const sms = messages.getByRole('listitem').filter({ hasText: /Confirmation, SMS to \*\*\*789/ });
      await sms.getByText('withheld', { exact: true }).waitFor();
      await sms.getByText('(daily SMS limit reached)').waitFor();
      const history = panel.getByRole('region', { name: 'History' });
      for (const action of ['Booked by staff', 'Party changed', 'Notes saved', 'Moved to another time']) {
        await history.getByText(action).first().waitFor();
      }
      await axeClean(page, 'panel, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-panel-tablet.png'), fullPage: true });

      // Drag Léa's block from T1 to T2, and a drag the API refuses (onto Paul's table and time) going back.
      // The panel's forms above scrolled the page: the timeline comes back into view first.
      await block(page, 'T1', 'Lea').scrollIntoViewIfNeeded();
      const lea = await block(page, 'T1', 'Lea').boundingBox();
      const t2 = await page.locator('li[data-resource="T2"] .tl-track').boundingBox();
      assert.ok(lea && t2);
      await page.mouse.move(lea.x + lea.width / 2, lea.y + lea.height / 2);
      await page.mouse.down();
      await page.mouse.move(lea.x + lea.width / 2, t2.y + t2.height / 2, { steps: 8 });
      await page.mouse.up();
      await untilBooking(venue, 'Lea', (b) => b.resource_id === venue.tables.T2 && b.start_time === '21:00');
      await block(page, 'T2', 'Lea').waitFor();

      // Where the block sits within its row: the alert that says why a drop was refused may move the rows.
      const inRow = async () => {
        const box = await block(page, 'T2', 'Lea').boundingBox();
        const row = await page.locator('li[data-resource="T2"] .tl-track').boundingBox();
        assert.ok(box && row);
        return { x: box.x - row.x, y: box.y - row.y };
      };
      const placed = await inRow();
      const moved = await block(page, 'T2', 'Lea').boundingBox();
      const t3 = await page.locator('li[data-resource="T3"] .tl-track').boundingBox();
      assert.ok(moved && t3);
      // 30 minutes to the left, onto T3: Paul holds it from 20:30.
      const halfHour = (t3.width / ((await page.locator('.tl-hour').count()) * 60)) * 30;
      await page.mouse.move(moved.x + moved.width / 2, moved.y + moved.height / 2);
      await page.mouse.down();
      await page.mouse.move(moved.x + moved.width / 2 - halfHour, t3.y + t3.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.getByRole('alert').getByText('No table is free for this party at that time.').waitFor();
      await block(page, 'T2', 'Lea').waitFor();
      assert.equal((await bookingOf(venue, 'Lea')).resource_id, venue.tables.T2);
      const back = await inRow();
      assert.ok(
        Math.abs(back.x - placed.x) < 2 && Math.abs(back.y - placed.y) < 2,
        `the block went back: ${JSON.stringify({ placed, back })}`,
      );
      await page.getByRole('button', { name: 'Dismiss' }).click();

      // Cancel, with a confirmation step.
      await block(page, 'T2', 'Lea').click();
      await panel.getByRole('button', { name: 'Cancel booking…' }).click();
      assert.equal(await (await bookingOf(venue, 'Lea')).status, 'confirmed');
      await panel.getByRole('button', { name: 'Keep it' }).click();
      await panel.getByRole('button', { name: 'Cancel booking…' }).click();
      await axeClean(page, 'cancel confirmation');
      await panel.getByRole('button', { name: 'Yes, cancel it' }).click();
      await untilBooking(venue, 'Lea', (b) => b.status === 'cancelled');
      await panel.waitFor({ state: 'detached' });

      // The no-show waits for the start: disabled now with the reason, possible at 18:45.
      await block(page, 'T3', 'Marc').click();
      const noShow = panel.getByRole('button', { name: 'No-show' });
      assert.ok(await noShow.isDisabled());
      assert.ok(
        await panel.getByText('A no-show can be marked from 18:30, when the booking starts.').isVisible(),
      );
      const clock = ctx.app.clock.now;
      ctx.app.clock.now = () => at('18:45');
      restoreClock = () => {
        ctx.app.clock.now = clock;
      };
      await page.clock.setFixedTime(at('18:45'));
      await page.reload();
      await block(page, 'T3', 'Marc').click();
      await noShow.click();
      await untilBooking(venue, 'Marc', (b) => b.status === 'no_show');
    } finally {
      restoreClock();
      await close();
    }
  });

  it("shows a guest's allergy and tags on Today, and a host changes the profile from the panel", async () => {
    const venue = await openVenue();
    const { customer_id: customerId } = await bookingOf(venue, 'Anna');
    await send(ctx.app, venue.tenant, 'PATCH', `/v1/manage/customers/${customerId}`, {
      allergies: 'shellfish',
      tags: ['vip'],
    });
    const { page, close } = await openToday(venue, TABLET);
    try {
      // The block: a warning sign the legend names, the tag as text, both in its accessible name.
      const anna = page.locator('li[data-resource="T1"]').getByRole('button', {
        name: /^2 Anna ?vip ?, Guest Anna, 19:00–20:00, confirmed, Allergies: shellfish$/,
      });
      assert.ok(await anna.locator('.bk-allergy').isVisible());
      assert.equal(await anna.locator('.bk-tags').textContent(), 'vip');
      await page.getByRole('list', { name: 'Status' }).getByText('Allergies').waitFor();

      await anna.click();
      const panel = page.getByRole('complementary', { name: /^Booking: / });
      const profile = panel.getByRole('region', { name: 'Guest profile' });
      await profile.getByText('shellfish').waitFor();
      await profile.getByText("Change the guest's profile").click();
      await profile.getByRole('textbox', { name: 'Tags' }).fill('vip, regular');
      await profile.getByLabel('Staff notes', { exact: true }).fill('Prefers the terrace');
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await eventuallyRead(
        () => send(ctx.app, venue.tenant, 'GET', `/v1/manage/customers/${customerId}`),
        (customer) =>
          customer.tags.join() === 'vip,regular' && customer.staff_notes === 'Prefers the terrace',
        'the profile saved',
        LIVE_WITHIN_MS,
      );
      // The day reloads with the new tags; the booking's own staff notes stay apart.
      await page.locator('.bk[aria-pressed="true"] .bk-tags', { hasText: /^vip · regular$/ }).waitFor();
      await profile.getByText('Prefers the terrace').waitFor();
      assert.equal(await panel.getByLabel('Staff notes on this booking').inputValue(), '');
      await axeClean(page, 'guest profile in the panel');
      await page.screenshot({ path: screenshotPath('dashboard-panel-guest.png'), fullPage: true });
    } finally {
      await close();
    }
    // On a phone, the list's line says it in words; a party of one is "1 guest".
    await send(ctx.app, venue.tenant, 'PATCH', `/v1/manage/bookings/${venue.bookings.Marc}`, { capacity: 1 });
    const phone = await openToday(venue, PHONE);
    try {
      const marc = phone.page.locator('.day-list').getByRole('button', { name: /Guest Marc/ });
      assert.match((await marc.textContent()) ?? '', /Guest Marc, 1 guest(?!s)/);
      await phone.page.getByText('4 bookings, 7 guests').waitFor();
      const line = phone.page.locator('.day-list').getByRole('button', { name: /Guest Anna/ });
      assert.match((await line.textContent()) ?? '', /⚠ Allergies: shellfishvipregular/);
      await axeClean(phone.page, 'marks on a phone');
      const csv = await downloaded(phone.page, () =>
        phone.page.getByRole('button', { name: 'Download CSV' }).click(),
      );
      assert.match(csv, new RegExp(`^\uFEFFbooking_date,.*\r\n${day},18:30,`));
      assert.match(csv, /,shellfish,vip; regular,/);
    } finally {
      await phone.close();
    }
  });

  it('is a full-screen dialog on a phone, and gives the focus back to the booking', async () => {
    const venue = await openVenue();
    const { page, close } = await openToday(venue, PHONE);
    try {
      const line = page.locator('.day-list').getByRole('button', { name: /Guest Anna/ });
      await line.click();
      const dialog = page.getByRole('dialog', { name: 'Booking: Guest Anna' });
      await dialog.waitFor();
      const box = await dialog.boundingBox();
      assert.ok(box && box.width >= PHONE.width - 1 && box.height >= PHONE.height - 1, JSON.stringify(box));
      await axeClean(page, 'panel, phone');
      await page.screenshot({ path: screenshotPath('dashboard-panel-phone.png') });
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
      await untilInPage(page, "document.activeElement?.textContent?.includes('Guest Anna')");
      // Escape closes it as well.
      await line.click();
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await untilInPage(page, "document.activeElement?.textContent?.includes('Guest Anna')");
    } finally {
      await close();
    }
  });

  it("speaks the venue's notification language, whatever the browser's", async () => {
    const tenant = await createTenant(ctx.app, { name: 'Chez Langue' });
    await send(ctx.app, tenant, 'PATCH', '/v1/manage/settings', {
      timezone: ZONE,
      notification_language: 'fr',
    });
    const context = await browser.newContext({ viewport: TABLET, locale: 'en-GB' });
    const page = await context.newPage();
    try {
      await page.goto(`${api}/staff/`);
      await signIn(page, tenant.developer.email, tenant.developer.password);
      await page.getByRole('link', { name: 'Aujourd’hui' }).first().waitFor();
      await page.getByRole('status').filter({ hasText: 'En direct' }).waitFor();
      assert.equal(await page.evaluate('document.documentElement.lang'), 'fr');
    } finally {
      await context.close();
    }
  });

  it("reads and takes times on the venue's clock, 12-hour in English by default, in fields that fit a phone", async () => {
    const venue = await openVenue();
    await send(ctx.app, venue.tenant, 'PATCH', '/v1/manage/settings', { time_format: null });
    const { page, close } = await openToday(venue, TABLET);
    try {
      // The browser's locale reads 24-hour (en-GB); the venue's English clock reads 12-hour.
      await page
        .getByRole('button', { name: /^2 Anna ?, Guest Anna, 7:00\sPM–8:00\sPM, confirmed$/ })
        .waitFor();
      assert.ok(await page.locator('.tl-hour', { hasText: /^7:00\sPM$/ }).isVisible());

      await block(page, 'T1', 'Anna').click();
      const panel = page.getByRole('complementary', { name: 'Booking: Guest Anna' });
      await panel.getByRole('heading', { name: 'Booking: Guest Anna' }).waitFor();
      assert.match((await panel.locator('dl').textContent()) ?? '', /7:00\sPM–8:00\sPM/);
      const time = panel.getByLabel('Time', { exact: true });
      assert.match(await time.inputValue(), /^7:00\sPM$/);

      // What names no time is refused in words, before anything is sent.
      await time.fill('soon');
      await panel.getByRole('button', { name: 'Move', exact: true }).click();
      assert.match(
        await page.evaluate<string>("document.getElementById('panel-move-time').validationMessage"),
        /^Write a time, such as 7:30\sPM\.$/,
      );
      assert.equal((await bookingOf(venue, 'Anna')).start_time, '19:00');

      await time.fill('8:30 pm');
      await panel.getByRole('button', { name: 'Move', exact: true }).click();
      await untilBooking(venue, 'Anna', (b) => b.start_time === '20:30');
      await page.getByRole('button', { name: /^2 Anna ?, Guest Anna, 8:30\sPM–9:30\sPM/ }).waitFor();
      await axeClean(page, 'the 12-hour clock, tablet');
      await page.evaluate('scrollTo(0, 0)');
      await page.screenshot({ path: screenshotPath('dashboard-clock-12h-today.png') });

      // On a phone, a new booking's time is typed and shown whole, on the same clock.
      const wholeTimes = () =>
        page.evaluate<boolean>(
          "[...document.querySelectorAll('.time-input')].every((input) => input.scrollWidth <= input.clientWidth)",
        );
      await page.setViewportSize(PHONE);
      // The panel is a full-screen dialog there, its time field as wide as it needs.
      await page.getByRole('dialog', { name: 'Booking: Guest Anna' }).waitFor();
      assert.ok(await wholeTimes(), "the panel's time shows whole");
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'New booking' }).click();
      const dialog = page.getByRole('dialog', { name: 'New booking' });
      const typed = dialog.getByLabel('Time', { exact: true });
      await typed.fill('1130');
      await typed.blur();
      assert.match(await typed.inputValue(), /^11:30\sAM$/);
      assert.ok(await wholeTimes(), "the new booking's time shows whole");
      await dialog.getByRole('radio', { name: /^9:00\sPM$/ }).waitFor();
      await axeClean(page, 'a new booking on the 12-hour clock, phone');
      await page.screenshot({ path: screenshotPath('dashboard-clock-12h-phone.png') });
      await page.keyboard.press('Escape');

      // The venue sets a 24-hour clock: the same screen reads it once reloaded.
      await send(ctx.app, venue.tenant, 'PATCH', '/v1/manage/settings', { time_format: '24h' });
      await page.setViewportSize(TABLET);
      await page.reload();
      await page.getByRole('button', { name: /^2 Anna ?, Guest Anna, 20:30–21:30, confirmed$/ }).waitFor();
      assert.ok(await page.locator('.tl-hour', { hasText: /^19:00$/ }).isVisible());
    } finally {
      await close();
    }
  });

  it('moves a booking by touch: a finger held on it carries it, held still it opens the move picker', async () => {
    const venue = await openVenue();
    const context = await browser.newContext({
      viewport: TABLET,
      hasTouch: true,
      locale: 'en-GB',
      timezoneId: 'America/New_York',
    });
    const page = await context.newPage();
    const touch = await context.newCDPSession(page);
    const finger = (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number, y: number) =>
      touch.send('Input.dispatchTouchEvent', {
        type,
        touchPoints: type === 'touchEnd' ? [] : [{ x, y }],
      });
    const middle = (box: { x: number; y: number; width: number; height: number }) => ({
      x: box.x + box.width / 2,
      y: box.y + box.height / 2,
    });
    try {
      await page.goto(`${api}/staff/#/today/${day}`);
      await signIn(page, venue.tenant.developer.email, venue.tenant.developer.password);
      await block(page, 'T1', 'Lea').waitFor();
      await block(page, 'T1', 'Lea').scrollIntoViewIfNeeded();
      const lea = middle((await block(page, 'T1', 'Lea').boundingBox())!);
      const t2 = middle((await page.locator('li[data-resource="T2"] .tl-track').boundingBox())!);

      // A finger that moves on at once scrolls: the booking stays where it is.
      await finger('touchStart', lea.x, lea.y);
      for (let step = 1; step <= 6; step++) await finger('touchMove', lea.x, lea.y + step * 8);
      await finger('touchEnd', lea.x, lea.y + 48);
      await page.waitForTimeout(600);
      assert.equal((await bookingOf(venue, 'Lea')).resource_id, venue.tables.T1);

      // Held still for a moment, the block is picked up and carried to T2.
      await finger('touchStart', lea.x, lea.y);
      await page.waitForTimeout(HELD_STILL_MS);
      for (let step = 1; step <= 8; step++) {
        await finger('touchMove', lea.x, lea.y + ((t2.y - lea.y) * step) / 8);
      }
      await finger('touchEnd', lea.x, t2.y);
      await untilBooking(venue, 'Lea', (b) => b.resource_id === venue.tables.T2 && b.start_time === '21:00');
      await block(page, 'T2', 'Lea').waitFor();

      // Held still and let go: the booking's panel opens on its move picker.
      const moved = middle((await block(page, 'T2', 'Lea').boundingBox())!);
      await finger('touchStart', moved.x, moved.y);
      await page.waitForTimeout(HELD_STILL_MS);
      await finger('touchEnd', moved.x, moved.y);
      const panel = page.getByRole('complementary', { name: 'Booking: Guest Lea' });
      await panel.waitFor();
      await untilInPage(page, "document.activeElement?.id === 'panel-move-table'");
      await axeClean(page, 'move picker opened by touch');
      assert.equal((await bookingOf(venue, 'Lea')).resource_id, venue.tables.T2);
    } finally {
      await context.close();
    }
  });
});
