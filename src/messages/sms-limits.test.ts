import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BookableBusiness,
  bookOk,
  daysFromNow,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { useTwilioApp } from '../../test/fake-twilio.ts';
import { bearer, dashboardToken, ENGINE } from '../../test/helpers.ts';
import { PLANS, quotaMonth } from '../billing/plans.rules.ts';
import { setSubscription } from '../billing/subscription.service.ts';
import { defaultPublishableKey } from '../developers/api-keys.service.ts';
import { insertMessage } from './outbox.queries.ts';
import { Withheld } from './outbox-sender.jobs.ts';
import { SmsSender, smsProvider } from './sms.jobs.ts';
import { admitSms } from './sms-limits.service.ts';

// SMS cost money per message: whoever can make a booking must not be able to make the platform
// text premium-rate numbers, or any number without end.

const { ctx, twilio } = useTwilioApp();

/** A German venue (its time zone's country) that texts its guests. */
const textingVenue = (settings: Record<string, unknown> = {}) =>
  setupBookable(ctx.app, { settings: { sms_enabled: true, timezone: 'Europe/Berlin', ...settings } });

/** German mobile numbers, distinct for each `n` below 100. */
const mobile = (n: number) => `+49 151 234567${String(n).padStart(2, '0')}`;

const newSender = () =>
  new SmsSender(
    ctx.app.db,
    ctx.app.clock,
    ctx.app.log,
    smsProvider(ctx.config.twilio, ctx.app.log),
    ctx.config,
  );

/** Runs the app's SMS sender until nothing is due; answers how many messages it went through. */
async function sendAll(): Promise<number> {
  const sender = newSender();
  let total = 0;
  for (let tried = await sender.run(); tried > 0; tried = await sender.run()) total += tried;
  return total;
}

interface ListedSms {
  status: string;
  error: string | null;
  withheld_class: string | null;
  recipient: string;
}

async function listedSms(biz: BookableBusiness): Promise<ListedSms[]> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/v1/manage/messages?limit=100',
    headers: biz.tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json().items as (ListedSms & { channel: string })[])
    .filter((message) => message.channel === 'sms')
    .map(({ status, error, withheld_class, recipient }) => ({ status, error, withheld_class, recipient }));
}

/** How many of the listed SMS have each status (and class, when withheld). */
function tally(listed: ListedSms[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, withheld_class } of listed) {
    const key = withheld_class ? `${status}:${withheld_class}` : status;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

let ip = 0;
/** A booking from the hosted page: its default publishable key, from the API's own origin. */
async function bookFromHostedPage(biz: BookableBusiness, day: number, phone: string) {
  const key = await defaultPublishableKey(ctx.app.db, biz.tenant.businessId);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/bookings',
    headers: { ...bearer(key), origin: new URL(ctx.config.publicBaseUrl).origin },
    remoteAddress: `198.51.100.${(ip++ % 250) + 1}`,
    payload: {
      business_id: biz.tenant.businessId,
      booking_date: daysFromNow(day),
      start_time: '12:00',
      capacity: 2,
      ...guest({ phone }),
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  assert.equal(response.json().booking.status, 'confirmed');
}

describe('SMS pumping', () => {
  it('texts no premium-rate or foreign number booked with the public key: withheld by country or type', async () => {
    // Great Britain allowed too, so its premium-rate numbers are refused for their type alone.
    const biz = await textingVenue({ sms_countries: ['DE', 'GB'] });
    const numbers = [
      '+882 1234567890',
      '+881 612345678',
      '+44 9012 345678',
      '+882 1234567891',
      '+881 612345679',
      '+44 9012 345679',
      '+44 909 8790000',
      '+882 1234567892',
      '+881 612345670',
      '+44 9012 345670',
    ];
    for (const [i, phone] of numbers.entries()) await bookFromHostedPage(biz, i + 2, phone);
    await sendAll();
    assert.equal(twilio.calls.length, 0);
    assert.deepEqual(tally(await listedSms(biz)), {
      'withheld:sms_country': 6,
      'withheld:sms_number_type': 4,
    });
  });

  it("texts only the business's own country unless told otherwise, and never a personal or shared-cost number", async () => {
    const biz = await textingVenue();
    await bookOk(ctx.app, biz, { phone: '+33 6 12 34 56 78' });
    await bookOk(ctx.app, biz, { phone: '+49 700 12345678', start_time: '13:00' });
    await bookOk(ctx.app, biz, { phone: mobile(1) });
    await sendAll();
    assert.deepEqual(
      twilio.calls.map((call) => call.form.To),
      ['+4915123456701'],
    );
    assert.deepEqual(tally(await listedSms(biz)), {
      sent: 1,
      'withheld:sms_country': 1,
      'withheld:sms_number_type': 1,
    });
  });

  it('stops a trial developer booking and cancelling to distinct numbers at the daily cap of the business', async () => {
    const biz = await textingVenue({ sms_per_day: 5 });
    for (let i = 0; i < 15; i++) {
      const booking = await bookOk(ctx.app, biz, { phone: mobile(i) });
      const cancelled = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
        payload: { status: 'cancelled' },
      });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
    }
    await sendAll();
    assert.equal(twilio.calls.length, 5);
    assert.deepEqual(tally(await listedSms(biz)), { sent: 5, 'withheld:sms_daily_cap': 10 });
  });

  it("keeps to the plan's SMS of the month: none on the free plan, 50 in a trial", async () => {
    const free = await textingVenue();
    await setSubscription(ctx.app.db, ctx.app.changes, free.tenant.developer.id, {
      status: 'active',
      planId: 'free',
    });
    await bookOk(ctx.app, free, { phone: mobile(1) });

    const trial = await textingVenue();
    // 49 of the trial's 50 already sent this month, by another business of the same developer.
    await ctx.app.db
      .insertInto('sms_counts')
      .values({
        scope: 'developer',
        owner: trial.tenant.developer.id,
        number: '',
        period: quotaMonth(ctx.app.clock.now()),
        sent: 49,
      })
      .execute();
    await bookOk(ctx.app, trial, { phone: mobile(2) });
    await bookOk(ctx.app, trial, { phone: mobile(3) });
    await sendAll();

    assert.deepEqual(tally(await listedSms(free)), { 'withheld:sms_allowance_used': 1 });
    assert.deepEqual(tally(await listedSms(trial)), { sent: 1, 'withheld:sms_allowance_used': 1 });
    assert.equal(twilio.calls.length, 1);
    assert.equal(PLANS.starter.monthlySms, 200);
  });

  it('withholds the 4th SMS to one number on one day, from any business, and texts it again the next day', async () => {
    const biz = await textingVenue();
    for (const time of ['10:00', '11:00', '12:00', '13:00']) {
      await bookOk(ctx.app, biz, { phone: mobile(7), start_time: time });
    }
    const other = await textingVenue();
    await bookOk(ctx.app, other, { phone: mobile(7) });
    await sendAll();
    assert.equal(twilio.calls.length, 3);
    assert.deepEqual(tally(await listedSms(biz)), { sent: 3, 'withheld:sms_daily_cap': 1 });
    assert.deepEqual(tally(await listedSms(other)), { 'withheld:sms_daily_cap': 1 });

    const tomorrow = Date.now() + 86_400_000;
    ctx.app.clock.now = () => tomorrow;
    await bookOk(ctx.app, biz, { phone: '0151 23456707', start_time: '14:00' });
    await sendAll();
    assert.equal(twilio.calls.length, 4);
    assert.equal(twilio.calls[3]!.form.To, '+4915123456707');
  });

  it('holds staff bookings past the booking quota to the SMS caps too', async () => {
    const biz = await textingVenue({ sms_per_day: 2 });
    await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
      status: 'active',
      planId: 'starter',
    });
    await ctx.app.db
      .insertInto('booking_usage')
      .values({
        developer_id: biz.tenant.developer.id,
        month: quotaMonth(ctx.app.clock.now()),
        bookings: PLANS.starter.monthlyBookings,
      })
      .execute();
    const staff = bearer(await dashboardToken(ctx.app, biz.tenant, 'staff_member'));
    for (const [i, time] of ['10:00', '11:00', '12:00'].entries()) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: staff,
        payload: { date: daysFromNow(7), time, first_name: 'W', last_name: 'Alk', phone: mobile(20 + i) },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    await sendAll();
    // The first written go first.
    assert.deepEqual(
      twilio.calls.map((call) => call.form.To),
      ['+4915123456720', '+4915123456721'],
    );
    assert.deepEqual(tally(await listedSms(biz)), { sent: 2, 'withheld:sms_daily_cap': 1 });
  });

  it('sends a national number in the E.164 form of the business country: of its time zone, or as set', async () => {
    const berlin = await textingVenue();
    await bookOk(ctx.app, berlin, { phone: '030 1234567' });
    const utc = await setupBookable(ctx.app, { settings: { sms_enabled: true, country: 'de' } });
    await bookOk(ctx.app, utc, { phone: '(030) 7654-321' });
    await sendAll();
    assert.deepEqual(twilio.calls.map((call) => call.form.To).sort(), ['+49301234567', '+49307654321']);
  });

  it('counts an SMS once, however often it is tried', async () => {
    const biz = await textingVenue({ sms_per_day: 1 });
    await bookOk(ctx.app, biz, { phone: mobile(1) });
    twilio.failNext(500);
    const start = Date.now();
    ctx.app.clock.now = () => start;
    await newSender().run();
    ctx.app.clock.now = () => start + 60_000;
    await newSender().run();
    assert.equal(twilio.calls.length, 2);
    assert.deepEqual(tally(await listedSms(biz)), { sent: 1 });
  });
});

describe('SMS caps under concurrency', () => {
  /** Writes `phones.length` confirmation SMS of the business straight into the outbox; answers them as claimed. */
  async function queued(biz: BookableBusiness, phones: string[]) {
    for (const phone of phones) {
      await insertMessage(ctx.app.db, {
        businessId: biz.tenant.businessId,
        type: 'booking_confirmed',
        channel: 'sms',
        to: phone,
        payload: {},
      });
    }
    return ctx.app.db
      .selectFrom('message_outbox')
      .select(['id', 'business_id', 'to_address', 'sms_to'])
      .where('business_id', '=', biz.tenant.businessId)
      .execute();
  }

  /** Admits every message at once; answers how many were let go, and the classes of the others. */
  async function admitAtOnce(messages: Awaited<ReturnType<typeof queued>>) {
    const outcomes = await Promise.allSettled(
      messages.map((message) => admitSms(ctx.app.db, message, ctx.app.clock.now(), 1000)),
    );
    const withheld = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [(outcome.reason as Withheld).withheld] : [],
    );
    assert.equal(withheld.length + outcomes.filter((o) => o.status === 'fulfilled').length, messages.length);
    assert.ok(
      outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof Withheld),
      String(outcomes.find((o) => o.status === 'rejected' && !(o.reason instanceof Withheld))),
    );
    return { admitted: messages.length - withheld.length, withheld: new Set(withheld) };
  }

  it(`lets 3 of 30 SMS to one number go when all are sent at once (${ENGINE})`, async () => {
    const biz = await textingVenue();
    const messages = await queued(
      biz,
      Array.from({ length: 30 }, () => mobile(5)),
    );
    assert.deepEqual(await admitAtOnce(messages), { admitted: 3, withheld: new Set(['sms_daily_cap']) });
  });

  it(`lets sms_per_day of 30 SMS to distinct numbers go when all are sent at once (${ENGINE})`, async () => {
    const biz = await textingVenue({ sms_per_day: 7 });
    const messages = await queued(
      biz,
      Array.from({ length: 30 }, (_, i) => mobile(i)),
    );
    assert.deepEqual(await admitAtOnce(messages), { admitted: 7, withheld: new Set(['sms_daily_cap']) });
  });

  it('holds sms_per_day to SMS_MAX_PER_BUSINESS_PER_DAY when that is lowered below it', async () => {
    const biz = await textingVenue();
    const messages = await queued(
      biz,
      Array.from({ length: 4 }, (_, i) => mobile(i)),
    );
    const admitted = [];
    for (const message of messages) {
      admitted.push(await admitSms(ctx.app.db, message, ctx.app.clock.now(), 2).catch((error) => error));
    }
    assert.deepEqual(
      admitted.map((outcome) => (outcome instanceof Withheld ? outcome.withheld : 'admitted')),
      ['admitted', 'admitted', 'sms_daily_cap', 'sms_daily_cap'],
    );
  });

  it(`keeps to the caps under 40 bookings at once and 4 senders (${ENGINE})`, async () => {
    const biz = await textingVenue({ sms_per_day: 10 });
    const shared = mobile(99);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postBooking(ctx.app, biz, {
          booking_date: daysFromNow(2 + Math.floor(i / 3)),
          phone: i % 2 ? shared : mobile(i),
        }),
      ),
    );
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      responses.map(() => 201),
    );
    await Promise.all(Array.from({ length: 4 }, () => newSender().run()));
    await sendAll();
    const listed = await listedSms(biz);
    const to = twilio.calls.map((call) => call.form.To);
    assert.equal(to.length, 10, JSON.stringify(listed));
    assert.ok(to.filter((number) => number === '+4915123456799').length <= 3);
    assert.deepEqual(tally(listed), { sent: 10, 'withheld:sms_daily_cap': 30 });
  });
});
