// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn } from '../../src/engine/time.ts';
import { slotTime } from '../../widget/format.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  downloaded,
  launchBrowser,
  screenshotPath,
  signIn,
  tabTo,
} from '../browser.ts';
import { createTestApp, type TestContext } from '../helpers.ts';

/**
 * The statistics screen in a real browser against the real server: a developer picks a period,
 * reads the figures (the charts' tables) as the API answers them, and sees the charts drawn.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
/** The bars' colour (`BAR_COLOUR` in dashboard/stats/bar-chart.tsx) as the canvas holds it. */
const BAR_RGB = [0x1f, 0x5f, 0xbf];

let ctx: TestContext;
let browser: Browser;
let today: string;

before(async () => {
  if (skip) return;
  ctx = await createTestApp();
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchBrowser();
  today = todayIn(ZONE, Date.now());
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/**
 * Four tables open 11:00-23:00 in Paris and, over the three days after today, five bookings: one
 * cancelled, one a no-show; a sixth later, outside the period looked at.
 */
async function seededVenue() {
  const { tenant, resources: tables } = await setupBookable(ctx.app, {
    name: 'Brasserie Lumière',
    settings: { timezone: ZONE },
    resources: ['T1', 'T2', 'T3', 'T4'].map((name) => ({
      name,
      section: 'Salle',
      capacity_min: 1,
      capacity_max: 6,
    })),
    open: '11:00',
    close: '23:00',
  });
  const book = async (day: number, time: string, capacity: number, table: string) =>
    (
      await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
        date: addDays(today, day),
        time,
        capacity,
        first_name: 'Guest',
        last_name: `${day}-${time}`,
        phone: '+33 1 23 45 67 89',
        resource_id: tables[table],
      })
    ).booking as { id: string; starts_at: string };
  await book(1, '12:30', 4, 'T1');
  await book(1, '19:00', 2, 'T2');
  const noShow = await book(2, '19:30', 3, 'T1');
  const cancelled = await book(2, '20:00', 6, 'T3');
  await book(3, '20:00', 5, 'T3');
  await book(5, '13:00', 2, 'T4');
  await send(ctx.app, tenant, 'PATCH', `/v1/manage/bookings/${cancelled.id}`, { status: 'cancelled' });
  // A no-show is marked once its booking has started.
  const clock = ctx.app.clock.now;
  ctx.app.clock.now = () => Date.parse(noShow.starts_at);
  try {
    await send(ctx.app, tenant, 'PATCH', `/v1/manage/bookings/${noShow.id}`, { status: 'no_show' });
  } finally {
    ctx.app.clock.now = clock;
  }
  return tenant;
}

/** The rows of the chart's table captioned `caption`, each its cells' texts. */
const tableRows = (page: Page, caption: string) =>
  page
    .getByRole('table', { name: caption })
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent ?? '')),
    );

/** How many of each chart's canvas pixels are the bars' colour. */
const barPixels = (page: Page) =>
  page.evaluate<number[]>(`[...document.querySelectorAll('.chart canvas')].map((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === ${BAR_RGB[0]} && data[i + 1] === ${BAR_RGB[1]} && data[i + 2] === ${BAR_RGB[2]}) count++;
    }
    return count;
  })`);

const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });
const pct = (value: number) => percent.format(value / 100);

describe('the statistics screen', { skip }, () => {
  it("shows a period's figures as the API answers them, in charts and their tables", async () => {
    const tenant = await seededVenue();
    const [from, to] = [addDays(today, 1), addDays(today, 3)];
    const expected = (
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/stats?from_date=${from}&to_date=${to}`,
        headers: tenant.headers,
      })
    ).json();
    assert.equal(expected.bookings.total, 5);

    const context = await browser.newContext({
      viewport: TABLET,
      locale: 'en-GB',
      timezoneId: 'America/New_York',
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    try {
      const { address, port } = ctx.app.server.address() as { address: string; port: number };
      await page.goto(`http://${address}:${port}/staff/`);
      await signIn(page, tenant.developer.email, tenant.developer.password);
      await page.getByRole('link', { name: 'Statistics' }).click();
      await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
      // The period's buttons are drawn with the screen; the chosen one is marked once its route is read.
      await page.getByRole('button', { name: 'This month', pressed: true }).waitFor();

      // The keyboard alone picks another period.
      await tabTo(page, /^This week$/);
      await page.keyboard.press('Enter');
      await page.waitForURL(/#\/stats\/week$/);
      // The route changes before the screen reads it, so the pressed state is awaited, not read once.
      await page.getByRole('button', { name: 'This week', pressed: true }).waitFor();

      await page.getByRole('button', { name: 'Custom range' }).click();
      await page.getByLabel('From').fill(from);
      await page.getByLabel('To', { exact: true }).fill(to);
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.waitForURL(new RegExp(`#/stats/${from}/${to}$`));
      const figures = page.locator('.stats-figures');
      await figures.getByText(String(expected.bookings.total), { exact: true }).waitFor();

      const summary = await figures
        .locator('div')
        .evaluateAll((items) =>
          items.map((item) => [item.querySelector('dt')?.textContent, item.querySelector('dd')?.textContent]),
        );
      assert.deepEqual(summary, [
        ['Bookings', '5'],
        ['Guests', String(expected.capacity.total_covers)],
        ['Average party', String(expected.capacity.avg_party_size)],
        ['No-show rate', pct(expected.rates.no_show_pct)],
        ['Cancellation rate', pct(expected.rates.cancellation_pct)],
      ]);
      assert.deepEqual(summary.slice(1, 3), [
        ['Guests', '14'],
        ['Average party', '3.5'],
      ]);

      // Hours from the first to the last booked, empty ones at zero.
      type Hour = { hour: number; count: number; covers: number };
      const byHour = new Map<number, Hour>(expected.busy_hours.map((h: Hour) => [h.hour, h]));
      const hours = await tableRows(page, 'Guests by hour of arrival');
      assert.deepEqual(
        hours,
        [12, 13, 14, 15, 16, 17, 18, 19, 20].map((hour) => [
          slotTime('en', from, `${hour}:00`),
          String(byHour.get(hour)?.covers ?? 0),
          String(byHour.get(hour)?.count ?? 0),
        ]),
      );
      assert.deepEqual(hours.at(-1)!.slice(1), ['5', '1'], 'the cancelled party of six is left out');

      type Day = { date: string; count: number; covers: number };
      const days = await tableRows(page, 'Bookings per day');
      assert.deepEqual(
        days.map((row) => row.slice(1)),
        [from, addDays(from, 1), to].map((date) => {
          const day = expected.busy_days.find((d: Day) => d.date === date);
          return [String(day?.count ?? 0), String(day?.covers ?? 0)];
        }),
      );
      assert.deepEqual(
        days.map((row) => row.slice(1)),
        [
          ['2', '6'],
          ['1', '3'],
          ['1', '5'],
        ],
      );

      assert.deepEqual(
        await tableRows(page, 'No-shows, cancellations and completed visits (share of all bookings)'),
        [
          ['No-shows', pct(expected.rates.no_show_pct), '1'],
          ['Cancelled', pct(expected.rates.cancellation_pct), '1'],
          ['Completed', pct(expected.rates.completion_pct), '0'],
        ],
      );
      assert.deepEqual(
        await tableRows(
          page,
          'Table use: booked time as a share of opening hours (the ten most booked tables)',
        ),
        expected.top_resources.map(
          (r: { resource_name: string; utilization_pct: number; booking_count: number }) => [
            r.resource_name,
            pct(r.utilization_pct),
            String(r.booking_count),
          ],
        ),
      );

      // Every chart is drawn, its bars in the accent colour.
      const pixels = await barPixels(page);
      assert.equal(pixels.length, 4);
      assert.ok(
        pixels.every((count) => count > 100),
        `bar pixels per chart: ${pixels}`,
      );
      assert.deepEqual(errors, [], 'no error in the console (a style the policy refused would be one)');
      // uPlot's stylesheet arrived through app.css: its wrapper is positioned (a <style> would be refused).
      assert.equal(
        await page.evaluate<string>("getComputedStyle(document.querySelector('.u-wrap')).position"),
        'relative',
      );
      await axeClean(page, 'statistics, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-stats-tablet.png'), fullPage: true });
      const csv = await downloaded(page, () => page.getByRole('button', { name: 'Download CSV' }).click());
      assert.match(csv, /^\uFEFFdate,day_name,bookings,covers,pending,/);

      const toggle = page.getByRole('button', { name: 'Figures as tables' });
      await toggle.click();
      await page.getByRole('button', { name: 'Figures as tables', pressed: true }).waitFor();
      assert.ok(await page.getByRole('table', { name: 'Bookings per day' }).isVisible());
      await axeClean(page, 'statistics with tables, tablet');

      // A range longer than the API takes is said, in words, in the live region.
      await page.getByLabel('From').fill('2020-01-01');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page
        .getByRole('alert')
        .getByText('This period is too long for the statistics. Please choose a shorter one.')
        .waitFor();
      await page.getByRole('button', { name: 'Dismiss' }).click();
      await page.getByRole('button', { name: 'This month' }).click();
      await page.waitForURL(/#\/stats\/month$/);
      await page.locator('.stats-figures').waitFor();

      await page.setViewportSize(PHONE);
      await toggle.click();
      await axeClean(page, 'statistics, phone');
      await page.screenshot({ path: screenshotPath('dashboard-stats-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
