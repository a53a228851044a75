// test lane: system
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { todayIn } from '../../src/engine/index.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  focusedLabel,
  type HostSite,
  launchBrowser,
  screenshotPath,
  startHostSite,
  tabTo,
  untilInPage,
} from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, type Tenant, type TestContext } from '../helpers.ts';

/**
 * The booking widget in a real browser against the real server: a page on another origin embeds
 * it, a guest books with the keyboard alone, and so on. `WIDGET_SCREENSHOTS=1` also writes the
 * README's pictures of each step to docs/widget/.
 */
const skip = browserSkipReason();
const SCREENSHOTS = process.env.WIDGET_SCREENSHOTS === '1';
const SHOTS_DIR = new URL('../../docs/widget/', import.meta.url);
const VENUE_ZONE = 'Europe/Paris';

let ctx: TestContext;
let api: string;
let browser: Browser;
let host: HostSite;

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  host = await startHostSite();
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser.close();
  await host.close();
  await ctx.close();
});

interface Venue {
  tenant: Tenant;
  key: string;
}

/** A venue in Paris open 12:00-22:00 every day with one table for 1-4, and a publishable key for `origins`. */
async function openVenue(
  name: string,
  origins: string[],
  settings: Record<string, unknown> = {},
): Promise<Venue> {
  const { tenant } = await setupBookable(ctx.app, {
    name,
    sandbox: settings.deposit_type !== undefined,
    settings: { timezone: VENUE_ZONE, min_notice_hours: 0, default_slot_interval_minutes: 30, ...settings },
    open: '12:00',
    close: '22:00',
    resources: [{ name: 'Table 1', capacity_min: 1, capacity_max: 4 }],
  });
  const created = await send(ctx.app, tenant, 'POST', '/v1/manage/api-keys', {
    name: 'website',
    type: 'publishable',
    allowed_origins: origins,
  });
  return { tenant, key: created.key };
}

/** A page of the other site embedding the widget, recording the element's events. */
function embed(path: string, venue: Venue, attributes = '', htmlLang = 'en'): string {
  host.pages.set(
    path,
    `<!doctype html><html lang="${htmlLang}"><head><title>A venue's own site</title></head><body><main><h1>Welcome</h1>
<slotwise-booking business="${venue.tenant.slug}" key="${venue.key}" ${attributes}></slotwise-booking></main>
<script>window.events = []; for (const type of ['slotwise:booked', 'slotwise:error']) document.addEventListener(type, (e) => events.push({ type, detail: e.detail }));</script>
<script src="${api}/widget/v1/slotwise.js"></script></body></html>`,
  );
  return `${host.origin}${path}`;
}

const widget = (page: Page) => page.locator('slotwise-booking');

const heading = (page: Page, text: string | RegExp) =>
  widget(page).locator('[tabindex="-1"]', { hasText: text }).waitFor();

/** The hosted page at `url`, its default party chosen and then the second bookable day shown. */
async function openSecondDay(page: Page, url: string) {
  await page.goto(url);
  await heading(page, 'Make a booking');
  await widget(page).getByRole('button', { name: 'Continue' }).click();
  await widget(page).locator('.cal button:not([disabled])').nth(1).click();
}

async function shoot(page: Page, name: string) {
  if (!SCREENSHOTS) return;
  mkdirSync(SHOTS_DIR, { recursive: true });
  await widget(page).screenshot({ path: new URL(`${name}.png`, SHOTS_DIR).pathname });
}

/** A step seen: no axe violation there, and its picture when asked for. */
async function step(page: Page, name: string) {
  await axeClean(page, name);
  await shoot(page, name);
}

/** Opens the month of `date` with the keyboard, then a day matching `label` (Enter unless `press` is false). */
async function tabToDay(page: Page, date: string, label: RegExp, press = true) {
  const month = await widget(page).locator('#sw-month').textContent();
  const wanted = new Date(`${date}T12:00:00Z`).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
  if (!month?.includes(wanted) && (await page.evaluate('document.documentElement.lang')) === 'en') {
    await tabTo(page, /^Next month$/);
    await page.keyboard.press('Enter');
    await widget(page).locator('#sw-month', { hasText: wanted }).waitFor();
  }
  await tabTo(page, label);
  if (press) await page.keyboard.press('Enter');
}

/** How the widget names a day in English: "Thursday, November 26, 2026". */
const englishDay = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
  });

/** What the page's listener recorded (the widget's events, or the messages of a frame). */
const events = (page: Page) => page.evaluate<unknown[]>('window.events');

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport: { width: 520, height: 900 }, ...options });
  return [context, await context.newPage()];
}

describe('the <slotwise-booking> widget on another site', { skip }, () => {
  it('books a slot with the keyboard alone, accessible at every step', async () => {
    const venue = await openVenue('Chez Clavier', [host.origin]);
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      const date = addDays(todayIn(VENUE_ZONE, Date.now()), 3);
      await page.goto(embed('/keyboard', venue, 'lang="en"'));
      await heading(page, 'Make a booking');
      await step(page, '1-party');

      await tabTo(page, /^Number of guests$/);
      await page.keyboard.press('ArrowDown');
      await tabTo(page, /^Continue$/);
      await page.keyboard.press('Enter');
      await heading(page, 'Choose a day');
      await step(page, '2-day');

      // The first open day by Tab, then the arrow keys to the day wanted.
      await tabToDay(page, date, /^\w+, \w+ \d+, \d{4}$/, false);
      for (let i = 0; i < 40 && (await focusedLabel(page)) !== englishDay(date); i++) {
        await page.keyboard.press('ArrowRight');
      }
      assert.equal(await focusedLabel(page), englishDay(date));
      await page.keyboard.press('Enter');
      await heading(page, 'Choose a time');
      await tabTo(page, /^7:30 PM$/);
      await page.keyboard.press('Enter');
      assert.equal(await widget(page).locator('[aria-pressed=true]').textContent(), '7:30 PM');
      await step(page, '3-time');

      await tabTo(page, /^Continue$/);
      await page.keyboard.press('Enter');
      await heading(page, 'Your details');
      for (const [label, value] of [
        [/^First name$/, 'Ada'],
        [/^Last name$/, 'Lovelace'],
        [/^Email$/, 'ada@example.com'],
        [/^Phone$/, '+33 1 23 45 67 89'],
      ] as const) {
        await tabTo(page, label);
        await page.keyboard.type(value);
      }
      await step(page, '4-details');
      await tabTo(page, /^Book$/);
      await page.keyboard.press('Enter');
      await heading(page, 'Your booking is confirmed');
      await step(page, '6-confirmed');

      const code = (await widget(page).locator('.code').textContent())!.trim();
      assert.equal(
        await widget(page)
          .getByRole('link', { name: 'View, change or cancel your booking' })
          .getAttribute('href'),
        `${api}/book/${venue.tenant.slug}?lang=en&manage=${code}`,
      );
      const listed = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings?code=${code}`,
        headers: venue.tenant.headers,
      });
      const [booking] = listed.json().items;
      assert.equal(booking.booking_date, date);
      assert.equal(booking.start_time, '19:30');
      assert.equal(booking.capacity, 3);
      assert.equal(booking.status, 'confirmed');
      assert.deepEqual(await events(page), [
        {
          type: 'slotwise:booked',
          detail: {
            confirmation_code: code,
            status: 'confirmed',
            booking_date: date,
            start_time: '19:30',
            capacity: 3,
            starts_at: booking.starts_at,
          },
        },
      ]);
    } finally {
      await context.close();
    }
  });

  it('offers the waitlist on a fully booked day', async () => {
    const venue = await openVenue('Chez Complet', [host.origin]);
    const date = addDays(todayIn(VENUE_ZONE, Date.now()), 2);
    const resources = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/resources',
      headers: venue.tenant.headers,
    });
    const blocked = await ctx.app.inject({
      method: 'POST',
      url: `/v1/manage/resources/${resources.json().items[0].id}/blocks`,
      headers: venue.tenant.headers,
      payload: { start_at: `${date}T00:00:00+01:00`, end_at: `${addDays(date, 1)}T00:00:00+01:00` },
    });
    assert.equal(blocked.statusCode, 201, blocked.body);
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      await page.goto(embed('/full', venue, 'lang="en" party-max="4"'));
      await heading(page, 'Make a booking');
      await tabTo(page, /^Continue$/);
      await page.keyboard.press('Enter');
      await heading(page, 'Choose a day');
      await tabToDay(page, date, /fully booked, join the waitlist$/);
      await heading(page, 'This day is fully booked');
      await tabTo(page, /^First name$/);
      await page.keyboard.type('Grace');
      await tabTo(page, /^Last name$/);
      await page.keyboard.type('Hopper');
      await tabTo(page, /^Phone$/);
      await page.keyboard.type('+33 6 12 34 56 78');
      await step(page, '7-waitlist');
      await tabTo(page, /^Join the waitlist$/);
      await page.keyboard.press('Enter');
      await heading(page, 'You are on the waitlist, number 1.');
      await step(page, '8-waitlisted');

      const entries = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/waitlist?preferred_date=${date}`,
        headers: venue.tenant.headers,
      });
      const [entry] = entries.json().items;
      assert.equal(entry.preferred_date, date);
      assert.equal(entry.capacity, 2);
    } finally {
      await context.close();
    }
  });

  it("says why a day is greyed: the closed day's words to guests, under the month and in its name", async () => {
    const venue = await openVenue('Chez Fermé', [host.origin]);
    const date = addDays(todayIn(VENUE_ZONE, Date.now()), 3);
    await send(ctx.app, venue.tenant, 'POST', '/v1/manage/blackout-dates', {
      start_date: date,
      end_date: date,
      reason: 'Staff party',
    });
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      await page.goto(embed('/closed-day', venue, 'lang="en"'));
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await heading(page, 'Choose a day');
      if (date.slice(0, 7) !== todayIn(VENUE_ZONE, Date.now()).slice(0, 7)) {
        await widget(page).getByRole('button', { name: 'Next month' }).click();
      }
      const closed = widget(page).locator(`[data-date="${date}"]`);
      assert.equal(await closed.getAttribute('aria-label'), `${englishDay(date)}, closed: Staff party`);
      assert.ok(await closed.isDisabled());
      await widget(page)
        .getByRole('listitem')
        .filter({ hasText: /: Staff party$/ })
        .waitFor();
      await axeClean(page, 'a closed day said');
      // On a phone the hosted page's month fits its card: no day reaches past the card's edge.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${api}/book/${venue.tenant.slug}?lang=en`);
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await heading(page, 'Choose a day');
      const overflow = await page.evaluate<number>(
        `(() => { const month = document.querySelector('slotwise-booking').shadowRoot.querySelector('.cal');
          return month.scrollWidth - month.clientWidth; })()`,
      );
      assert.equal(overflow, 0, `the month's days reach ${overflow} px past it`);
    } finally {
      await context.close();
    }
  });

  it('takes a deposit through the processor’s test page, then confirms', async () => {
    const venue = await openVenue('Chez Acompte', [host.origin], { deposit_type: 'charge' });
    const date = addDays(todayIn(VENUE_ZONE, Date.now()), 4);
    const [context, page] = await newPage({ locale: 'en-US' });
    // Time flows as usual, but the wait for the widget's next check of the payment can be skipped.
    await context.clock.install();
    try {
      await page.goto(embed('/deposit', venue, 'lang="en"'));
      await heading(page, 'Make a booking');
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await heading(page, 'Choose a day');
      await tabToDay(page, date, new RegExp(`^${englishDay(date)}$`));
      await heading(page, 'Choose a time');
      await widget(page).getByRole('button', { name: '1:00 PM' }).click();
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await widget(page).getByLabel('First name').fill('Mary');
      await widget(page).getByLabel('Last name').fill('Somerville');
      await widget(page).getByLabel('Email').fill('mary@example.com');
      await widget(page).getByLabel('Phone').fill('+33 1 98 76 54 32');
      await widget(page).getByRole('button', { name: 'Book' }).click();
      await heading(page, /^Deposit: €/);
      await step(page, '5-deposit');

      const [checkout] = await Promise.all([
        context.waitForEvent('page'),
        widget(page).getByRole('link', { name: 'Pay the deposit' }).click(),
      ]);
      await checkout.getByRole('button', { name: 'Pay', exact: true }).click();
      await checkout.getByText('succeeded').waitFor();
      // The widget checks the payment every 8 s (PAYMENT_POLL_MS) while the guest pays elsewhere.
      await context.clock.fastForward(8000);
      await heading(page, 'Your booking is confirmed');
      const [{ detail }] = (await events(page)) as [{ detail: { status: string } }];
      assert.equal(detail.status, 'confirmed');
    } finally {
      await context.close();
    }
  });

  it('shows French dates and times in the venue’s zone, whatever the browser’s zone', async () => {
    const venue = await openVenue('Chez Fuseau', [host.origin]);
    // 13 hours ahead of Paris: a time shown in the visitor's zone would read 08:00 or so.
    const [context, page] = await newPage({ locale: 'en-US', timezoneId: 'Pacific/Auckland' });
    try {
      const date = addDays(todayIn(VENUE_ZONE, Date.now()), 1);
      await page.goto(embed('/fr', venue, '', 'fr'));
      await heading(page, 'Faire une réservation');
      await widget(page).getByRole('button', { name: 'Continuer' }).click();
      await heading(page, 'Choisissez un jour');
      const frenchDay = new Intl.DateTimeFormat('fr', {
        timeZone: 'UTC',
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      }).format(new Date(`${date}T12:00:00Z`));
      const month = new Intl.DateTimeFormat('fr', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(
        new Date(`${date}T12:00:00Z`),
      );
      if ((await widget(page).locator('#sw-month').textContent()) !== month) {
        await widget(page).getByRole('button', { name: 'Mois suivant' }).click();
      }
      await widget(page).locator('#sw-month', { hasText: month }).waitFor();
      await widget(page).getByRole('button', { name: frenchDay, exact: true }).click();
      await heading(page, 'Choisissez une heure');
      await widget(page).getByText(frenchDay).waitFor();
      await widget(page)
        .getByText(/^Heures : heure .*Europe centrale/)
        .waitFor();
      assert.equal(await widget(page).locator('[data-act=slot]').first().textContent(), '12:00');
      await step(page, 'fr-time');
      await widget(page).getByRole('button', { name: '20:00' }).click();
      await widget(page).getByRole('button', { name: 'Continuer' }).click();
      await widget(page).getByLabel('Prénom').fill('Émilie');
      await widget(page).getByLabel('Nom', { exact: true }).fill('du Châtelet');
      await widget(page).getByLabel('E-mail').fill('emilie@example.com');
      await widget(page).getByLabel('Téléphone').fill('+33 1 11 22 33 44');
      await widget(page).getByRole('button', { name: 'Réserver' }).click();
      await heading(page, 'Votre réservation est confirmée');
      await widget(page).getByText(`${frenchDay} à 20:00 UTC+1`).waitFor();
      await step(page, 'fr-confirmed');
    } finally {
      await context.close();
    }
  });

  it('offers party sizes up to the online limit, then tells larger groups to call, in the page’s language', async () => {
    const phone = '+33 1 23 45 67 89';
    const calling = await openVenue('Chez Groupe', [host.origin], {
      max_capacity: 10,
      max_online_party_size: 6,
      phone,
    });
    const writing = await openVenue('Zur Gruppe', [host.origin], {
      max_capacity: 10,
      max_online_party_size: 5,
    });
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      await page.goto(embed('/groups', calling, 'lang="en"'));
      await heading(page, 'Make a booking');
      const sizes = await widget(page).locator('#sw-party option').allTextContents();
      assert.deepEqual(sizes, ['1', '2', '3', '4', '5', '6']);
      const line = widget(page).locator('#sw-larger');
      assert.equal((await line.textContent())?.trim(), `For larger groups, call us: ${phone}`);
      const link = widget(page).getByRole('link', { name: phone });
      assert.equal(await link.getAttribute('href'), 'tel:+33123456789');
      assert.equal(await widget(page).locator('#sw-party').getAttribute('aria-describedby'), 'sw-larger');
      await axeClean(page, 'party with a limit online');
      await widget(page).screenshot({ path: '/tmp/widget-larger-groups.png' });

      await page.goto(embed('/gruppen', writing, '', 'de'));
      await heading(page, 'Jetzt buchen');
      assert.equal(await widget(page).locator('#sw-party option').count(), 5);
      assert.equal(
        (await widget(page).locator('#sw-larger').textContent())?.trim(),
        'Für größere Gruppen kontaktieren Sie uns bitte.',
      );
      assert.equal(await widget(page).locator('#sw-larger a').count(), 0);
      await axeClean(page, 'party with a limit online, no phone');
      await widget(page).screenshot({ path: '/tmp/widget-larger-groups-de.png' });
    } finally {
      await context.close();
    }
  });

  it('is refused with a publishable key that does not allow the page’s origin, and tells the developer why', async () => {
    const venue = await openVenue('Chez Ailleurs', ['https://elsewhere.example']);
    // Another venue's key lists this site, so CORS lets the page read the API's refusal. An origin
    // that no key lists is refused by the browser itself, which says so in the console.
    await openVenue('Chez Voisin', [host.origin]);
    const [context, page] = await newPage({ locale: 'en-US' });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().startsWith('slotwise:')) errors.push(message.text());
    });
    try {
      await page.goto(embed('/elsewhere', venue, 'lang="en"'));
      await widget(page).getByRole('alert').getByText('Online booking is unavailable right now.').waitFor();
      assert.equal(
        await widget(page)
          .getByText(/try again/i)
          .count(),
        0,
      );
      const [event] = (await events(page)) as [{ type: string; detail: { code: string } }];
      assert.equal(event.type, 'slotwise:error');
      assert.equal(event.detail.code, 'origin_not_allowed');
      assert.deepEqual(errors, [
        `slotwise: origin_not_allowed: the publishable key does not allow the origin ${host.origin}`,
      ]);
      assert.equal(await widget(page).getByText('Chez Ailleurs').count(), 0);

      errors.length = 0;
      await page.goto(embed('/revoked', { ...venue, key: 'svc_pk_live_unknown' }, 'lang="de"'));
      await widget(page).getByText('Online-Buchungen sind gerade nicht möglich.').waitFor();
      assert.deepEqual(errors, ['slotwise: invalid_token: the API key is unknown or revoked']);
    } finally {
      await context.close();
    }
  });
});

describe('the hosted booking page /book/{slug}', { skip }, () => {
  /** A page of the other site framing the venue's hosted page, recording the messages it hears. */
  const framing = (path: string, venue: Venue) =>
    host.pages.set(
      path,
      `<!doctype html><html lang="en"><head><title>Framed</title></head><body><main><h1>Book with us</h1>
<iframe title="Booking" src="${api}/book/${venue.tenant.slug}?lang=en" width="500" height="800"></iframe></main>
<script>window.events = []; addEventListener('message', (e) => events.push({ origin: e.origin, data: e.data }));</script></body></html>`,
    );

  it('books in an iframe of a site its key lists, which alone hears of it by postMessage', async () => {
    const venue = await openVenue('Chez Cadre', ['https://other.example', host.origin]);
    framing('/framed', venue);
    const [context, page] = await newPage({ viewport: { width: 560, height: 900 } });
    try {
      await page.goto(`${host.origin}/framed`);
      const frame = page.frameLocator('iframe');
      const booking = frame.locator('slotwise-booking');
      await booking.getByRole('button', { name: 'Continue' }).waitFor();
      // Records the target origin of each message the page posts, then posts it as it would.
      const hosted = page.frames().find((f) => f.url().startsWith(`${api}/book/`))!;
      await hosted.evaluate(`(() => {
        const parent = window.parent;
        window.targets = [];
        Object.defineProperty(window, 'parent', {
          configurable: true,
          value: { postMessage: (message, target) => { window.targets.push(target); parent.postMessage(message, target); } },
        });
      })()`);
      await booking.getByRole('button', { name: 'Continue' }).click();
      await booking.locator('.cal button:not([disabled])').nth(1).click();
      await booking.locator('[data-act=slot]').first().click();
      await booking.getByRole('button', { name: 'Continue' }).click();
      await booking.getByLabel('First name').fill('Hedy');
      await booking.getByLabel('Last name').fill('Lamarr');
      await booking.getByLabel('Email').fill('hedy@example.com');
      await booking.getByLabel('Phone').fill('+33 1 55 66 77 88');
      // The venue's news only by the guest's own tick: the box comes unticked.
      const consent = booking.getByLabel('Send me news and offers from Chez Cadre (optional)');
      assert.equal(await consent.isChecked(), false);
      await consent.check();
      await booking.getByRole('button', { name: 'Book' }).click();
      await booking.getByRole('heading', { name: 'Your booking is confirmed' }).waitFor();
      await axeClean(page, 'hosted page in a frame');
      const code = (await booking.locator('.code').textContent())!.trim();
      const [guest] = (await send(ctx.app, venue.tenant, 'GET', '/v1/manage/customers?search=Lamarr')).items;
      assert.equal(guest.marketing_opt_in, true);
      await untilInPage(page, 'window.events.length > 0');
      const [message, ...more] = (await events(page)) as [
        { origin: string; data: { type: string; detail: object } },
      ];
      assert.equal(message.origin, api);
      assert.equal(message.data.type, 'slotwise:booked');
      assert.equal((message.data.detail as { confirmation_code: string }).confirmation_code, code);
      assert.deepEqual(more, []);
      assert.deepEqual(
        await hosted.evaluate('window.targets'),
        [host.origin],
        'posted to the parent origin only',
      );
    } finally {
      await context.close();
    }
  });

  it('is not shown in an iframe of a site no active key lists', async () => {
    const venue = await openVenue('Chez Ailleurs Encadré', [host.origin]);
    framing('/framed-elsewhere', venue);
    // The same site under another name is another origin, one the venue's key does not list.
    const unlisted = host.origin.replace('localhost', '127.0.0.1');
    const [context, page] = await newPage();
    try {
      const refusal = page.waitForEvent('console', { predicate: (m) => /frame-ancestors/.test(m.text()) });
      await page.goto(`${unlisted}/framed-elsewhere`);
      const text = (await refusal).text();
      assert.ok(text.includes(`'${api}/'`) && text.includes(`frame-ancestors 'self' ${host.origin}`), text);
      const hosted = page.frames().find((f) => f.url().startsWith(`${api}/book/`));
      assert.equal((await hosted?.locator('slotwise-booking').count()) ?? 0, 0, 'the page is not rendered');
      assert.deepEqual(await events(page), []);
    } finally {
      await context.close();
    }
  });

  it('answers an unknown venue with a page a browser shows', async () => {
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      const response = await page.goto(`${api}/book/no-such-venue`);
      assert.equal(response?.status(), 404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('books on the page reached by another name of the server than its public URL', async () => {
    const venue = await openVenue('Chez Alias', [host.origin]);
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      // The public URL names 127.0.0.1; a guest may reach the same server as localhost.
      await openSecondDay(page, `${api.replace('127.0.0.1', 'localhost')}/book/${venue.tenant.slug}`);
      await widget(page).locator('[data-act=slot]').first().click();
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await widget(page).getByLabel('First name').fill('Katherine');
      await widget(page).getByLabel('Last name').fill('Johnson');
      await widget(page).getByLabel('Email').fill('katherine@example.com');
      await widget(page).getByLabel('Phone').fill('+33 1 44 55 66 77');
      await widget(page).getByRole('button', { name: 'Book' }).click();
      await heading(page, 'Your booking is confirmed');
    } finally {
      await context.close();
    }
  });

  it("shows a bistro's lunch and dinner times under the periods' names, accessible, by keyboard", async () => {
    const venue = await openVenue('Bistro Deux Services', [host.origin]);
    const dinnerName = 'Dinner <i>& bar</i>';
    const periods = await ctx.app.inject({
      method: 'PUT',
      url: '/v1/manage/service-periods',
      headers: venue.tenant.headers,
      payload: [
        { name: 'Lunch', days_of_week: [0, 1, 2, 3, 4, 5, 6], start_time: '12:00', end_time: '14:30' },
        { name: dinnerName, days_of_week: [0, 1, 2, 3, 4, 5, 6], start_time: '18:00', end_time: '22:00' },
      ],
    });
    assert.equal(periods.statusCode, 200, periods.body);
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      await openSecondDay(page, `${api}/book/${venue.tenant.slug}?lang=en`);
      await heading(page, 'Choose a time');
      const times = (group: string) =>
        widget(page)
          .getByRole('group', { name: group, exact: true })
          .locator('[data-act=slot]')
          .allTextContents();
      assert.deepEqual(
        await widget(page).getByRole('heading', { level: 3 }).allTextContents(),
        ['Lunch', dinnerName],
        'one heading a period, a level below the step heading (h2 on the hosted page), in order',
      );
      assert.deepEqual(await times('Lunch'), ['12:00 PM', '12:30 PM', '1:00 PM', '1:30 PM']);
      assert.deepEqual(await times(dinnerName), [
        '6:00 PM',
        '6:30 PM',
        '7:00 PM',
        '7:30 PM',
        '8:00 PM',
        '8:30 PM',
        '9:00 PM',
      ]);
      assert.equal(await widget(page).locator('i').count(), 0, "the venue's text is escaped");
      await axeClean(page, 'times grouped by period');
      await widget(page).screenshot({ path: '/tmp/slotwise-periods.png' });

      await tabTo(page, /^6:30 PM$/);
      await page.keyboard.press('Enter');
      assert.equal(await widget(page).locator('[aria-pressed=true]').textContent(), '6:30 PM');
    } finally {
      await context.close();
    }
  });

  it("reads times on the venue's 24-hour clock in English when its time_format says so", async () => {
    const venue = await openVenue('Bistro Vingt-Quatre', [host.origin]);
    const changed = await ctx.app.inject({
      method: 'PATCH',
      url: '/v1/manage/settings',
      headers: venue.tenant.headers,
      payload: { time_format: '24h' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const [context, page] = await newPage({ locale: 'en-US' });
    try {
      await openSecondDay(page, `${api}/book/${venue.tenant.slug}?lang=en`);
      await heading(page, 'Choose a time');
      const times = await widget(page).locator('[data-act=slot]').allTextContents();
      assert.ok(times.includes('19:00'), times.join(' '));
      assert.ok(
        times.every((time) => /^\d{2}:\d{2}$/.test(time)),
        times.join(' '),
      );
    } finally {
      await context.close();
    }
  });

  /** Alan Turing's booking of two, five days ahead at 13:00, made by the venue. */
  async function alansBooking(venue: Venue, phone: string) {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/bookings',
      headers: venue.tenant.headers,
      payload: {
        business_id: venue.tenant.businessId,
        booking_date: addDays(todayIn(VENUE_ZONE, Date.now()), 5),
        start_time: '13:00',
        capacity: 2,
        first_name: 'Alan',
        last_name: 'Turing',
        email: 'alan@example.com',
        phone,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().booking;
  }

  it('lets the guest find and cancel a booking with its code and email', async () => {
    const venue = await openVenue('Chez Retour', [host.origin]);
    const { id, confirmation_code: code } = await alansBooking(venue, '+44 20 7946 0000');
    const [context, page] = await newPage({ locale: 'en-GB' });
    try {
      await page.goto(`${api}/book/${venue.tenant.slug}?lang=en&manage=${code}`);
      await heading(page, 'View, change or cancel your booking');
      assert.equal(await widget(page).getByLabel('Confirmation code').inputValue(), code);
      await widget(page).getByLabel('Email or phone given when booking').fill('someone@example.com');
      await widget(page).getByRole('button', { name: 'Find my booking' }).click();
      await widget(page).getByText('No booking matches these details.').waitFor();

      await widget(page).getByLabel('Email or phone given when booking').fill('alan@example.com');
      await widget(page).getByRole('button', { name: 'Find my booking' }).click();
      await widget(page).getByRole('button', { name: 'Cancel the booking' }).waitFor();
      await step(page, '9-manage');
      // Cancelling asks first; "Keep it" keeps it.
      await widget(page).getByRole('button', { name: 'Cancel the booking' }).click();
      await widget(page).getByText('Cancel this booking? The venue is told.').waitFor();
      await axeClean(page, 'cancel asked');
      await widget(page).getByRole('button', { name: 'Keep it' }).click();
      await widget(page).getByRole('button', { name: 'Cancel the booking' }).click();
      await widget(page).getByRole('button', { name: 'Yes, cancel it' }).click();
      await heading(page, 'Your booking is cancelled');
      await axeClean(page, 'cancelled');
      const booking = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings/${id}`,
        headers: venue.tenant.headers,
      });
      assert.equal(booking.json().status, 'cancelled');
    } finally {
      await context.close();
    }
  });

  it('lets the guest move their booking to another time and a bigger party, and says when it is too late', async () => {
    const venue = await openVenue('Chez Change', [host.origin]);
    const {
      id,
      confirmation_code: code,
      starts_at: startsAt,
      booking_date: day,
    } = await alansBooking(venue, '+44 20 7946 0001');
    const [context, page] = await newPage({ locale: 'en-GB' });
    try {
      await page.goto(`${api}/book/${venue.tenant.slug}?lang=en&manage=${code}`);
      await widget(page).getByLabel('Email or phone given when booking').fill('alan@example.com');
      await widget(page).getByRole('button', { name: 'Find my booking' }).click();
      await widget(page).getByRole('button', { name: 'Change date, time or party' }).click();
      await widget(page).getByLabel('Number of guests').selectOption('4');
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await widget(page).locator(`[data-date="${day}"]`).click();
      await widget(page).getByRole('button', { name: '6:00 PM' }).click();
      await axeClean(page, 'a new time for the booking');
      await widget(page).getByRole('button', { name: 'Change the booking' }).click();
      await widget(page).getByText('Your booking was changed.').waitFor();
      await widget(page)
        .getByText(/6:00 PM.* · Number of guests: 4/)
        .waitFor();
      await axeClean(page, 'changed');
      await page.screenshot({ path: screenshotPath('hosted-page-changed.png') });
      const stored = (
        await ctx.app.inject({
          method: 'GET',
          url: `/v1/manage/bookings/${id}`,
          headers: venue.tenant.headers,
        })
      ).json();
      assert.equal(stored.start_time, '18:00');
      assert.equal(stored.capacity, 4);

      // Inside the venue's change cut-off, the guest is told to call instead.
      await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: venue.tenant.headers,
        payload: { guest_change_cutoff_hours: 720 },
      });
      await page.reload();
      await widget(page).getByLabel('Email or phone given when booking').fill('alan@example.com');
      await widget(page).getByRole('button', { name: 'Find my booking' }).click();
      await widget(page)
        .getByText('This booking can no longer be changed online. Please contact the venue.')
        .waitFor();
      assert.equal(await widget(page).getByRole('button', { name: 'Change date, time or party' }).count(), 0);
      assert.ok(Date.parse(startsAt) > Date.now());
    } finally {
      await context.close();
    }
  });
});
