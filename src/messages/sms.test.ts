import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { type BookableBusiness, bookOk, guest, send, setupBookable } from '../../test/booking-fixtures.ts';
import { TEST_TWILIO, useTwilioApp } from '../../test/fake-twilio.ts';
import { insertMessage } from './outbox.queries.ts';
import { LogSms, SmsSender, smsProvider, TwilioSms } from './sms.jobs.ts';

const { ctx, twilio } = useTwilioApp();

/** A confirmed booking of the business: its change writes the confirmation SMS into the outbox. */
const confirmationSms = (biz: BookableBusiness, phone: string) => bookOk(ctx.app, biz, guest({ phone }));

async function listed(biz: BookableBusiness) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/v1/manage/messages',
    headers: biz.tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return (
    response.json().items as {
      status: string;
      error: string | null;
      withheld_class: string | null;
      channel: string;
      recipient: string;
    }[]
  ).filter((message) => message.channel === 'sms');
}

/** The app's SMS sender alone: the email messages of the same bookings stay unsent. */
const sendDue = () =>
  new SmsSender(
    ctx.app.db,
    ctx.app.clock,
    ctx.app.log,
    smsProvider(ctx.config.twilio, ctx.app.log),
    ctx.config,
  ).run();

/** A German venue that texts its guests. */
const textingVenue = (settings: Record<string, unknown> = {}) =>
  setupBookable(ctx.app, { settings: { sms_enabled: true, timezone: 'Europe/Berlin', ...settings } });

/** A German mobile number. */
const MOBILE = '+49 151 23456789';

describe('SMS sender', () => {
  it("sends a confirmation through Twilio's SDK, rendered in the business's language", async () => {
    const biz = await textingVenue({ notification_language: 'de' });
    const booking = await confirmationSms(biz, MOBILE);
    assert.equal(await sendDue(), 1);
    assert.equal(twilio.calls.length, 1);
    const [call] = twilio.calls;
    assert.equal(call!.accountSid, TEST_TWILIO.accountSid);
    assert.equal(call!.username, TEST_TWILIO.accountSid);
    assert.equal(call!.password, TEST_TWILIO.authToken);
    // As the guest typed it, then in the form the provider takes.
    assert.equal(call!.form.To, '+4915123456789');
    assert.equal(call!.form.From, TEST_TWILIO.from);
    assert.equal(call!.form.MessagingServiceSid, undefined);
    const body = call!.form.Body!;
    assert.ok(body.startsWith('Bistro Race: bestätigt '), body);
    assert.ok(body.includes(`Code ${booking.confirmation_code}`), body);
    assert.ok(
      body.endsWith(
        `${ctx.config.publicBaseUrl}/book/${biz.tenant.slug}?manage=${booking.confirmation_code}`,
      ),
      body,
    );
    assert.ok([...body].length <= 160);
    assert.deepEqual(
      (await listed(biz)).map(({ status, error }) => ({ status, error })),
      [{ status: 'sent', error: null }],
    );
    assert.equal(await sendDue(), 0);
    assert.equal(twilio.calls.length, 1);
  });

  it('texts a walk-in that its table is ready as the message was written, under the SMS limits', async () => {
    const biz = await textingVenue({ notification_language: 'de' });
    const { walk_in } = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/walk-ins', {
      capacity: 2,
      phone: MOBILE,
    });
    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/walk-ins/${walk_in.id}/notify`);
    assert.equal(await sendDue(), 1);
    assert.equal(twilio.calls.length, 1);
    assert.equal(twilio.calls[0]!.form.To, '+4915123456789');
    assert.equal(
      twilio.calls[0]!.form.Body,
      'Bistro Race: Ihr Tisch ist bereit. Bitte kommen Sie zum Empfang.',
    );
    assert.deepEqual(
      (await listed(biz)).map(({ status }) => status),
      ['sent'],
    );
  });

  it('tries again after a server error, and lists the message queued with the error class meanwhile', async () => {
    const biz = await textingVenue();
    await confirmationSms(biz, MOBILE);
    twilio.failNext(500);
    const start = Date.now();
    ctx.app.clock.now = () => start;
    assert.equal(await sendDue(), 1);
    assert.deepEqual(
      (await listed(biz)).map(({ status, error }) => ({ status, error })),
      [{ status: 'queued', error: 'http_500' }],
    );
    assert.equal(await sendDue(), 0, 'not before its retry time');
    ctx.app.clock.now = () => start + 60_000;
    assert.equal(await sendDue(), 1);
    assert.equal(twilio.calls.length, 2);
    assert.deepEqual(
      (await listed(biz)).map(({ status, error }) => ({ status, error })),
      [{ status: 'sent', error: null }],
    );
  });

  it('gives up at once on a refusal: a number Twilio will not take', async () => {
    const biz = await textingVenue();
    await confirmationSms(biz, MOBILE);
    twilio.failNext(400);
    await sendDue();
    ctx.app.clock.now = () => Date.now() + 24 * 3_600_000;
    assert.equal(await sendDue(), 0);
    assert.equal(twilio.calls.length, 1);
    assert.deepEqual(
      (await listed(biz)).map(({ status, error }) => ({ status, error })),
      [{ status: 'failed', error: 'http_400' }],
    );
  });

  it("texts nobody for a sandbox business, not even the venue's own phone: withheld, class sandbox", async () => {
    const biz = await setupBookable(ctx.app, {
      sandbox: true,
      settings: { sms_enabled: true, timezone: 'Europe/Berlin', phone: '+44 9012 345678' },
    });
    await confirmationSms(biz, MOBILE);
    await confirmationSms(biz, '+44 9012 345678');
    assert.equal(await sendDue(), 2);
    assert.equal(twilio.calls.length, 0);
    assert.deepEqual(
      (await listed(biz)).map(({ status, error, withheld_class }) => ({ status, error, withheld_class })),
      [
        { status: 'withheld', error: null, withheld_class: 'sandbox' },
        { status: 'withheld', error: null, withheld_class: 'sandbox' },
      ],
    );
  });

  it('leaves email rows to the email sender', async () => {
    const biz = await setupBookable(ctx.app);
    await insertMessage(ctx.app.db, {
      businessId: biz.tenant.businessId,
      type: 'booking_reminder',
      channel: 'email',
      to: 'grace@example.com',
      payload: {},
    });
    assert.equal(await sendDue(), 0);
    assert.equal(twilio.calls.length, 0);
  });

  it('sends from a messaging service when one is configured', async () => {
    await new TwilioSms({
      ...TEST_TWILIO,
      from: undefined,
      messagingServiceSid: 'MG0123',
      apiBase: twilio.url,
    }).send({
      to: '+4915123456789',
      body: 'hello',
      messageId: 'm1',
    });
    assert.equal(twilio.calls[0]!.form.MessagingServiceSid, 'MG0123');
    assert.equal(twilio.calls[0]!.form.From, undefined);
  });

  it('logs an SMS without Twilio: the recipient masked, never the text', async () => {
    const lines: unknown[] = [];
    const log = { info: (...args: unknown[]) => lines.push(args) } as unknown as FastifyBaseLogger;
    await new LogSms(log).send({ to: '+49 151 2345678', body: 'secret link', messageId: 'm1' });
    assert.equal(lines.length, 1);
    const text = JSON.stringify(lines);
    assert.match(text, /\*\*\*678/);
    assert.doesNotMatch(text, /secret link|2345678/);
  });
});
