import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { type BookableBusiness, daysFromNow, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { auditTrail, bookingView, connectPaymentAccount, depositRow } from '../../test/deposit-fixtures.ts';
import {
  assertNamesFields,
  bearer,
  createTestApp,
  dashboardToken,
  itChecksAuth,
  type TestContext,
  uniqueEmail,
} from '../../test/helpers.ts';
import { sendProcessorEvent } from '../../test/processor-events.ts';
import { EmailSender, enqueueEmail, venueInSubject } from '../messages/sender.jobs.ts';
import { withTx } from '../platform/db.ts';

interface Received {
  to: string[];
  raw: string;
}
const received: Received[] = [];
/** A recipient the capture server refuses, to try a failed delivery. */
let refusedRecipient: string | null = null;

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onRcptTo(address, _session, callback) {
    if (address.address === refusedRecipient) return callback(new Error('mailbox unavailable'));
    callback();
  },
  onData(stream, session, callback) {
    let raw = '';
    stream.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
      callback();
    });
  },
});

let ctx: TestContext;
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  ctx = await createTestApp({ smtpUrl: `smtp://127.0.0.1:${port}` });
});
after(async () => {
  await ctx.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  refusedRecipient = null;
  ctx.app.clock.now = () => Date.now();
  return ctx.reset();
});

const MINUTE = 60_000;
const URL = '/v1/manage/bookings/staff-deposit';
const TOMORROW = daysFromNow(1);

/** The body of a mail as sent: quoted-printable undone. */
const bodyOf = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

async function bookable(options: { account?: boolean } = {}): Promise<BookableBusiness> {
  const biz = await setupBookable(ctx.app, {
    // Staff rules: neither notice nor the slot grid applies to them.
    settings: { min_notice_hours: 72 },
    resources: [{ name: 'Only', capacity_min: 1, capacity_max: 6 }],
  });
  if (options.account !== false) await connectPaymentAccount(ctx.app, biz.tenant.businessId);
  return biz;
}

const staffDeposit = (
  biz: BookableBusiness,
  body: Record<string, unknown> = {},
  headers = biz.tenant.headers,
) =>
  ctx.app.inject({
    method: 'POST',
    url: URL,
    headers,
    payload: { date: TOMORROW, time: '12:10', capacity: 3, ...guest(), notes: 'window seat', ...body },
  });

async function staffDepositOk(biz: BookableBusiness, body: Record<string, unknown> = {}) {
  const response = await staffDeposit(biz, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { booking: { id: string }; checkout_url: string; expires_at: string };
}

const sessionIdOf = (checkoutUrl: string) => checkoutUrl.split('/').at(-1)!;
const checkout = (checkoutUrl: string, action: 'complete' | 'expire') =>
  ctx.app.inject({
    method: 'POST',
    url: `/simulated-processor/checkout/${sessionIdOf(checkoutUrl)}/${action}`,
  });

describe('POST /v1/manage/bookings/staff-deposit', () => {
  describe('201', () => {
    it('books pending with a charge paid through a 2-hour payment link, emailed to the guest', async () => {
      const biz = await bookable();
      const response = await staffDeposit(biz, {
        date: undefined,
        time: undefined,
        booking_date: TOMORROW,
        start_time: '12:10',
        email: 'ada@example.com',
        first_name: 'Ada',
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const { booking, checkout_url, expires_at } = response.json();
      assert.equal(booking.status, 'pending');
      assert.equal(booking.source, 'staff');
      assert.equal(booking.start_time, '12:10');
      assert.deepEqual(booking.deposit, {
        status: 'requires_payment',
        type: 'charge',
        amount_cents: 1500,
        processor_payment_id: null,
      });
      assert.ok(checkout_url.startsWith(`${ctx.config.publicBaseUrl}/simulated-processor/checkout/cs_test_`));
      assert.ok(Math.abs(Date.parse(expires_at) - (Date.now() + 120 * MINUTE)) < MINUTE);
      const session = await ctx.app.payments.simulated.find(sessionIdOf(checkout_url));
      assert.equal(session?.amount_total, 1500);
      assert.equal(session?.customer_email, 'ada@example.com');
      assert.equal(session?.expires_at, Math.floor(Date.parse(expires_at) / 1000));
      assert.deepEqual(session?.metadata, { booking_id: booking.id, business_id: biz.tenant.businessId });
      assert.match(
        String(session?.success_url),
        new RegExp(`/book/${biz.tenant.slug}\\?booking=${booking.id}`),
      );
      assert.equal((await depositRow(ctx.app, booking.id)).checkout_url, checkout_url);
      const [created] = await auditTrail(ctx.app, booking.id);
      assert.match(created!, /^booking\.created_by_staff_with_deposit by /);

      assert.equal((await ctx.app.jobs.runAll()).email, 1);
      assert.equal(received.length, 1);
      const [mail] = received;
      assert.deepEqual(mail!.to, ['ada@example.com']);
      assert.match(mail!.raw, /^Subject: .*Pay_the_deposit_for_your_booking_at_=22B/m);
      const body = bodyOf(mail!.raw);
      assert.ok(body.includes(checkout_url), body);
      assert.ok(body.includes('Hello Ada'), body);
      assert.ok(body.includes('EUR 15.00'), body);
      assert.ok(body.includes(booking.confirmation_code), body);
      const [outbox] = await ctx.app.db.selectFrom('message_outbox').selectAll().execute();
      assert.equal(outbox!.subject, 'Pay the deposit for your booking at "Bistro Race"');
      assert.ok(outbox!.sent_at);
      assert.equal(outbox!.attempts, 1);
      assert.equal((await ctx.app.jobs.runAll()).email, 0);
    });

    it('lets a staff member take one, and a sandbox business needs no payment account', async () => {
      const biz = await bookable();
      const token = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
      assert.equal((await staffDeposit(biz, {}, bearer(token))).statusCode, 201);
      const sandbox = await setupBookable(ctx.app, { sandbox: true });
      assert.equal((await staffDeposit(sandbox)).statusCode, 201);
    });

    it('confirms the booking when the guest pays through the link', async () => {
      const biz = await bookable();
      const { booking, checkout_url } = await staffDepositOk(biz);
      const paid = await checkout(checkout_url, 'complete');
      assert.equal(paid.statusCode, 200, paid.body);
      const shown = await bookingView(ctx.app, biz, booking.id);
      assert.equal(shown.status, 'confirmed');
      assert.equal(shown.deposit.status, 'paid');
      assert.equal(shown.deposit.processor_payment_id, paid.json().payment_intent);
    });

    it('is not paid by a completed checkout of another amount or currency', async () => {
      const biz = await bookable();
      const { booking, checkout_url } = await staffDepositOk(biz);
      const session = (await ctx.app.payments.simulated.find(sessionIdOf(checkout_url)))!;
      const completed = { ...session, status: 'complete', payment_status: 'paid' };
      for (const wrong of [{ amount_total: 100 }, { currency: 'gbp' }]) {
        const response = await sendProcessorEvent(ctx.app, 'checkout.session.completed', {
          ...completed,
          ...wrong,
        });
        assert.equal(response.statusCode, 200, response.body);
      }
      const shown = await bookingView(ctx.app, biz, booking.id);
      assert.equal(shown.status, 'pending');
      assert.equal(shown.deposit.status, 'requires_payment');
      const trail = await auditTrail(ctx.app, booking.id);
      assert.equal(trail.filter((line) => line === 'deposit.amount_mismatch by system').length, 2);
      assert.ok(!trail.some((line) => line.startsWith('deposit.failed')), trail.join('\n'));
      await sendProcessorEvent(ctx.app, 'checkout.session.completed', completed);
      assert.equal((await bookingView(ctx.app, biz, booking.id)).deposit.status, 'paid');
    });

    it('cancels the unpaid booking when the link expires, with or without the processor saying so', async () => {
      const biz = await bookable();
      const expired = await staffDepositOk(biz, { time: '10:00' });
      assert.equal((await checkout(expired.checkout_url, 'expire')).statusCode, 200);
      const byEvent = await bookingView(ctx.app, biz, expired.booking.id);
      assert.equal(byEvent.status, 'cancelled');
      assert.equal(byEvent.deposit.status, 'failed');

      const silent = await staffDepositOk(biz, { time: '14:00' });
      ctx.app.clock.now = () => Date.parse(silent.expires_at) - MINUTE;
      await ctx.app.jobs.runAll();
      assert.equal((await bookingView(ctx.app, biz, silent.booking.id)).status, 'pending');
      ctx.app.clock.now = () => Date.parse(silent.expires_at) + MINUTE;
      await ctx.app.jobs.runAll();
      const byDeadline = await bookingView(ctx.app, biz, silent.booking.id);
      assert.equal(byDeadline.status, 'cancelled');
      assert.equal(byDeadline.deposit.status, 'failed');
      for (const { booking } of [expired, silent]) {
        assert.deepEqual((await auditTrail(ctx.app, booking.id)).slice(1), [
          'booking.cancelled_unpaid by system',
          'deposit.failed by system',
        ]);
      }
    });

    it('tries an email the mail server refused again later', async () => {
      const biz = await bookable();
      refusedRecipient = 'later@example.com';
      await staffDepositOk(biz, { email: 'later@example.com' });
      assert.equal((await ctx.app.jobs.runAll()).email, 1);
      const failed = await ctx.app.db.selectFrom('message_outbox').selectAll().executeTakeFirstOrThrow();
      assert.equal(failed.sent_at, null);
      assert.equal(failed.attempts, 1);
      assert.ok(failed.last_error);
      assert.equal((await ctx.app.jobs.runAll()).email, 0);
      refusedRecipient = null;
      ctx.app.clock.now = () => Date.now() + 2 * MINUTE;
      assert.equal((await ctx.app.jobs.runAll()).email, 1);
      const sent = await ctx.app.db.selectFrom('message_outbox').selectAll().executeTakeFirstOrThrow();
      assert.ok(sent.sent_at);
      assert.equal(sent.attempts, 2);
      assert.equal(sent.last_error, null);
      assert.deepEqual(
        received.map((mail) => mail.to),
        [['later@example.com']],
      );
    });
  });

  describe('409', () => {
    it('answers slot_unavailable when no resource is free', async () => {
      const biz = await bookable();
      await staffDepositOk(biz);
      const response = await staffDeposit(biz, { time: '12:40' });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().error.code, 'slot_unavailable');
      assert.equal(
        await ctx.app.db
          .selectFrom('message_outbox')
          .select('id')
          .execute()
          .then((rows) => rows.length),
        1,
      );
    });
  });

  describe('422', () => {
    it('needs a valid guest email', async () => {
      const biz = await bookable();
      await assertNamesFields(
        [
          [{ email: undefined }, 'email'],
          [{ email: null }, 'email'],
          [{ email: 'not an email' }, 'email'],
          [{ phone: '123' }, 'phone'],
          [{ capacity: 51 }, 'capacity'],
        ],
        (body) => staffDeposit(biz, body),
      );
    });

    it('answers deposits_not_enabled without a payment account, making no payment link', async () => {
      const biz = await bookable({ account: false });
      const response = await staffDeposit(biz);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.code, 'deposits_not_enabled');
      const objects = await ctx.app.db.selectFrom('simulated_processor_objects').select('id').execute();
      assert.deepEqual(objects, []);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: URL,
        payload: { date: TOMORROW, time: '12:00', ...guest() },
        scope: 'write',
        staff: true,
      }),
    });
  });
});

describe('email without SMTP_URL', () => {
  it('is logged with its recipient and subject, never its body, and marked sent', async () => {
    const lines: unknown[][] = [];
    const log = { info: (...args: unknown[]) => lines.push(args) } as unknown as FastifyBaseLogger;
    const sender = new EmailSender(ctx.app.db, ctx.app.clock, log, {
      smtpUrl: undefined,
      publicBaseUrl: ctx.config.publicBaseUrl,
      mailFrom: ctx.config.mailFrom,
    });
    await withTx(ctx.app.db, (tx) =>
      enqueueEmail(tx, { businessId: null, to: 'guest@example.com', subject: 'Hello', text: 'secret link' }),
    );
    assert.equal(await sender.run(), 1);
    assert.equal(lines.length, 1);
    assert.deepEqual((lines[0]![0] as Record<string, unknown>).to, 'guest@example.com');
    assert.deepEqual((lines[0]![0] as Record<string, unknown>).subject, 'Hello');
    assert.ok(!JSON.stringify(lines).includes('secret link'));
    const row = await ctx.app.db.selectFrom('message_outbox').selectAll().executeTakeFirstOrThrow();
    assert.ok(row.sent_at);
    assert.equal(received.length, 0);
  });
});

describe("a sandbox business's email", () => {
  it('goes to its developer and its active staff only; to anyone else it is logged, not sent, and marked so', async () => {
    const biz = await setupBookable(ctx.app, {
      sandbox: true,
      resources: [{ name: 'Only', capacity_min: 1, capacity_max: 6 }],
    });
    const invite = async (email: string) => {
      const invited = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/staff',
        headers: biz.tenant.headers,
        payload: { email, role: 'staff_member', password: 'staff password 123' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
    };
    // One member has joined (signed in with the password of the invitation); the other has not.
    const staffEmail = uniqueEmail('host');
    await invite(staffEmail);
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: staffEmail, password: 'staff password 123' },
    });
    assert.equal(login.statusCode, 200, login.body);
    const invitedEmail = uniqueEmail('invited');
    await invite(invitedEmail);
    await ctx.app.jobs.runAll();
    received.length = 0;
    const outsider = 'victim@example.net';
    const developer = biz.tenant.developer.email.toUpperCase();
    for (const [email, time] of [
      [outsider, '10:00'],
      [developer, '12:00'],
      [staffEmail, '14:00'],
      [invitedEmail, '16:00'],
    ] as const) {
      const response = await staffDeposit(biz, { email, time });
      assert.equal(response.statusCode, 201, response.body);
    }
    await ctx.app.jobs.runAll();
    const recipients = received.flatMap((mail) => mail.to.map((to) => to.toLowerCase()));
    assert.ok(!recipients.includes(outsider), recipients.join());
    assert.ok(recipients.includes(developer.toLowerCase()), recipients.join());
    assert.ok(recipients.includes(staffEmail), recipients.join());
    assert.ok(!recipients.includes(invitedEmail), recipients.join());
    const invitedWithheld = await ctx.app.db
      .selectFrom('message_outbox')
      .select(['withheld_at', 'sent_at'])
      .where('to_address', '=', invitedEmail)
      .where('subject', 'like', 'Pay the deposit%')
      .executeTakeFirstOrThrow();
    assert.ok(invitedWithheld.withheld_at, 'an invited member has not joined: withheld');
    assert.equal(invitedWithheld.sent_at, null);
    const withheld = await ctx.app.db
      .selectFrom('message_outbox')
      .selectAll()
      .where('to_address', '=', outsider)
      .executeTakeFirstOrThrow();
    assert.ok(withheld.withheld_at, 'marked withheld');
    assert.equal(withheld.sent_at, null);
    await ctx.app.jobs.runAll();
    assert.ok(!received.some((mail) => mail.to.includes(outsider)));
  });

  it('lets a live business email anyone', async () => {
    const biz = await bookable();
    assert.equal((await staffDeposit(biz, { email: 'victim@example.net' })).statusCode, 201);
    await ctx.app.jobs.runAll();
    assert.deepEqual(
      received.map((mail) => mail.to),
      [['victim@example.net']],
    );
  });
});

describe('venueInSubject', () => {
  it('quotes the name, without control characters or line breaks, its spaces collapsed', () => {
    assert.equal(venueInSubject('Bistro Race'), '"Bistro Race"');
    assert.equal(
      venueInSubject(' Urgent:\r\nBcc: all@example.com\t\u0007 your\u202e account '),
      '"Urgent: Bcc: all@example.com your account"',
    );
  });

  it('caps a long name at 60 characters with an ellipsis', () => {
    const capped = venueInSubject(`Your account is suspended ${'x'.repeat(80)}`);
    assert.equal([...capped.slice(1, -1)].length, 60);
    assert.ok(capped.endsWith('…"'), capped);
    assert.ok(capped.startsWith('"Your account is suspended x'), capped);
    assert.equal(venueInSubject('é'.repeat(60)), `"${'é'.repeat(60)}"`);
  });

  it("is the venue's name in a payment link's subject", async () => {
    const biz = await bookable();
    await ctx.app.db
      .updateTable('businesses')
      .set({ name: 'Security team\nReset your password now' })
      .where('id', '=', biz.tenant.businessId)
      .execute();
    assert.equal((await staffDeposit(biz, { email: 'ada@example.com' })).statusCode, 201);
    const [row] = await ctx.app.db.selectFrom('message_outbox').select('subject').execute();
    assert.equal(row!.subject, 'Pay the deposit for your booking at "Security team Reset your password now"');
  });
});
