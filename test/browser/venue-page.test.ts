// test lane: system
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import ical, { type VEvent } from 'node-ical';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bookingUid } from '../../src/engine/calendar-uid.ts';
import { setupBookable } from '../booking-fixtures.ts';
import { axeClean, browserSkipReason, launchBrowser, screenshotPath, untilInPage } from '../browser.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, type Tenant, type TestContext } from '../helpers.ts';

/**
 * The hosted page as a guest meets the venue: its header (logo, description, contact, policy),
 * the confirmation's emailed line and calendar file, and the deposit step's terms.
 * Its pictures, hosted-page.png and hosted-page-phone.png, go to docs/screenshots/ with
 * UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const LOGO_URL = 'https://cdn.bistro.example/logo.svg';
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 56 56"><rect width="56" height="56" rx="12" fill="#7a2e1d"/><text x="28" y="37" font-family="Georgia,serif" font-size="24" fill="#fff" text-anchor="middle">PB</text></svg>`;

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
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/** A venue open 12:00-22:00 every day with one table for 1-4 and these settings. */
async function openVenue(name: string, settings: Record<string, unknown>, sandbox = false): Promise<Tenant> {
  const { tenant } = await setupBookable(ctx.app, {
    name,
    sandbox,
    settings: { timezone: 'Europe/Paris', min_notice_hours: 0, max_capacity: 4, ...settings },
    open: '12:00',
    close: '22:00',
    resources: [{ name: 'Table 1', capacity_min: 1, capacity_max: 4 }],
  });
  return tenant;
}

const NAME = 'Le Petit Bistro';
const HOSTILE_NAME = `Le "Petit" <script>window.injected = 1</script> Bistro`;
const PROFILE = {
  description: "Wood-fired cooking & natural wines, in the chef's own words.\nOpen since 1998.",
  address: 'Rue de la Paix 1, 75002 Paris',
  phone: '+33 1 23 45 67 89',
  public_email: 'hello@bistro.example',
  website: 'https://www.bistro.example/menu',
  logo_url: LOGO_URL,
  booking_policy: 'Tables are held for 15 minutes.\nCancel up to 24 hours ahead at no cost.',
};

const widget = (page: Page) => page.locator('slotwise-booking');
const heading = (page: Page, text: string | RegExp) =>
  widget(page).locator('[tabindex="-1"]', { hasText: text }).waitFor();

async function newPage(viewport = { width: 1280, height: 800 }): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport, locale: 'en-US' });
  // The venue's logo lives on its own https site; the test serves it.
  await context.route(`${LOGO_URL}*`, (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO }));
  return [context, await context.newPage()];
}

/** Books the second open day's first time on the hosted page, as `email`. */
async function bookFirstTime(page: Page, email: string) {
  await widget(page).getByRole('button', { name: 'Continue' }).click();
  await widget(page).locator('.cal button:not([disabled])').nth(1).click();
  await widget(page).locator('[data-act=slot]').first().click();
  await widget(page).getByRole('button', { name: 'Continue' }).click();
  await widget(page).getByLabel('First name').fill('Ada');
  await widget(page).getByLabel('Last name').fill('Lovelace');
  await widget(page).getByLabel('Email').fill(email);
  await widget(page).getByLabel('Phone').fill('+33 1 98 76 54 32');
  await widget(page).getByRole('button', { name: 'Book' }).click();
}

const logoLoaded = (page: Page) =>
  untilInPage(
    page,
    `document.querySelector('slotwise-booking').shadowRoot.querySelector('img.logo')?.naturalWidth > 0`,
  );

describe('the hosted page with a face', { skip }, () => {
  it("shows the venue's logo, description, address, contact and policy, accessible on a desk and a phone", async () => {
    const venue = await openVenue(NAME, PROFILE);
    const [context, page] = await newPage();
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      const booking = widget(page);
      await booking.getByRole('heading', { level: 1, name: NAME, exact: true }).waitFor();
      assert.equal(await page.title(), NAME);
      const logo = booking.getByRole('img', { name: NAME, exact: true });
      assert.equal(await logo.getAttribute('src'), LOGO_URL);
      await logoLoaded(page);
      assert.ok(await booking.getByText(/^Wood-fired cooking & natural wines/).isVisible());
      assert.ok(await booking.getByText(PROFILE.address, { exact: true }).isVisible());
      const phone = booking.getByRole('link', { name: PROFILE.phone });
      assert.equal(await phone.getAttribute('href'), 'tel:+33123456789');
      const email = booking.getByRole('link', { name: PROFILE.public_email });
      assert.equal(await email.getAttribute('href'), `mailto:${PROFILE.public_email}`);
      const site = booking.getByRole('link', { name: 'www.bistro.example' });
      assert.equal(await site.getAttribute('href'), PROFILE.website);
      assert.match((await site.getAttribute('rel')) ?? '', /\bnoopener\b/);

      const policy = booking.getByText('Tables are held for 15 minutes.');
      assert.equal(await policy.isVisible(), false, 'the policy is folded');
      await booking.getByText('Booking policy').click();
      await policy.waitFor();
      await axeClean(page, 'desktop');
      await page.screenshot({ path: screenshotPath('hosted-page.png'), fullPage: true });

      await page.setViewportSize({ width: 390, height: 844 });
      await axeClean(page, 'phone');
      await page.screenshot({ path: screenshotPath('hosted-page-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it("keeps the venue's own words as text: markup and quotes are shown, never run", async () => {
    const venue = await openVenue(HOSTILE_NAME, {
      description: `Wood-fired <b>cooking</b> & 'natural' "wines" <img src=x onerror="window.injected = 2">`,
      logo_url: `${LOGO_URL}?a="b"&c=<d>`,
      booking_policy: '</details><script>window.injected = 3</script>',
    });
    const [context, page] = await newPage({ width: 390, height: 844 });
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      const booking = widget(page);
      await booking.getByRole('heading', { level: 1, name: HOSTILE_NAME, exact: true }).waitFor();
      assert.equal(await page.title(), HOSTILE_NAME);
      assert.equal(await booking.getByRole('img', { name: HOSTILE_NAME, exact: true }).count(), 1);
      await booking.getByText(`Wood-fired <b>cooking</b> & 'natural' "wines" <img`).waitFor();
      await booking.getByText('Booking policy').click();
      await booking.getByText('</details><script>window.injected = 3</script>').waitFor();
      assert.equal(await booking.locator('b, script, img:not(.logo)').count(), 0);
      assert.equal(await page.evaluate('window.injected'), undefined);
      await axeClean(page, 'hostile profile');
    } finally {
      await context.close();
    }
  });

  it('shows only what the venue gives, and a sandbox in test mode', async () => {
    const venue = await openVenue('Chez Sobre', {}, true);
    const [context, page] = await newPage({ width: 390, height: 844 });
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      // The widget's own banner; the page's copy, for before the script runs, is not shown beside it.
      const banner = page.getByText('Test mode: this is a sandbox, bookings made here are not real.');
      await widget(page)
        .locator('.sw')
        .getByRole('status')
        .filter({ hasText: /^Test mode/ })
        .waitFor();
      assert.deepEqual(await banner.evaluateAll((all) => all.map((p) => p.checkVisibility())), [false, true]);
      assert.equal(await widget(page).locator('img, address, details, .about').count(), 0);
      await axeClean(page, 'sandbox without a profile');
    } finally {
      await context.close();
    }
  });

  it('confirms with the email it was sent to and a calendar file of the booking', async () => {
    const venue = await openVenue('Chez Calendrier', { address: 'Quai de Conti 23, 75006 Paris' });
    const [context, page] = await newPage({ width: 390, height: 844 });
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      await bookFirstTime(page, 'ada@example.com');
      await heading(page, 'Your booking is confirmed');
      await widget(page).getByText("We've emailed your confirmation to ada@example.com.").waitFor();
      await axeClean(page, 'confirmed');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        widget(page).getByRole('link', { name: 'Add to calendar' }).click(),
      ]);
      const code = (await widget(page).locator('.code').textContent())!.trim();
      assert.equal(download.suggestedFilename(), `booking-${code}.ics`);
      const file = readFileSync(await download.path(), 'utf8');
      const [event] = Object.values(ical.sync.parseICS(file)).filter(
        (component): component is VEvent => component?.type === 'VEVENT',
      );
      const listed = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings?code=${code}`,
        headers: venue.headers,
      });
      const [booking] = listed.json().items;
      assert.equal(event!.uid, bookingUid(booking.id, '127.0.0.1'), "the emailed invite's UID");
      assert.equal(event!.start.toISOString(), new Date(booking.starts_at).toISOString());
      assert.equal(event!.end?.toISOString(), new Date(booking.ends_at).toISOString());
      assert.equal(event!.summary, 'Chez Calendrier, Number of guests: 2');
      assert.equal(event!.location, 'Quai de Conti 23, 75006 Paris');
    } finally {
      await context.close();
    }
  });

  it('does not speak of an email the venue does not send', async () => {
    const venue = await openVenue('Chez Silence', { guest_emails_enabled: false });
    const [context, page] = await newPage();
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      await bookFirstTime(page, 'grace@example.com');
      await heading(page, 'Your booking is confirmed');
      await widget(page).getByRole('link', { name: 'Add to calendar' }).waitFor();
      assert.equal(
        await widget(page)
          .getByText(/emailed/)
          .count(),
        0,
      );
    } finally {
      await context.close();
    }
  });

  it('states the deposit per person and in all, how long the table is held, and the policy, in French too', async () => {
    const venue = await openVenue(
      'Chez Acompte',
      {
        deposit_type: 'charge',
        default_deposit_amount_cents: 450,
        payment_hold_minutes: 45,
        booking_policy: 'No-shows forfeit the deposit.',
      },
      true,
    );
    const [context, page] = await newPage({ width: 390, height: 844 });
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en`);
      await heading(page, 'Make a booking');
      await bookFirstTime(page, 'mary@example.com');
      await heading(page, 'Deposit: €9.00');
      await widget(page).getByText('€4.50 per person × 2 = €9.00').waitFor();
      await widget(page)
        .getByText(
          'Your table is held for 45 minutes while you pay the deposit; unpaid after that, the booking is cancelled.',
        )
        .waitFor();
      await widget(page).getByRole('heading', { name: 'Booking policy' }).waitFor();
      assert.equal(
        await widget(page).locator('#sw-body').getByText('No-shows forfeit the deposit.').count(),
        1,
      );
      await axeClean(page, 'deposit');

      await page.goto(`${api}/book/${venue.slug}?lang=fr`);
      await heading(page, 'Faire une réservation');
      await widget(page).getByRole('button', { name: 'Continuer' }).click();
      await widget(page).locator('.cal button:not([disabled])').nth(1).click();
      await widget(page).locator('[data-act=slot]').first().click();
      await widget(page).getByRole('button', { name: 'Continuer' }).click();
      await widget(page).getByLabel('Prénom').fill('Émilie');
      await widget(page).getByLabel('Nom', { exact: true }).fill('du Châtelet');
      await widget(page).getByLabel('E-mail').fill('emilie@example.com');
      await widget(page).getByLabel('Téléphone').fill('+33 1 11 22 33 44');
      await widget(page).getByRole('button', { name: 'Réserver' }).click();
      await widget(page)
        .getByText(/^4,50\s€ par personne × 2 = 9,00\s€$/)
        .waitFor();
      await widget(page)
        .getByText(/réservée 45 minutes/)
        .waitFor();
      await widget(page).getByRole('heading', { name: 'Conditions de réservation' }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('the hosted page of a class', { skip }, () => {
  it('shows the places left under each time of a class, and books one', async () => {
    const venue = await openVenue('Studio Flow', { max_capacity: 4 });
    const yoga = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/services',
      headers: venue.headers,
      payload: { name: 'Yoga flow', duration_minutes: 60, seats: 3 },
    });
    assert.equal(yoga.statusCode, 201, yoga.body);
    const [context, page] = await newPage({ width: 390, height: 844 });
    try {
      await page.goto(`${api}/book/${venue.slug}?lang=en&service=${yoga.json().id}`);
      await heading(page, 'Make a booking');
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await widget(page).locator('.cal button:not([disabled])').nth(1).click();
      const first = widget(page).locator('[data-act=slot]').first();
      await first.waitFor();
      assert.match((await first.textContent()) ?? '', /3 places left/);
      await axeClean(page, 'a class of 3');
      await page.screenshot({ path: screenshotPath('hosted-page-class.png'), fullPage: true });
      await first.click();
      await widget(page).getByRole('button', { name: 'Continue' }).click();
      await widget(page).getByLabel('First name').fill('Ada');
      await widget(page).getByLabel('Last name').fill('Lovelace');
      await widget(page).getByLabel('Email').fill('ada@example.com');
      await widget(page).getByLabel('Phone').fill('+33 1 98 76 54 32');
      await widget(page).getByRole('button', { name: 'Book' }).click();
      await heading(page, 'Your booking is confirmed');
      // The widget's party of two took two of the class's three places.
      const booked = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: venue.headers,
      });
      assert.deepEqual(
        booked.json().items.map((b: { service_id: string; capacity: number }) => [b.service_id, b.capacity]),
        [[yoga.json().id, 2]],
      );
    } finally {
      await context.close();
    }
  });
});
