import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import {
  type BookableBusiness,
  daysFromNow,
  guest,
  nextCentralEuropeanClockChange,
  postBooking,
  send,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { connectPaymentAccount } from '../../test/deposit-fixtures.ts';
import { bearer, createPublishableKey, createTestApp, type TestContext } from '../../test/helpers.ts';
import { inviteOf, startSmtpCapture } from '../../test/smtp-capture.ts';
import { EmailSender } from './sender.jobs.ts';

const SHOP = 'https://shop.example';
const GUEST_EMAIL = 'grace@example.com';
const VENUE_EMAIL = 'frontdesk@bistro.example';
const PUBLIC_EMAIL = 'hello@bistro.example';
const DAY = daysFromNow(7);

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let ctx: TestContext;
before(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({ smtpUrl: smtp.url, mailFrom: 'bookings@slotwise.example' });
});
after(async () => {
  await ctx.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
  ctx.app.clock.now = () => Date.now();
  return ctx.reset();
});

const host = () => new URL(ctx.config.publicBaseUrl).hostname;
const sendAll = async () => (await ctx.app.jobs.runAll()).email;
const mailsTo = (address: string) => smtp.received.filter((message) => message.to.includes(address));

/**
 * A venue with a profile, a notification address and message settings (`settings` overrides);
 * `options` set it up (hours, tables, a sandbox).
 */
async function venue(
  settings: Record<string, unknown> = {},
  options: Omit<NonNullable<Parameters<typeof setupBookable>[1]>, 'settings'> & {
    settings?: Record<string, unknown>;
  } = {},
) {
  const biz = await setupBookable(ctx.app, {
    ...options,
    settings: { timezone: 'Europe/Paris', ...options.settings },
  });
  await ctx.app.db
    .updateTable('businesses')
    .set({
      address: '1 Rue de Rivoli, 75001 Paris',
      phone: '+33 1 23 45 67 89',
      public_email: PUBLIC_EMAIL,
      booking_policy: 'Tables are kept 15 minutes.',
      venue_notification_email: VENUE_EMAIL,
      ...settings,
    })
    .where('id', '=', biz.tenant.businessId)
    .execute();
  return biz;
}

/** A booking through the public route with the business's publishable key, as the widget makes it. */
async function bookOnline(biz: BookableBusiness, body: Record<string, unknown> = {}) {
  const { key } = await createPublishableKey(ctx.app, biz.tenant, [SHOP]);
  const response = await postBooking(
    ctx.app,
    biz,
    { booking_date: DAY, start_time: '12:00', capacity: 4, ...guest({ email: GUEST_EMAIL }), ...body },
    { ...bearer(key), origin: SHOP },
  );
  assert.equal(response.statusCode, 201, response.body);
  return response.json().booking as { id: string; confirmation_code: string; starts_at: string };
}

const patch = (biz: BookableBusiness, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/v1/manage/bookings/${id}`, headers: biz.tenant.headers, payload });

const outboxOf = (bookingId: string) =>
  ctx.app.db
    .selectFrom('message_outbox')
    .select(['id', 'type', 'channel', 'to_address', 'sequence', 'sent_at', 'withheld_at'])
    .where('booking_id', '=', bookingId)
    .orderBy('created_at')
    .orderBy('sequence')
    .execute();

describe('messages of a booking', () => {
  it('confirms an online booking to the guest with an invite, and tells the venue', async () => {
    const biz = await venue();
    const booking = await bookOnline(biz, { customer_notes: 'Window <b>please</b> & cake' });
    assert.equal(await sendAll(), 2);

    const [confirmation] = mailsTo(GUEST_EMAIL);
    assert.ok(confirmation, 'the guest is emailed');
    const { mail } = confirmation;
    const [row] = (await outboxOf(booking.id)).filter((message) => message.type === 'booking_confirmed');
    assert.equal(mail.messageId, `<${row!.id}@${host()}>`);
    assert.equal(mail.from?.value[0]?.address, 'bookings@slotwise.example');
    assert.equal(mail.from?.value[0]?.name, 'Bistro Race');
    assert.equal(mail.replyTo?.value[0]?.address, PUBLIC_EMAIL);
    assert.equal(mail.subject, 'Your booking at "Bistro Race" is confirmed');
    for (const part of [mail.text ?? '', mail.html || '']) {
      assert.match(part, /Bistro Race/);
      assert.match(part, /1 Rue de Rivoli/);
      assert.match(part, /\+33 1 23 45 67 89/);
      assert.match(part, /Tables are kept 15 minutes\./);
      assert.match(part, /4 guests/);
      assert.match(part, new RegExp(booking.confirmation_code));
      assert.ok(part.includes(`/book/${biz.tenant.slug}?manage=${booking.confirmation_code}`));
    }
    // Noon in Paris in December is 12:00 local; the invite says the same instant in UTC.
    assert.match(mail.text ?? '', /12:00 PM/);
    const invite = inviteOf(mail);
    assert.equal(invite.method, 'REQUEST');
    assert.equal(invite.event.uid, `booking-${booking.id}@${host()}`);
    assert.equal(Number(invite.event.sequence), 0);
    assert.equal(invite.event.start.toISOString(), booking.starts_at);
    assert.equal(invite.event.status, 'CONFIRMED');
    assert.ok(
      mail.headerLines.some((line) => line.key === 'content-type' && /multipart/.test(line.line)),
      'a multipart mail',
    );
    assert.ok(
      confirmation.raw.includes('text/calendar; charset=utf-8; method=REQUEST') ||
        /text\/calendar;[^\r\n]*method=REQUEST/i.test(confirmation.raw),
      'a text/calendar alternative mail clients show as an invite',
    );

    const [told] = mailsTo(VENUE_EMAIL);
    assert.ok(told, 'the venue is told of the online booking');
    assert.match(told.mail.subject ?? '', /^New online booking: 4 guests, /);
    assert.match(told.mail.text ?? '', /Grace Hopper/);
    assert.match(told.mail.html || '', /Window &lt;b&gt;please&lt;\/b&gt; &amp; cake/);
    assert.equal(told.mail.attachments.length, 0, 'no invite for the venue');

    assert.equal(await sendAll(), 0, 'nothing is sent twice');
  });

  it("writes to the customer's address when staff book a returning guest with a blank email", async () => {
    const biz = await venue();
    const first = await bookOnline(biz);
    const stored = await ctx.app.db
      .selectFrom('bookings as b')
      .innerJoin('customers as c', 'c.id', 'b.customer_id')
      .select('c.phone')
      .where('b.id', '=', first.id)
      .executeTakeFirstOrThrow();
    const staff = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/bookings/staff',
      headers: biz.tenant.headers,
      payload: { date: DAY, time: '14:00', capacity: 2, ...guest({ phone: stored.phone, email: '   ' }) },
    });
    assert.equal(staff.statusCode, 201, staff.body);
    const { booking } = staff.json();
    const row = await ctx.app.db
      .selectFrom('bookings')
      .select('guest_email')
      .where('id', '=', booking.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.guest_email, null, 'a blank address is stored as none');

    assert.equal((await patch(biz, booking.id, { start_time: '15:00' })).statusCode, 200);
    const emails = (await outboxOf(booking.id)).filter((message) => message.channel === 'email');
    assert.deepEqual(
      emails.map((message) => [message.type, message.to_address]),
      [
        ['booking_confirmed', GUEST_EMAIL],
        ['booking_rescheduled', GUEST_EMAIL],
      ],
    );
  });

  it('reschedules with SEQUENCE 1 and cancels with METHOD CANCEL, same UID, SEQUENCE 2; a venue cancellation does not tell the venue', async () => {
    const biz = await venue();
    const booking = await bookOnline(biz);
    await sendAll();
    smtp.received.length = 0;

    assert.equal((await patch(biz, booking.id, { start_time: '14:00' })).statusCode, 200);
    assert.equal(await sendAll(), 1);
    const moved = mailsTo(GUEST_EMAIL)[0]!.mail;
    assert.equal(moved.subject, 'Your booking at "Bistro Race" has moved');
    assert.match(moved.text ?? '', /2:00 PM/);
    const movedInvite = inviteOf(moved);
    assert.equal(movedInvite.method, 'REQUEST');
    assert.equal(movedInvite.event.uid, `booking-${booking.id}@${host()}`);
    assert.equal(Number(movedInvite.event.sequence), 1);
    assert.equal(movedInvite.event.start.toISOString(), `${DAY}T13:00:00.000Z`);

    smtp.received.length = 0;
    assert.equal((await patch(biz, booking.id, { status: 'cancelled' })).statusCode, 200);
    assert.equal(await sendAll(), 1, 'the guest only: the venue cancelled it itself');
    const cancelled = mailsTo(GUEST_EMAIL)[0]!.mail;
    assert.equal(cancelled.subject, 'Your booking at "Bistro Race" is cancelled');
    const cancelInvite = inviteOf(cancelled);
    assert.equal(cancelInvite.method, 'CANCEL');
    assert.equal(cancelInvite.event.uid, `booking-${booking.id}@${host()}`);
    assert.equal(Number(cancelInvite.event.sequence), 2);
    assert.equal(cancelInvite.event.status, 'CANCELLED');
  });

  it("tells the guest and the venue of the guest's own cancellation, in the business's language", async () => {
    const biz = await venue({ notification_language: 'de' });
    const booking = await bookOnline(biz);
    await sendAll();
    smtp.received.length = 0;

    const response = await ctx.app.inject({
      method: 'POST',
      url: `/v1/public/bookings/${booking.confirmation_code}/cancel`,
      payload: { email: GUEST_EMAIL },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(await sendAll(), 2);
    const cancelled = mailsTo(GUEST_EMAIL)[0]!.mail;
    assert.equal(cancelled.subject, 'Ihre Reservierung bei "Bistro Race" wurde storniert');
    const invite = inviteOf(cancelled);
    assert.equal(invite.method, 'CANCEL');
    assert.equal(invite.event.uid, `booking-${booking.id}@${host()}`);
    assert.equal(Number(invite.event.sequence), 1);
    const told = mailsTo(VENUE_EMAIL)[0]!.mail;
    assert.match(told.subject ?? '', /^Vom Gast storniert: 4 Personen, /);
    assert.match(told.text ?? '', new RegExp(booking.confirmation_code));
  });

  it("writes to a guest in the language of their profile, and to the venue in the venue's", async () => {
    const biz = await venue({ notification_language: 'de' });
    const phone = guest().phone;
    const first = await bookOnline(biz, { phone });
    const { customer_id: customerId } = await send(
      ctx.app,
      biz.tenant,
      'GET',
      `/v1/manage/bookings/${first.id}`,
    );
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/customers/${customerId}`, {
      preferred_language: 'fr',
    });
    await sendAll();
    smtp.received.length = 0;

    const booking = await bookOnline(biz, { phone, start_time: '13:00' });
    await sendAll();
    assert.match(mailsTo(GUEST_EMAIL)[0]!.mail.subject ?? '', /^Votre réservation/);
    assert.match(mailsTo(VENUE_EMAIL)[0]!.mail.subject ?? '', /^Neue Online-Reservierung/);
    assert.match(mailsTo(VENUE_EMAIL)[0]!.mail.text ?? '', new RegExp(booking.confirmation_code));
  });

  it('tells nobody of a pending online booking until the venue confirms it', async () => {
    const biz = await venue({ auto_confirm_bookings: false });
    const booking = await bookOnline(biz);
    assert.deepEqual(await outboxOf(booking.id), []);
    assert.equal((await patch(biz, booking.id, { status: 'confirmed' })).statusCode, 200);
    assert.equal(await sendAll(), 2);
    const confirmation = mailsTo(GUEST_EMAIL)[0]!.mail;
    assert.equal(confirmation.subject, 'Your booking at "Bistro Race" is confirmed');
    assert.equal(Number(inviteOf(confirmation).event.sequence), 0);
    assert.match(mailsTo(VENUE_EMAIL)[0]!.mail.subject ?? '', /^New online booking: /);
  });

  it('sends nothing for an unpaid checkout that lapses, and confirms one that is paid', async () => {
    const biz = await venue();
    await connectPaymentAccount(ctx.app, biz.tenant.businessId);
    const deposit = (time: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff-deposit',
        headers: biz.tenant.headers,
        payload: { date: daysFromNow(5), time, capacity: 3, ...guest({ email: GUEST_EMAIL }) },
      });
    const checkout = (url: string, action: 'complete' | 'expire') =>
      ctx.app.inject({
        method: 'POST',
        url: `/simulated-processor/checkout/${url.split('/').at(-1)}/${action}`,
      });

    const lapsed = (await deposit('10:00')).json();
    assert.equal((await checkout(lapsed.checkout_url, 'expire')).statusCode, 200);
    assert.deepEqual(await outboxOf(lapsed.booking.id), [], 'no message told of the booking');

    const paid = (await deposit('14:00')).json();
    assert.equal((await checkout(paid.checkout_url, 'complete')).statusCode, 200);
    assert.deepEqual(
      (await outboxOf(paid.booking.id)).map((row) => [row.type, row.to_address, row.sequence]),
      [['booking_confirmed', GUEST_EMAIL, 0]],
      'confirmed by its payment; a staff booking does not tell the venue',
    );
  });

  it('sends the guest nothing when guest emails are off; writes an SMS when SMS is on', async () => {
    const biz = await venue({ guest_emails_enabled: false, sms_enabled: true });
    const booking = await bookOnline(biz, { phone: '+33 6 12 34 56 78' });
    assert.deepEqual(
      (await outboxOf(booking.id)).map((row) => [row.type, row.channel, row.to_address]).sort(),
      [
        ['booking_confirmed', 'sms', '+33 6 12 34 56 78'],
        ['venue_new_booking', 'email', VENUE_EMAIL],
      ],
    );
    assert.equal(await sendAll(), 1, 'the email sender leaves SMS to its own sender');
    assert.equal(mailsTo(GUEST_EMAIL).length, 0);
    // SMS carries confirmations and reminders only.
    assert.equal((await patch(biz, booking.id, { start_time: '14:00' })).statusCode, 200);
    assert.equal((await patch(biz, booking.id, { status: 'cancelled' })).statusCode, 200);
    assert.deepEqual(
      (await outboxOf(booking.id)).filter((row) => row.channel === 'sms').map((row) => row.type),
      ['booking_confirmed'],
    );
  });

  it("withholds a sandbox business's mail to its guests", async () => {
    const biz = await venue({}, { sandbox: true });
    const booking = await bookOnline(biz);
    await sendAll();
    assert.equal(mailsTo(GUEST_EMAIL).length, 0);
    const [row] = (await outboxOf(booking.id)).filter((message) => message.to_address === GUEST_EMAIL);
    assert.ok(row?.withheld_at, 'withheld, not sent');
    assert.equal(row.sent_at, null);
  });

  it("sends a sandbox business's confirmations to a member only once they have joined; the invitation itself goes", async () => {
    const biz = await venue({ venue_notification_email: null }, { sandbox: true });
    const invited = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/staff',
      headers: biz.tenant.headers,
      payload: { email: GUEST_EMAIL, role: 'staff_member' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const before = await bookOnline(biz);
    await sendAll();
    const [invitation, ...others] = mailsTo(GUEST_EMAIL);
    assert.match(invitation?.mail.subject ?? '', /^You are invited to "Bistro Race" on Slotwise$/);
    assert.equal(invitation?.mail.from?.value[0]?.name, 'Slotwise');
    assert.equal(others.length, 0, 'the confirmation to an invited member is withheld');
    const [withheld] = await outboxOf(before.id);
    assert.ok(withheld?.withheld_at);

    const token = /\/staff\/accept\?token=([A-Za-z0-9_]+)/.exec(invitation!.mail.text ?? '')![1]!;
    const accepted = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/invitations/accept',
      payload: { token, password: 'chosen by me 123' },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    smtp.received.length = 0;
    const after = await bookOnline(biz, { start_time: '13:00' });
    await sendAll();
    assert.equal(mailsTo(GUEST_EMAIL).length, 1, 'a member who joined is emailed');
    assert.ok((await outboxOf(after.id))[0]?.sent_at);
  });

  it("passes the venue's name to the From header as a display name, without encoded words or format characters", async () => {
    const encoded = `=?utf-8?b?${Buffer.from('Bank \u202egnp.exe Support').toString('base64')}?=`;
    const biz = await venue({
      name: `${encoded} Bistro\u2066 \u202eRace\u202c =?utf-8?q?=E2=80=AE?=\u200b`,
      venue_notification_email: null,
    });
    await bookOnline(biz);
    await sendAll();
    const [confirmation] = mailsTo(GUEST_EMAIL);
    assert.ok(confirmation);
    const from = confirmation.mail.from?.value[0];
    assert.equal(from?.address, 'bookings@slotwise.example');
    assert.equal(from?.name, 'Bistro Race');
    assert.equal(confirmation.mail.subject, 'Your booking at "Bistro Race" is confirmed');
    for (const decoded of [from?.name ?? '', confirmation.mail.subject ?? '']) {
      assert.doesNotMatch(decoded, /=\?[^?]*\?[^?]*\?[^?]*\?=/);
      assert.doesNotMatch(decoded, /[\p{Cc}\p{Cf}]/u);
    }
    const fromLine = confirmation.raw.split('\r\n').find((line) => line.startsWith('From:'));
    assert.ok(fromLine && !fromLine.includes(encoded), fromLine);
  });

  it('sends a message at once though the server clock trails the database clock that wrote it', async () => {
    const biz = await venue({ venue_notification_email: null });
    await bookOnline(biz);
    // The message is dated by the database; a server a second behind it (another host, or the
    // same millisecond read without its microseconds) still sends it on its next run.
    const written = Date.now();
    ctx.app.clock.now = () => written - 1000;
    assert.equal(await sendAll(), 1);
    assert.ok(mailsTo(GUEST_EMAIL)[0], 'the guest has the confirmation');
  });

  it('gives a message up after 10 failed tries', async () => {
    const biz = await venue({ venue_notification_email: null });
    const booking = await bookOnline(biz);
    const log = { info() {}, warn() {} } as unknown as FastifyBaseLogger;
    // A port nothing listens on: every try fails.
    const sender = new EmailSender(ctx.app.db, ctx.app.clock, log, {
      smtpUrl: 'smtp://127.0.0.1:1',
      publicBaseUrl: ctx.config.publicBaseUrl,
      mailFrom: ctx.config.mailFrom,
    });
    let now = Date.now();
    for (let attempt = 1; attempt <= 10; attempt++) {
      ctx.app.clock.now = () => now;
      assert.equal(await sender.run(), 1, `try ${attempt}`);
      now += 7 * 3_600_000;
    }
    ctx.app.clock.now = () => now;
    assert.equal(await sender.run(), 0);
    sender.close();
    const row = await ctx.app.db
      .selectFrom('message_outbox')
      .select(['attempts', 'failed_at', 'sent_at', 'last_error'])
      .where('booking_id', '=', booking.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 10);
    assert.ok(row.failed_at, 'given up');
    assert.equal(row.sent_at, null);
    assert.ok(row.last_error);
  });

  it('reminds the guest 24 hours before a booking on the Sunday the clocks change, at its local time, once', async () => {
    const biz = await venue({}, { settings: { booking_window_days: 365 }, open: '09:00', close: '22:00' });
    const { date } = nextCentralEuropeanClockChange();
    const booking = await bookOnline(biz, { booking_date: date, start_time: '19:00' });
    await sendAll();
    smtp.received.length = 0;

    const moment = Date.parse(booking.starts_at) - 24 * 3_600_000;
    ctx.app.clock.now = () => moment - 1000;
    assert.equal(await sendAll(), 0, 'not before its moment');
    ctx.app.clock.now = () => moment;
    assert.equal(await sendAll(), 1);
    const [reminder] = mailsTo(GUEST_EMAIL);
    assert.ok(reminder, 'the guest is reminded');
    assert.equal(reminder.mail.subject, 'See you soon at "Bistro Race"');
    // Sent on the Saturday under the old offset, it tells the Sunday's time under the new one.
    assert.match(reminder.mail.text ?? '', /7:00 PM/);
    assert.ok((reminder.mail.text ?? '').includes(booking.confirmation_code));
    ctx.app.clock.now = () => moment + 3_600_000;
    assert.equal(await sendAll(), 0, 'at most once');
  });

  it('offers a freed table to the waiting guest by email, whose link books it', async () => {
    const biz = await venue(
      {},
      { open: '18:00', close: '20:00', resources: [{ name: 'T4', capacity_min: 1, capacity_max: 4 }] },
    );
    const early = await bookOnline(biz, { start_time: '18:00', capacity: 2 });
    await bookOnline(biz, { start_time: '19:00', capacity: 2 });
    const waiting = 'ada@example.com';
    const joined = await ctx.app.inject({
      method: 'POST',
      url: `/v1/waitlist/${biz.tenant.businessId}`,
      payload: {
        customer: { first_name: 'Ada', last_name: 'Lovelace', phone: '+44 20 7946 0000', email: waiting },
        preferred_date: DAY,
        capacity: 2,
      },
    });
    assert.equal(joined.statusCode, 201, joined.body);
    await sendAll();
    smtp.received.length = 0;

    assert.equal((await patch(biz, early.id, { status: 'cancelled' })).statusCode, 200);
    await sendAll();
    const [offer] = mailsTo(waiting);
    assert.ok(offer, 'the waiting guest is emailed the offer');
    assert.equal(offer.mail.subject, 'A table is free at "Bistro Race"');
    assert.match(offer.mail.text ?? '', /6:00 PM/);
    const link = /https?:\/\/\S+\/waitlist\/offer\/[A-Za-z0-9_-]+/.exec(offer.mail.text ?? '')?.[0];
    assert.ok(link, offer.mail.text);
    assert.ok((offer.mail.html || '').includes(link), 'the same link in the HTML part');

    const booked = await ctx.app.inject({
      method: 'POST',
      url: new URL(link).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(booked.statusCode, 200, booked.body);
    smtp.received.length = 0;
    await sendAll();
    const [confirmation] = mailsTo(waiting);
    assert.ok(confirmation, 'the booking the offer made is confirmed to the guest');
    assert.equal(confirmation.mail.subject, 'Your booking at "Bistro Race" is confirmed');
    assert.equal(inviteOf(confirmation.mail).event.start.toISOString(), early.starts_at);
  });
});
