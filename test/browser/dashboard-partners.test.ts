// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn, wallTimeToInstant } from '../../src/engine/time.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  launchBrowser,
  screenshotPath,
  signIn,
  untilInPage,
} from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, type Tenant, type TestContext, uniqueEmail } from '../helpers.ts';

/**
 * Reservation partners on the dashboard, in a real browser against the real server: an owner
 * lists the venue with a partner (its password shown once, with its user name and addresses),
 * the partner books through the booking server with those credentials, Today names the partner
 * on that booking, and the owner removes the partner once asked. In English on a desktop and in
 * German on a phone; a staff member is not offered the section. The pictures go to
 * docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const PASSWORD = 'four words of mine';
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PARTNER = 'Maps reservations';

const WORDS = {
  en: {
    settings: 'Settings',
    sections: 'Settings sections',
    section: 'Reservation partners',
    name: 'Name',
    add: 'Add a partner',
    once: `The password of ${PARTNER}, shown this once`,
    copy: 'Copy the password',
    copied: 'Copied.',
    stored: 'I have stored it',
    today: 'Today',
    list: 'List',
    bookedThrough: `Booked through ${PARTNER}`,
    label: `via ${PARTNER}`,
    remove: `Remove ${PARTNER}`,
    question: `Remove ${PARTNER}? It can no longer see or book this venue; the bookings it made stay.`,
    yes: 'Yes, remove it',
    no: 'Keep it',
    none: 'No reservation partners.',
  },
  de: {
    settings: 'Einstellungen',
    sections: 'Bereiche der Einstellungen',
    section: 'Reservierungspartner',
    name: 'Name',
    add: 'Partner hinzufügen',
    once: `Das Passwort für ${PARTNER}, nur dieses eine Mal gezeigt`,
    copy: 'Passwort kopieren',
    copied: 'Kopiert.',
    stored: 'Sicher gespeichert',
    today: 'Heute',
    list: 'Liste',
    bookedThrough: `Gebucht über ${PARTNER}`,
    label: `über ${PARTNER}`,
    remove: `${PARTNER} entfernen`,
    question: `${PARTNER} entfernen? Der Partner kann dieses Lokal dann weder sehen noch buchen; seine Buchungen bleiben.`,
    yes: 'Ja, entfernen',
    no: 'Behalten',
    none: 'Keine Reservierungspartner.',
  },
};

let ctx: TestContext;
let api: string;
let browser: Browser;
let day: string;

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
  // Tomorrow in Paris: always ahead of the real clocks of the browser and the server.
  day = addDays(todayIn(ZONE, Date.now()), 1);
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/** A venue in Paris on a 24-hour clock, open 11:00–23:00 with two tables, its owner's and a staff member's accounts. */
async function openVenue(lang: 'en' | 'de') {
  const { tenant } = await setupBookable(ctx.app, {
    name: 'Trattoria Sole',
    settings: {
      timezone: ZONE,
      time_format: '24h',
      default_slot_duration_minutes: 60,
      notification_language: lang,
    },
    resources: ['T1', 'T2'].map((name) => ({ name, capacity_min: 1, capacity_max: 4 })),
    open: '11:00',
    close: '23:00',
  });
  const owner = uniqueEmail('owner');
  const staff = uniqueEmail('staff');
  for (const [email, role] of [
    [owner, 'business_owner'],
    [staff, 'staff_member'],
  ]) {
    await send(ctx.app, tenant, 'POST', '/v1/manage/staff', { email, role, password: PASSWORD });
  }
  return { tenant, owner, staff };
}

async function signedIn(viewport: typeof DESK, email: string, lang: 'en' | 'de') {
  const context = await browser.newContext({ viewport, locale: lang === 'en' ? 'en-GB' : 'de-DE' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${api}/staff/`);
  await signIn(page, email, PASSWORD, lang);
  await page.getByRole('link', { name: WORDS[lang].settings }).click();
  await page.getByRole('heading', { level: 1, name: WORDS[lang].settings }).waitFor();
  return { page, close: () => context.close() };
}

async function openPartners(page: Page, lang: 'en' | 'de') {
  const words = WORDS[lang];
  await page
    .getByRole('navigation', { name: words.sections })
    .getByRole('link', { name: words.section })
    .click();
  await page.getByRole('heading', { level: 2, name: words.section }).waitFor();
  await page.locator('.settings-section form').waitFor();
}

const fitsThePage = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth');

/** The partner's CreateBooking of a party of 2 at 19:00 on `day`, with its HTTP Basic credentials. */
async function partnerBooks(tenant: Tenant, credentials: { username: string; password: string }) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/partners/maps-booking/v3/CreateBooking',
    headers: {
      authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
    },
    payload: {
      slot: {
        merchant_id: tenant.businessId,
        service_id: 'reservation',
        start_sec: String(wallTimeToInstant(day, '19:00', ZONE)! / 1000),
        duration_sec: '3600',
        resources: { party_size: 2 },
        confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
      },
      user_information: {
        user_id: 'user-1',
        given_name: 'Ada',
        family_name: 'Lovelace',
        telephone: '+4930555123456',
        email: 'ada@example.com',
      },
      idempotency_token: `token-${Math.random()}`,
      payment_information: { prepayment_status: 'PREPAYMENT_NOT_PROVIDED' },
    },
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json().booking_failure, undefined, response.body);
}

describe('reservation partners on the dashboard', { skip }, () => {
  for (const [lang, viewport] of [
    ['en', DESK],
    ['de', PHONE],
  ] as const) {
    it(`lists the venue with a partner, names it on its booking and removes it once asked (${lang})`, async () => {
      const words = WORDS[lang];
      const size = lang === 'en' ? 'desktop' : 'phone';
      const { tenant, owner } = await openVenue(lang);
      const { page, close } = await signedIn(viewport, owner, lang);
      try {
        await openPartners(page, lang);
        await page.getByText(words.none).waitFor();
        await axeClean(page, `partners, none yet (${lang})`);

        // Added by name: the password shown once, with the user name and the addresses it calls.
        await page.getByLabel(words.name, { exact: true }).fill(PARTNER);
        await page.getByRole('button', { name: words.add }).click();
        const once = page.getByRole('region', { name: words.once });
        await once.waitFor();
        const password = (await once.locator('code.secret').textContent()) ?? '';
        const [listed] = (await send(ctx.app, tenant, 'GET', '/v1/manage/partners')).items;
        assert.equal(listed.name, PARTNER);
        const shown = await once.locator('dl code').allTextContents();
        const base = `${api}/partners/maps-booking`;
        assert.deepEqual(shown, [
          listed.username,
          base,
          `${base}/feeds/merchants.json`,
          `${base}/feeds/services.json`,
          `${base}/feeds/availability.json`,
        ]);
        await once.getByRole('button', { name: words.copy }).click();
        await once.getByText(words.copied).waitFor();
        assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), password);
        await axeClean(page, `a new partner's password (${lang})`);
        assert.ok(await fitsThePage(page), `the password shown once fits the ${size}`);
        await page.screenshot({
          path: screenshotPath(`dashboard-settings-partners-${lang}.png`),
          fullPage: true,
        });
        await once.getByRole('button', { name: words.stored }).click();
        await once.waitFor({ state: 'detached' });
        // Never shown again: the list names the partner and its user name only.
        const row = page.locator('.settings-section .row', { hasText: PARTNER });
        await row.getByText(listed.username).waitFor();
        assert.ok(!((await page.locator('.settings-section').textContent()) ?? '').includes(password));

        // The partner books with those credentials; Today names it on the booking.
        await partnerBooks(tenant, { username: listed.username, password });
        const [booking] = (await send(ctx.app, tenant, 'GET', `/v1/manage/bookings?booking_date=${day}`))
          .items;
        assert.deepEqual(
          [booking.source, booking.partner?.name, booking.start_time, booking.capacity],
          ['partner', PARTNER, '19:00', 2],
        );
        await page.evaluate(`location.hash = '#/today/${day}'`);
        if (lang === 'en') {
          // The desktop opens on the timeline: the block opens the panel beside it.
          await page
            .locator('.timeline')
            .getByRole('button', { name: /Lovelace/ })
            .click();
          const panel = page.getByRole('complementary', { name: /Ada Lovelace/ });
          await panel.getByText(words.bookedThrough).waitFor();
          await axeClean(page, `a partner's booking in the panel (${lang})`);
          await page.screenshot({ path: screenshotPath(`dashboard-panel-partner-${lang}.png`) });
          await page.getByRole('button', { name: words.list, exact: true }).click();
        }
        const line = page.locator('.day-list').getByRole('button', { name: /Ada Lovelace/ });
        await line.getByText(words.label).waitFor();
        await axeClean(page, `a partner's booking in the list (${lang})`);
        assert.ok(await fitsThePage(page), `the list fits the ${size}`);
        if (lang === 'de') {
          await page.screenshot({ path: screenshotPath(`dashboard-today-partner-${lang}.png`) });
          // On a phone the panel is a dialog over the list.
          await line.click();
          const panel = page.getByRole('dialog', { name: /Ada Lovelace/ });
          await panel.getByText(words.bookedThrough).waitFor();
          await axeClean(page, `a partner's booking in the panel (${lang})`);
          assert.ok(await fitsThePage(page), 'the panel fits the phone');
          await page.screenshot({ path: screenshotPath(`dashboard-panel-partner-${lang}.png`) });
          await page.keyboard.press('Escape');
          await panel.waitFor({ state: 'detached' });
        }

        // Removed once asked: "keep it" gives the focus back to the button that asked.
        await page.getByRole('link', { name: words.settings }).click();
        await openPartners(page, lang);
        const remove = page.getByRole('button', { name: words.remove });
        await remove.click();
        const question = page.getByRole('group', { name: words.question });
        await question.getByRole('button', { name: words.no }).click();
        await question.waitFor({ state: 'detached' });
        await untilInPage(page, `document.activeElement?.textContent === ${JSON.stringify(words.remove)}`);
        await remove.click();
        // The question takes the focus on its yes.
        await untilInPage(page, `document.activeElement?.textContent === ${JSON.stringify(words.yes)}`);
        await axeClean(page, `removing a partner (${lang})`);
        assert.ok(await fitsThePage(page), `the question fits the ${size}`);
        await page.screenshot({
          path: screenshotPath(`dashboard-settings-partner-remove-${lang}.png`),
          fullPage: true,
        });
        await question.getByRole('button', { name: words.yes }).click();
        await page.getByText(words.none).waitFor();
        assert.deepEqual((await send(ctx.app, tenant, 'GET', '/v1/manage/partners')).items, []);
        // Its booking stays, still naming it.
        const [kept] = (await send(ctx.app, tenant, 'GET', `/v1/manage/bookings?booking_date=${day}`)).items;
        assert.deepEqual([kept.status, kept.partner?.name], [booking.status, PARTNER]);
      } finally {
        await close();
      }
    });
  }

  it('offers the section to owners only', async () => {
    const { staff } = await openVenue('en');
    const { page, close } = await signedIn(DESK, staff, 'en');
    try {
      const offered = await page
        .getByRole('navigation', { name: WORDS.en.sections })
        .getByRole('link')
        .allInnerTexts();
      assert.ok(offered.length > 0);
      assert.ok(!offered.includes(WORDS.en.section));
    } finally {
      await close();
    }
  });
});
