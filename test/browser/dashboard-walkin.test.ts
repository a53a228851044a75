// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addDays, todayIn, wallTimeToInstant } from '../../src/engine/time.ts';
import { dayLong, dayShort } from '../../widget/format.ts';
import { send, setupBookable } from '../booking-fixtures.ts';
import {
  axeClean,
  browserSkipReason,
  launchBrowser,
  screenshotPath,
  signIn,
  tabTo,
  untilInPage,
} from '../browser.ts';
import { connectPaymentAccount } from '../deposit-fixtures.ts';
import { freePort } from '../free-port.ts';
import { createTestApp, eventuallyRead, type Tenant, type TestContext } from '../helpers.ts';

/**
 * New bookings and the waitlist in a real browser against the real server: a phone booking at a
 * chosen free time, a walk-in now, a booking paid by a deposit link, a waitlist entry booked and
 * taken off the list, one removed and one added by phone. Pictures go to docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
const skip = browserSkipReason();
const ZONE = 'Europe/Paris';
const TABLET = { width: 1024, height: 768 };
const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 800 };

let ctx: TestContext;
let api: string;
let browser: Browser;
let today: string;

/** Open 11:00-23:00 every day in Paris on a 24-hour clock, three tables, deposits taken. */
async function openBistro(): Promise<Tenant> {
  const { tenant } = await setupBookable(ctx.app, {
    name: 'Bistro du Coin',
    settings: { timezone: ZONE, time_format: '24h' },
    resources: ['T1', 'T2', 'T3'].map((name) => ({ name, capacity_min: 2, capacity_max: 4 })),
    open: '11:00',
    close: '23:00',
  });
  // Deposits are taken once the business has a payment account.
  await connectPaymentAccount(ctx.app, tenant.businessId);
  await send(ctx.app, tenant, 'PATCH', '/v1/manage/settings', { deposit_type: 'charge' });
  return tenant;
}

const joinWaitlist = (tenant: Tenant, body: Record<string, unknown>) =>
  send(ctx.app, tenant, 'POST', `/v1/waitlist/${tenant.businessId}`, { preferred_date: today, ...body });

const bookingsOf = async (tenant: Tenant) =>
  (await send(ctx.app, tenant, 'GET', `/v1/manage/bookings?booking_date=${today}&limit=200`)).items as {
    id: string;
    start_time: string;
    capacity: number;
    status: string;
    source: string;
    customer_notes: string | null;
    customer: { first_name: string; last_name: string; phone: string };
    deposit: { status: string; type: string } | null;
  }[];

const waitlistOf = async (tenant: Tenant) =>
  (await send(ctx.app, tenant, 'GET', `/v1/manage/waitlist?preferred_date=${today}&limit=200`)).items as {
    customer: { last_name: string };
    capacity: number;
  }[];

before(async () => {
  if (skip) return;
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ publicBaseUrl: api });
  await ctx.app.listen({ host: '127.0.0.1', port });
  browser = await launchBrowser();
  today = todayIn(ZONE, Date.now());
});

after(async () => {
  if (skip) return;
  await browser.close();
  await ctx.close();
});

/**
 * A developer signed in on the dashboard; the browser's clock and the server's at `time` today in
 * Paris, whatever the hour the test runs at.
 */
async function signedIn(tenant: Tenant, viewport: typeof TABLET, time: string, locale = 'en-GB') {
  const context = await browser.newContext({ viewport, locale, timezoneId: 'America/New_York' });
  const page = await context.newPage();
  const now = wallTimeToInstant(today, time, ZONE)!;
  ctx.app.clock.now = () => now;
  await page.clock.setFixedTime(now);
  await page.goto(`${api}/staff/`);
  const lang = locale.slice(0, 2) as 'en' | 'de';
  await signIn(page, tenant.developer.email, tenant.developer.password, lang);
  await page.getByRole('heading', { level: 1, name: dayLong(lang, today) }).waitFor();
  return { page, close: () => context.close() };
}

async function fillGuest(dialog: ReturnType<Page['getByRole']>, guest: Record<string, string>) {
  for (const [label, value] of Object.entries(guest))
    await dialog.getByLabel(label, { exact: true }).fill(value);
}

describe('new bookings and the waitlist on the dashboard', { skip }, () => {
  it('books a guest every week, and says which week could not be booked and why', async () => {
    const tenant = await openBistro();
    // The bistro closes a week from today: that week's visit cannot be booked.
    const closed = addDays(today, 7);
    await send(ctx.app, tenant, 'POST', '/v1/manage/blackout-dates', {
      start_date: closed,
      end_date: closed,
      reason: 'Staff outing',
    });
    const { page, close } = await signedIn(tenant, PHONE, '12:00');
    try {
      await page.getByRole('button', { name: 'New booking' }).click();
      const dialog = page.getByRole('dialog', { name: 'New booking' });
      await dialog.getByLabel('Party').fill('2');
      await dialog.getByLabel('Time', { exact: true }).fill('19:30');
      await fillGuest(dialog, { 'First name': 'Ada', 'Last name': 'Lovelace', Phone: '+44 20 7946 0000' });
      await dialog.getByLabel('Repeat weekly').check();
      await dialog.getByLabel('Weeks').fill('3');
      await axeClean(page, 'a weekly booking, phone');
      await page.screenshot({ path: screenshotPath('dashboard-new-booking-weekly-phone.png') });
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      const said = page.getByRole('alert');
      await said.getByText(`1 week was not booked: ${dayShort('en', closed)}`, { exact: false }).waitFor();

      const { items } = await send(ctx.app, tenant, 'GET', '/v1/manage/bookings?limit=10');
      const booked = items.map((booking: { booking_date: string; start_time: string; series_id: string }) => [
        booking.booking_date,
        booking.start_time,
      ]);
      assert.deepEqual(booked, [
        [today, '19:30'],
        [addDays(today, 14), '19:30'],
      ]);
      assert.equal(items[0].series_id, items[1].series_id);
      assert.ok(items[0].series_id);

      // The series' first booking is open: it and the following weeks are cancelled together, once asked.
      const panel = page.getByRole('dialog', { name: 'Booking: Ada Lovelace' });
      await panel.getByRole('button', { name: 'Cancel this and the following weeks…' }).click();
      await panel
        .getByText(
          `Cancel the booking of Ada Lovelace on ${dayShort('en', today)} and every following week? The guest is told.`,
        )
        .waitFor();
      await axeClean(page, 'a series cancelled, phone');
      await panel.getByRole('button', { name: 'Yes, cancel them' }).click();
      await eventuallyRead(
        () => send(ctx.app, tenant, 'GET', '/v1/manage/bookings?limit=10'),
        (read) => read.items.every((booking: { status: string }) => booking.status === 'cancelled'),
        'the series cancelled',
      );
    } finally {
      await close();
    }
  });

  it('books a phone call at a free time, a walk-in now and a booking with a deposit link', async () => {
    const tenant = await openBistro();
    await joinWaitlist(tenant, {
      customer: { first_name: 'Alan', last_name: 'Turing', phone: '+44 20 7946 0958' },
      capacity: 2,
      preferred_time_from: '19:00',
      preferred_time_to: '20:30',
      notes: 'Terrace if possible',
    });
    const { page, close } = await signedIn(tenant, TABLET, '19:07');
    try {
      // Opened and closed by keyboard: the focus comes back to the button.
      await tabTo(page, /New booking$/);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'New booking' });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Date').inputValue(), today);
      assert.equal(
        await page.evaluate<string>("document.activeElement?.closest('label')?.textContent"),
        'Party',
      );
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.match(await page.evaluate<string>("document.activeElement?.textContent ?? ''"), /New booking$/);

      // A phone call for four at 20:00, chosen among the free times.
      await page.getByRole('button', { name: 'New booking' }).click();
      await dialog.getByLabel('Party').fill('4');
      const times = dialog.getByRole('group', { name: 'Free times' });
      await times.getByRole('radio', { name: '20:00' }).check();
      assert.equal(await dialog.getByLabel('Time', { exact: true }).inputValue(), '20:00');
      await fillGuest(dialog, {
        'First name': 'Grace',
        'Last name': 'Hopper',
        Phone: '+49 30 5550 1234',
        Notes: 'Birthday',
      });
      await axeClean(page, 'new booking, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-new-booking-tablet.png') });
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      // The new booking is selected on the timeline, its panel focused.
      await page.getByRole('complementary', { name: 'Booking: Grace Hopper' }).waitFor();
      await untilInPage(page, "document.activeElement?.id === 'panel-title'");
      // The timeline redraws the day once the live stream tells of the booking too: one block, in the end.
      await page.getByRole('button', { name: /^4 Hopper ?, Grace Hopper, 20:00–/ }).waitFor();
      assert.equal(await page.getByRole('button', { name: /^4 Hopper ?, Grace Hopper, 20:00–/ }).count(), 1);
      const phoned = (await bookingsOf(tenant)).find((b) => b.customer.last_name === 'Hopper');
      assert.ok(phoned);
      assert.deepEqual(
        [phoned.start_time, phoned.capacity, phoned.status, phoned.source, phoned.customer_notes],
        ['20:00', 4, 'confirmed', 'staff', 'Birthday'],
      );

      // A walk-in: the venue's minute now, whatever the time field says.
      await page.getByRole('button', { name: 'New booking' }).click();
      await dialog.getByLabel('Party').fill('2');
      await fillGuest(dialog, { 'First name': 'Ada', 'Last name': 'Byron', Phone: '+44 20 7946 0001' });
      await dialog.getByRole('button', { name: 'Walk-in (now)' }).click();
      await page.getByRole('complementary', { name: 'Booking: Ada Byron' }).waitFor();
      const walkIn = (await bookingsOf(tenant)).find((b) => b.customer.last_name === 'Byron');
      assert.deepEqual([walkIn?.start_time, walkIn?.capacity, walkIn?.status], ['19:07', 2, 'checked_in']);

      // A walk-in from its party alone: no name, no phone.
      await page.getByRole('button', { name: 'New booking' }).click();
      await dialog.getByLabel('Party').fill('2');
      await dialog.getByRole('button', { name: 'Walk-in (now)' }).click();
      await page.getByRole('complementary', { name: 'Booking: Walk-in' }).waitFor();
      const nameless = (await bookingsOf(tenant)).filter((b) => b.customer.phone === '');
      assert.deepEqual(
        nameless.map((b) => [b.start_time, b.capacity, b.status]),
        [['19:07', 2, 'checked_in']],
      );

      // With a deposit link: the email is required, the booking waits for the payment, the link is mailed.
      await page.getByRole('button', { name: 'New booking' }).click();
      await dialog.getByLabel('Party').fill('3');
      await dialog.getByRole('radio', { name: '21:00' }).check();
      await fillGuest(dialog, { 'First name': 'Edsger', 'Last name': 'Dijkstra', Phone: '+31 20 555 0101' });
      await dialog.getByLabel(/With a deposit link/).check();
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      assert.ok(await dialog.isVisible(), 'no email: the form asks for one');
      await dialog.getByLabel('Email', { exact: true }).fill('edsger@example.com');
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      const panel = page.getByRole('complementary', { name: 'Booking: Edsger Dijkstra' });
      await panel.waitFor();
      assert.ok(await panel.getByText('pending, deposit due').isVisible());
      const paid = (await bookingsOf(tenant)).find((b) => b.customer.last_name === 'Dijkstra');
      assert.deepEqual(
        [paid?.start_time, paid?.status, paid?.deposit?.type, paid?.deposit?.status],
        ['21:00', 'pending', 'charge', 'requires_payment'],
      );
      const mail = await ctx.app.db
        .selectFrom('message_outbox')
        .select(['subject', 'body_text'])
        .where('to_address', '=', 'edsger@example.com')
        .executeTakeFirstOrThrow();
      assert.match(mail.subject ?? '', /^Pay the deposit for your booking/);
      assert.match(mail.body_text ?? '', /https?:\/\/\S+/);

      // A party no table takes is refused in words, in the live region, and the form stays.
      await page.getByRole('button', { name: 'New booking' }).click();
      await dialog.getByLabel('Party').fill('5');
      await dialog.getByLabel('Time', { exact: true }).fill('20:00');
      await fillGuest(dialog, { 'First name': 'Too', 'Last name': 'Many', Phone: '+33 1 00 00 00 01' });
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      await page.getByRole('alert').getByText('No table is free for this party at that time.').waitFor();
      assert.ok(await dialog.isVisible());
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Dismiss' }).click();

      await page.getByRole('link', { name: 'Waitlist' }).click();
      await page.getByRole('heading', { level: 1, name: `Waitlist: ${dayLong('en', today)}` }).waitFor();
      await page.getByRole('heading', { name: /Alan Turing, 2 guests/ }).waitFor();
      await axeClean(page, 'waitlist, tablet');
      await page.screenshot({ path: screenshotPath('dashboard-waitlist-tablet.png') });
    } finally {
      await close();
    }
  });

  it('books a waitlist entry and takes it off, removes one and adds a caller, on a phone', async () => {
    const tenant = await openBistro();
    await joinWaitlist(tenant, {
      customer: {
        first_name: 'Alan',
        last_name: 'Turing',
        phone: '+44 20 7946 0958',
        email: 'alan@example.com',
      },
      capacity: 3,
      preferred_time_from: '19:30',
      preferred_time_to: '21:00',
      notes: 'Quiet corner',
    });
    await joinWaitlist(tenant, {
      customer: { first_name: 'Kurt', last_name: 'Gödel', phone: '+43 1 555 0199' },
      capacity: 2,
    });
    const { page, close } = await signedIn(tenant, PHONE, '12:00');
    try {
      await page.getByRole('link', { name: 'Waitlist' }).click();
      const turing = page.getByRole('listitem', { name: /Alan Turing/ });
      await turing.waitFor();
      assert.ok(await turing.getByText('Quiet corner').isVisible());
      assert.ok(await turing.getByText(/19:30–21:00/).isVisible());
      await page.getByText('2 waiting').waitFor();
      await axeClean(page, 'waitlist, phone');
      await page.screenshot({ path: screenshotPath('dashboard-waitlist-phone.png') });

      // Book: the form comes with the entry's party, contact and earliest time.
      await page.getByRole('button', { name: 'Book Alan Turing' }).click();
      const dialog = page.getByRole('dialog', { name: 'Book Alan Turing' });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Party').inputValue(), '3');
      assert.equal(await dialog.getByLabel('Phone').inputValue(), '+44 20 7946 0958');
      assert.equal(await dialog.getByLabel('Email', { exact: true }).inputValue(), 'alan@example.com');
      assert.equal(await dialog.getByLabel('Time', { exact: true }).inputValue(), '19:30');
      await dialog.getByRole('radio', { name: '19:30' }).waitFor();
      await axeClean(page, 'new booking, phone');
      await page.screenshot({ path: screenshotPath('dashboard-new-booking-phone.png') });
      await dialog.getByRole('button', { name: 'Book', exact: true }).click();
      await page
        .getByText(/^Alan Turing booked on .* at 19:30, T\d, and taken off the waitlist\.$/)
        .waitFor();
      await page.getByText('1 waiting').waitFor();
      const booked = (await bookingsOf(tenant)).find((b) => b.customer.last_name === 'Turing');
      assert.deepEqual([booked?.start_time, booked?.capacity, booked?.status], ['19:30', 3, 'confirmed']);
      assert.deepEqual(
        (await waitlistOf(tenant)).map((entry) => entry.customer.last_name),
        ['Gödel'],
      );

      await page.getByRole('button', { name: 'Remove Kurt Gödel' }).click();
      await page.getByText('Nobody is waiting for this day.').waitFor();
      assert.deepEqual(await waitlistOf(tenant), []);

      // A caller put on the waitlist by phone, with a time window.
      await page.getByRole('button', { name: 'Add to waitlist' }).click();
      const add = page.getByRole('dialog', { name: 'Add to waitlist' });
      await add.getByLabel('Party').fill('5');
      await add.getByLabel('From').fill('18:00');
      await add.getByLabel('To').fill('19:00');
      await fillGuest(add, { 'First name': 'Barbara', 'Last name': 'Liskov', Phone: '+1 617 555 0100' });
      await add.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('listitem', { name: /Barbara Liskov, 5 guests/ }).waitFor();
      assert.deepEqual(
        (await waitlistOf(tenant)).map((entry) => [entry.customer.last_name, entry.capacity]),
        [['Liskov', 5]],
      );
    } finally {
      await close();
    }
  });

  for (const [lang, viewport, locale] of [
    ['en', DESK, 'en-GB'],
    ['de', PHONE, 'de-DE'],
  ] as const) {
    it(`runs the walk-in queue: a party of 3 joins, is quoted a wait, is told and seated (${lang})`, async () => {
      const tenant = await openBistro();
      const walkIns = async () => (await send(ctx.app, tenant, 'GET', '/v1/manage/walk-ins')).items;
      // Every table is taken until 20:00; T1 frees first, at 19:30.
      for (const [time, table] of [
        ['18:30', 'T1'],
        ['18:45', 'T2'],
        ['19:00', 'T3'],
      ]) {
        ctx.app.clock.now = () => wallTimeToInstant(today, '18:00', ZONE)!;
        const resources = (await send(ctx.app, tenant, 'GET', '/v1/manage/resources')).items as {
          id: string;
          name: string;
        }[];
        await send(ctx.app, tenant, 'POST', '/v1/manage/bookings/staff', {
          date: today,
          time,
          capacity: 2,
          resource_id: resources.find((resource) => resource.name === table)!.id,
          first_name: 'Held',
          last_name: table,
          phone: `+33 1 00 00 0${time.replace(':', '')}`,
        });
      }
      // The dashboard speaks the venue's language.
      await send(ctx.app, tenant, 'PATCH', '/v1/manage/settings', {
        sms_enabled: true,
        notification_language: lang,
      });
      const { page, close } = await signedIn(tenant, viewport, '19:10', locale);
      const words =
        lang === 'en'
          ? {
              nav: 'Queue',
              title: 'Walk-in queue',
              name: 'Name (optional)',
              join: 'Add to queue',
              joined: 'Ada, 3 guests joined the queue: about 20 minutes.',
              told: 'Table ready: tell Ada, 3 guests',
              toldSaid: 'Ada, 3 guests told the table is ready.',
              seat: 'Seat Ada, 3 guests',
              seated: 'Ada, 3 guests seated at T1.',
              empty: 'Nobody is waiting.',
            }
          : {
              nav: 'Warteschlange',
              title: 'Warteschlange für Laufkundschaft',
              name: 'Name (freiwillig)',
              join: 'In die Warteschlange',
              joined: 'Ada, 3 Gäste steht in der Warteschlange: etwa 20 Minuten.',
              told: 'Tisch bereit: Ada, 3 Gäste benachrichtigen',
              toldSaid: 'Ada, 3 Gäste wurde benachrichtigt, dass der Tisch bereit ist.',
              seat: 'Platzieren: Ada, 3 Gäste',
              seated: 'Ada, 3 Gäste an T1 platziert.',
              empty: 'Niemand wartet.',
            };
      try {
        await page.getByRole('link', { name: words.nav }).click();
        await page.getByRole('heading', { level: 1, name: words.title }).waitFor();
        const join = page.getByRole('form', { name: words.join });
        await join.getByLabel(lang === 'en' ? 'Party' : 'Personen').fill('3');
        await join.getByLabel(words.name).fill('Ada');
        await join.getByLabel(lang === 'en' ? 'Phone' : 'Telefon').fill('+44 20 7946 0001');
        await join.getByRole('button', { name: words.join }).click();
        await page.getByText(words.joined).waitFor();
        await page.getByRole('listitem', { name: /Ada/ }).waitFor();
        assert.deepEqual(
          (await walkIns()).map((queued: { capacity: number; quoted_wait_minutes: number }) => [
            queued.capacity,
            queued.quoted_wait_minutes,
          ]),
          [[3, 20]],
        );
        await axeClean(page, `walk-in queue, ${lang}`);
        await page.screenshot({ path: screenshotPath(`dashboard-queue-${lang}.png`) });

        await page.getByRole('button', { name: words.told }).click();
        await page.getByText(words.toldSaid).waitFor();
        const told = await ctx.app.db
          .selectFrom('message_outbox')
          .select(['channel', 'to_address', 'body_text'])
          .where('business_id', '=', tenant.businessId)
          .where('type', '=', 'table_ready')
          .execute();
        assert.deepEqual(
          told.map((message) => [message.channel, message.to_address]),
          [['sms', '+44 20 7946 0001']],
        );

        // At 19:30 T1 is free: the party is seated there, checked in, and leaves the queue.
        const seatAt = wallTimeToInstant(today, '19:30', ZONE)!;
        ctx.app.clock.now = () => seatAt;
        await page.clock.setFixedTime(seatAt);
        await page.getByRole('button', { name: words.seat }).click();
        await page.getByText(words.seated).waitFor();
        await page.getByText(words.empty).waitFor();
        const seated = (await bookingsOf(tenant)).find((b) => b.customer.first_name === 'Ada');
        assert.deepEqual([seated?.start_time, seated?.capacity, seated?.status], ['19:30', 3, 'checked_in']);
        assert.deepEqual(await walkIns(), []);
        await axeClean(page, `walk-in queue seated, ${lang}`);
      } finally {
        await close();
      }
    });
  }
});
