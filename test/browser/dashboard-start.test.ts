// test lane: system
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeClean, browserSkipReason, launchBrowser, screenshotPath } from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, type TestContext, uniqueEmail } from '../helpers.ts';

/**
 * A newcomer with a browser alone: signs up, makes a venue, adds a table and opening hours in the
 * set-up, and reaches Today with the booking page's link, which books. In English on a computer
 * and in German on a phone; no API call of the test's own but to read the result back.
 */
const skip = browserSkipReason();
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

type Texts = Record<string, string>;
const textsOf = (lang: string): Texts =>
  JSON.parse(readFileSync(new URL(`../../dashboard/texts/${lang}.json`, import.meta.url), 'utf8'));

let ctx: TestContext;
let api: string;
let browser: Browser;

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await ctx?.close();
});

/** A weekday's name as the dashboard writes it (1 January 2023 was a Sunday). */
const weekday = (lang: string, day: number) =>
  new Intl.DateTimeFormat(lang, { weekday: 'long', timeZone: 'UTC' }).format(Date.UTC(2023, 0, 1 + day));

async function startVenue(page: Page, lang: string, venueName: string, shots: string) {
  const tx = textsOf(lang);
  const en = textsOf('en');
  const say = (key: string, values: Record<string, string | number> = {}) =>
    (tx[key] ?? en[key]!).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
  await page.goto(`${api}/staff/`);
  await page.getByRole('link', { name: say('signUpLink') }).click();
  await page.getByRole('heading', { level: 1, name: say('signUpTitle') }).waitFor();
  await axeClean(page, `sign-up, ${lang}`);
  const email = uniqueEmail('owner');
  await page.getByLabel(say('newFirstName')).fill('Ada');
  await page.getByLabel(say('newLastName')).fill('Lovelace');
  await page.getByLabel(say('email')).fill(email);
  // Too short first: the API's own message, beside the field.
  await page.getByLabel(say('password')).fill('short');
  await page.getByRole('button', { name: say('signUp') }).click();
  await page.locator('#f-password-error').waitFor();
  await page.screenshot({ path: screenshotPath(`${shots}-sign-up.png`), fullPage: true });
  await page.getByLabel(say('password')).fill('a long enough password');
  await page.getByRole('button', { name: say('signUp') }).click();

  await page.getByRole('heading', { level: 1, name: say('createVenueTitle') }).waitFor();
  await axeClean(page, `create venue, ${lang}`);
  await page.getByLabel(say('settingsBusinessName')).fill(venueName);
  await page.getByLabel(say('rulesTimezone')).selectOption('Europe/Berlin');
  await page.getByLabel(say('settingsLanguage')).selectOption(lang);
  await page.screenshot({ path: screenshotPath(`${shots}-create-venue.png`), fullPage: true });
  await page.getByRole('button', { name: say('createVenue') }).click();

  await page.getByRole('heading', { level: 1, name: say('setupTitle', { name: venueName }) }).waitFor();
  await page.getByText(say('setupProgress', { step: 1, total: 4 })).waitFor();
  await page.getByLabel(say('name'), { exact: true }).fill('T1');
  await page.getByLabel(say('settingsMaxParty')).fill('4');
  await page.getByRole('button', { name: say('settingsAddTable') }).click();
  await page.getByText('T1', { exact: true }).waitFor();
  await axeClean(page, `set-up tables, ${lang}`);
  await page.screenshot({ path: screenshotPath(`${shots}-setup-tables.png`), fullPage: true });
  await page.getByRole('link', { name: say('setupNext') }).click();

  await page.getByText(say('setupProgress', { step: 2, total: 4 })).waitFor();
  for (let day = 0; day < 7; day++) {
    const name = weekday(lang, day);
    await page.getByLabel(`${name}: ${say('settingsOpen')}`).check();
    await page.getByLabel(`${name}: ${say('settingsFrom')}`).fill('08:00');
    await page.getByLabel(`${name}: ${say('settingsUntil')}`).fill('23:00');
  }
  await page.getByRole('button', { name: say('settingsSave') }).click();
  await page.getByRole('status').getByText(say('settingsSaved')).waitFor();
  await axeClean(page, `set-up hours, ${lang}`);
  await page.getByRole('link', { name: say('setupNext') }).click();
  await page.getByText(say('setupProgress', { step: 3, total: 4 })).waitFor();
  await page.getByRole('link', { name: say('setupNext') }).click();

  await page.getByRole('heading', { level: 2, name: say('setupReady') }).waitFor();
  await axeClean(page, `set-up ready, ${lang}`);
  await page.screenshot({ path: screenshotPath(`${shots}-setup-ready.png`), fullPage: true });
  const link = await page.getByRole('link', { name: /\/book\// }).getAttribute('href');
  assert.match(link ?? '', new RegExp(`^${api}/book/[a-z0-9-]+$`));
  assert.match(
    (await page.locator('.snippet').textContent()) ?? '',
    /<slotwise-booking business="[a-z0-9-]+"/,
  );
  await page.getByRole('link', { name: say('setupOpenToday') }).click();
  await page.waitForURL(/#\/today$/);
  await page
    .getByRole('link', { name: say('navToday'), exact: true })
    .and(page.locator('[aria-current="page"]'))
    .waitFor();
  await page.locator('.day-nav, .timeline, .day-list').first().waitFor();
  await axeClean(page, `today of a new venue, ${lang}`);
  await page.screenshot({ path: screenshotPath(`${shots}-today.png`), fullPage: true });
  return { email, link: link! };
}

describe('starting a venue from nothing in the dashboard', { skip }, () => {
  for (const [lang, viewport, locale, shots] of [
    ['en', DESKTOP, 'en-GB', 'dashboard-start'],
    ['de', PHONE, 'de-DE', 'dashboard-start-de-phone'],
  ] as const) {
    it(`signs up, makes a venue with a table and hours, and its booking page books (${lang}, ${viewport.width} px)`, async () => {
      const context = await browser.newContext({ viewport, locale, timezoneId: 'Europe/Berlin' });
      const page = await context.newPage();
      try {
        const venueName = lang === 'de' ? 'Gasthaus Linde' : 'The Linden Tree';
        const { link } = await startVenue(page, lang, venueName, shots);
        const business = await ctx.app.db
          .selectFrom('businesses')
          .select(['name', 'slug', 'timezone', 'notification_language'])
          .where('slug', '=', link.split('/book/')[1]!)
          .executeTakeFirstOrThrow();
        assert.deepEqual(business, {
          name: venueName,
          slug: business.slug,
          timezone: 'Europe/Berlin',
          notification_language: lang,
        });

        // The booking page offers times on some day of the coming week.
        const guest = await context.newPage();
        await guest.goto(link);
        await guest.getByRole('heading', { name: venueName }).first().waitFor();
        const offered = await ctx.app.inject({
          method: 'GET',
          url: `/v1/public/business/${business.slug}`,
        });
        assert.equal(offered.statusCode, 200, offered.body);
        assert.equal(offered.json().max_online_party_size, 4, 'the largest party the one table seats');
      } finally {
        await context.close();
      }
    });
  }
});
