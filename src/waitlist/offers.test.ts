import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  daysFromNow,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import {
  bookingView,
  confirmPayment,
  depositRow,
  setupDepositBusiness,
} from '../../test/deposit-fixtures.ts';
import { createTenant, RACE, useTestApp } from '../../test/helpers.ts';
import { PLANS, quotaMonth } from '../billing/plans.rules.ts';
import { setSubscription } from '../billing/subscription.service.ts';

const ctx = useTestApp({ webhookAllowPrivateUrls: true });
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const db = () => ctx.database.db;

/**
 * One table for four, open 18:00 to 20:00: the grid offers 18:00, 18:30 and 19:00 for an hour, so
 * bookings at 18:00 and 19:00 fill the day.
 */
async function fullEvening(): Promise<{ biz: BookableBusiness; early: string; late: string }> {
  const biz = await setupBookable(ctx.app, {
    open: '18:00',
    close: '20:00',
    resources: [{ name: 'T4', capacity_min: 1, capacity_max: 4 }],
  });
  const early = (await bookOk(ctx.app, biz, { start_time: '18:00' })).id;
  const late = (await bookOk(ctx.app, biz, { start_time: '19:00' })).id;
  return { biz, early, late };
}

let phone = 5000;
async function wait(biz: BookableBusiness, fields: Record<string, unknown> = {}) {
  phone++;
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/v1/waitlist/${biz.tenant.businessId}`,
    payload: {
      customer: {
        first_name: 'Ada',
        last_name: `Guest${phone}`,
        phone: `+49 30 777 ${phone}`,
        email: `ada${phone}@example.com`,
      },
      preferred_date: BOOKING_DAY,
      capacity: 2,
      ...fields,
    },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().waitlist_id as string;
}

async function cancel(biz: BookableBusiness, bookingId: string) {
  const response = await ctx.app.inject({
    method: 'PATCH',
    url: `/v1/manage/bookings/${bookingId}`,
    headers: biz.tenant.headers,
    payload: { status: 'cancelled' },
  });
  assert.equal(response.statusCode, 200, response.body);
}

const runJobs = () => ctx.app.jobs.runAll();

const offers = () => db().selectFrom('waitlist_offers').selectAll().orderBy('created_at').execute();

/** The offer messages written, with the link's token taken from their payload. */
async function offerMessages() {
  const rows = await db()
    .selectFrom('message_outbox')
    .select(['to_address', 'waitlist_entry_id', 'payload', 'type'])
    .where('type', '=', 'waitlist_offer')
    .orderBy('created_at')
    .execute();
  return rows.map((row) => {
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<
      string,
      unknown
    >;
    return { ...row, payload, token: String(payload.offer_url).split('/').pop()! };
  });
}

const list = (biz: BookableBusiness, headers = biz.tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: '/v1/manage/waitlist', headers });

const page = (token: string, method: 'GET' | 'POST' = 'GET') =>
  ctx.app.inject({
    method,
    url: `/waitlist/offer/${token}`,
    ...(method === 'POST'
      ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }
      : {}),
  });

const accept = (token: string) =>
  ctx.app.inject({ method: 'POST', url: `/v1/public/waitlist-offers/${token}/accept` });

const countBookings = async (businessId: string) =>
  Number(
    (
      await db()
        .selectFrom('bookings')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('business_id', '=', businessId)
        .where('status', '!=', 'cancelled')
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('waitlist entries: time window and offer fields', () => {
  it('stores the window and lists it with offered_at and booked_booking_id, only to their business', async () => {
    const { biz } = await fullEvening();
    const id = await wait(biz, { preferred_time_from: '18:00', preferred_time_to: '19:30' });
    const [item] = (await list(biz)).json().items;
    assert.equal(item.id, id);
    assert.equal(item.preferred_time_from, '18:00');
    assert.equal(item.preferred_time_to, '19:30');
    assert.equal(item.offered_at, null);
    assert.equal(item.booked_booking_id, null);
    const other = await createTenant(ctx.app);
    assert.deepEqual((await list(biz, other.headers)).json().items, []);
    const unauthenticated = await ctx.app.inject({ method: 'GET', url: '/v1/manage/waitlist' });
    assert.equal(unauthenticated.statusCode, 401);
  });

  it('refuses half a window and a window that does not run forward', async () => {
    const { biz } = await fullEvening();
    for (const [fields, field] of [
      [{ preferred_time_from: '18:00' }, 'preferred_time_to'],
      [{ preferred_time_to: '18:00' }, 'preferred_time_from'],
      [{ preferred_time_from: '19:00', preferred_time_to: '18:00' }, 'preferred_time_to'],
      [{ preferred_time_from: '19:00', preferred_time_to: '19:00' }, 'preferred_time_to'],
      [{ preferred_time_from: '25:00', preferred_time_to: '26:00' }, 'preferred_time_from'],
    ] as const) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/v1/waitlist/${biz.tenant.businessId}`,
        payload: {
          customer: { first_name: 'A', last_name: 'B', phone: '+49 30 1234 567' },
          preferred_date: BOOKING_DAY,
          ...fields,
        },
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, field);
    }
  });
});

describe('offers made when room is freed', () => {
  it('offers the freed time to the oldest waiting entry, with the payload the message is rendered from', async () => {
    const { biz, early } = await fullEvening();
    const first = await wait(biz);
    await wait(biz);
    await runJobs();
    assert.equal((await offers()).length, 0, 'nothing freed, nothing offered');
    await cancel(biz, early);
    await runJobs();
    const [offer, ...more] = await offers();
    assert.equal(more.length, 0, 'one opening, one offer');
    assert.equal(offer!.waitlist_entry_id, first);
    assert.equal(offer!.start_time.slice(0, 5), '18:00');
    assert.deepEqual(offer!.resource_ids, [biz.resources.T4]);
    const [message] = await offerMessages();
    assert.equal(message!.waitlist_entry_id, first);
    assert.match(message!.to_address, /^ada\d+@example\.com$/);
    assert.deepEqual(Object.keys(message!.payload).sort(), [
      'booking_date',
      'ends_at',
      'expires_at',
      'guest_name',
      'offer_id',
      'offer_url',
      'party',
      'start_time',
      'starts_at',
    ]);
    assert.equal(message!.payload.offer_id, offer!.id);
    assert.equal(message!.payload.booking_date, BOOKING_DAY);
    assert.equal(message!.payload.start_time, '18:00');
    assert.equal(message!.payload.starts_at, `${BOOKING_DAY}T18:00:00.000Z`);
    assert.equal(message!.payload.ends_at, `${BOOKING_DAY}T19:00:00.000Z`);
    assert.equal(message!.payload.party, 2);
    assert.match(String(message!.payload.guest_name), /^Ada Guest\d+$/);
    assert.equal(message!.payload.offer_url, `${ctx.config.publicBaseUrl}/waitlist/offer/${message!.token}`);
    assert.equal(message!.payload.expires_at, offer!.expires_at.toISOString());
    const minutes = (offer!.expires_at.getTime() - offer!.created_at.getTime()) / 60_000;
    assert.equal(minutes, 30);
    const item = (await list(biz)).json().items.find((entry: { id: string }) => entry.id === first);
    assert.equal(item.offered_at, offer!.created_at.toISOString());
  });

  it('passes over an entry whose window or party does not fit the free time', async () => {
    const { biz, early } = await fullEvening();
    await wait(biz, { preferred_time_from: '19:00', preferred_time_to: '19:30' });
    await wait(biz, { capacity: 6 });
    const fitting = await wait(biz, { preferred_time_from: '17:00', preferred_time_to: '18:00' });
    await cancel(biz, early);
    await runJobs();
    const all = await offers();
    assert.deepEqual(
      all.map((offer) => offer.waitlist_entry_id),
      [fitting],
    );
  });

  it('passes over an entry the rules refuse (its service withdrawn) without holding up the queue', async () => {
    const { biz, early } = await fullEvening();
    const service = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/services',
      headers: biz.tenant.headers,
      payload: { name: 'Tasting', duration_minutes: 60 },
    });
    assert.equal(service.statusCode, 201, service.body);
    await wait(biz, { service_id: service.json().id });
    const next = await wait(biz);
    const removed = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/services/${service.json().id}`,
      headers: biz.tenant.headers,
    });
    assert.equal(removed.statusCode, 204, removed.body);
    await cancel(biz, early);
    const handled = await runJobs();
    assert.equal(handled['waitlist-offers'], 1);
    assert.deepEqual(
      (await offers()).map((offer) => offer.waitlist_entry_id),
      [next],
    );
  });

  it('writes no message to an entry without an email; the offer still shows in the list', async () => {
    const { biz, early } = await fullEvening();
    const id = await wait(biz, {
      customer: { first_name: 'No', last_name: 'Mail', phone: '+49 30 999 1111' },
    });
    await cancel(biz, early);
    await runJobs();
    assert.equal((await offers()).length, 1);
    assert.equal((await offerMessages()).length, 0);
    const [item] = (await list(biz)).json().items;
    assert.equal(item.id, id);
    assert.notEqual(item.offered_at, null);
  });

  it('offers a time moved away from, once per open time', async () => {
    const { biz, late } = await fullEvening();
    const first = await wait(biz);
    const second = await wait(biz);
    const moved = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${late}`,
      headers: biz.tenant.headers,
      payload: { booking_date: daysFromNow(8), start_time: '19:00' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    await runJobs();
    await runJobs();
    const all = await offers();
    assert.deepEqual(
      all.map((offer) => [offer.waitlist_entry_id, offer.start_time.slice(0, 5)]),
      [[first, '19:00']],
    );
    assert.ok(!all.some((offer) => offer.waitlist_entry_id === second));
  });

  it('passes an expired offer on to the next fitting entry; the expired link answers 410', async () => {
    const { biz, early } = await fullEvening();
    const first = await wait(biz);
    const second = await wait(biz);
    await cancel(biz, early);
    await runJobs();
    const [firstMessage] = await offerMessages();
    ctx.app.clock.now = () => Date.now() + 31 * 60_000;
    await runJobs();
    const all = await offers();
    assert.deepEqual(
      all.map((offer) => [offer.waitlist_entry_id, offer.status]),
      [
        [first, 'expired'],
        [second, 'open'],
      ],
    );
    const gone = await page(firstMessage!.token);
    assert.equal(gone.statusCode, 410);
    assert.match(gone.body, /This offer has expired/);
    const refused = await accept(firstMessage!.token);
    assert.equal(refused.statusCode, 410);
    assert.equal(refused.json().error.code, 'offer_expired');
    ctx.app.clock.now = () => Date.now() + 62 * 60_000;
    await runJobs();
    assert.equal((await offers()).filter((offer) => offer.status === 'open').length, 0, 'no one else waits');
  });
});

describe('the offer link books', () => {
  async function offered() {
    const { biz, early } = await fullEvening();
    const entry = await wait(biz);
    await cancel(biz, early);
    await runJobs();
    const [message] = await offerMessages();
    return { biz, entry, token: message!.token };
  }

  it("shows the offered time and the offer's end on the venue's clock", async () => {
    const { biz, token } = await offered();
    const pageOf = async (settings: {
      notification_language: 'en' | 'de';
      time_format: '12h' | '24h' | null;
    }) => {
      await db().updateTable('businesses').set(settings).where('id', '=', biz.tenant.businessId).execute();
      const shown = await page(token);
      assert.equal(shown.statusCode, 200);
      return shown.body;
    };
    // The offer's end closes its sentence: "... until Dec 4, 2026, 7:15 PM."
    const english = await pageOf({ notification_language: 'en', time_format: null });
    assert.match(english, /<dd>6:00 PM<\/dd>/);
    assert.match(english, /, [1-9]\d?:\d\d [AP]M\.<\/p>/);
    const english24 = await pageOf({ notification_language: 'en', time_format: '24h' });
    assert.match(english24, /<dd>18:00<\/dd>/);
    assert.match(english24, /, \d\d:\d\d\.<\/p>/);
    const german12 = await pageOf({ notification_language: 'de', time_format: '12h' });
    assert.match(german12, /<dd>6:00 PM<\/dd>/);
    assert.match(
      german12,
      /, [1-9]\d?:\d\d [AP]M\.<\/p>/,
      "no leading zero, which German's own pattern gives",
    );
  });

  it('shows the offer on GET without booking, then books on the page’s form post', async () => {
    const { biz, entry, token } = await offered();
    await db()
      .updateTable('businesses')
      .set({ name: 'Chez <Test> & Fils', notification_language: 'de' })
      .where('id', '=', biz.tenant.businessId)
      .execute();
    const before = await countBookings(biz.tenant.businessId);
    const shown = await page(token);
    assert.equal(shown.statusCode, 200);
    assert.ok(shown.headers['ratelimit-limit']);
    assert.equal(shown.headers['cache-control'], 'no-store');
    assert.match(shown.body, /<html lang="de">/);
    assert.match(shown.body, /Chez &lt;Test&gt; &amp; Fils/);
    assert.match(shown.body, /Diesen Tisch buchen/);
    assert.match(shown.body, /<form method="post">/);
    assert.match(shown.body, /18:00/);
    assert.equal(await countBookings(biz.tenant.businessId), before, 'GET never books');

    const booked = await page(token, 'POST');
    assert.equal(booked.statusCode, 200, booked.body);
    assert.match(booked.body, /Ihr Tisch ist gebucht/);
    const [offer] = await offers();
    assert.equal(offer!.status, 'taken');
    const booking = await db()
      .selectFrom('bookings')
      .selectAll()
      .where('id', '=', offer!.booked_booking_id!)
      .executeTakeFirstOrThrow();
    assert.match(booked.body, new RegExp(booking.confirmation_code));
    assert.equal(booking.source, 'online');
    assert.equal(booking.status, 'confirmed');
    assert.equal(booking.start_time.slice(0, 5), '18:00');
    assert.equal(booking.capacity, 2);
    const item = (await list(biz)).json().items.find((row: { id: string }) => row.id === entry);
    assert.equal(item.booked_booking_id, booking.id);
    const again = await page(token);
    assert.equal(again.statusCode, 200);
    assert.match(again.body, new RegExp(booking.confirmation_code));
    assert.equal((await page(token, 'POST')).statusCode, 200, 'a second press shows the same booking');
    assert.equal(await countBookings(biz.tenant.businessId), before + 1);
  });

  it('books through the JSON route: 201, then 409 once booked, 404 for an unknown token', async () => {
    const { biz, token } = await offered();
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/webhooks',
      headers: biz.tenant.headers,
      payload: { url: 'http://127.0.0.1:9999/hook', events: ['booking.created'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const response = await accept(token);
    assert.equal(response.statusCode, 201, response.body);
    assert.ok(response.headers['ratelimit-limit'], 'limited like other calls without a credential');
    const { booking } = response.json();
    assert.equal(booking.source, 'online');
    assert.equal(booking.start_time, '18:00');
    assert.equal(booking.customer, undefined, 'the link holder is not trusted with the customer record');
    const events = await db()
      .selectFrom('webhook_events')
      .select(['type', 'data'])
      .where('business_id', '=', biz.tenant.businessId)
      .execute();
    assert.ok(
      events.some(
        (event) => event.type === 'booking.created' && JSON.stringify(event.data).includes(booking.id),
      ),
      'booking.created fires for the offer’s booking',
    );
    const again = await accept(token);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'conflict');
    const unknown = await accept('no-such-token');
    assert.equal(unknown.statusCode, 404);
    assert.equal((await page('no-such-token')).statusCode, 404);
  });

  it('answers 409 slot_unavailable when the time was booked meanwhile', async () => {
    const { biz, token } = await offered();
    await bookOk(ctx.app, biz, { start_time: '18:00' });
    const response = await accept(token);
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().error.code, 'slot_unavailable');
    const shown = await page(token, 'POST');
    assert.equal(shown.statusCode, 409);
    assert.match(shown.body, /no longer free/);
  });

  it('many concurrent accepts of one offer book once', RACE, async () => {
    const { biz, token } = await offered();
    const before = await countBookings(biz.tenant.businessId);
    const answers = await Promise.all(Array.from({ length: 12 }, () => accept(token)));
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, ...Array(11).fill(409)]);
    assert.equal(await countBookings(biz.tenant.businessId), before + 1);
  });

  it('two offers of overlapping times on one table accepted at once: one wins', RACE, async () => {
    const { biz, early, late } = await fullEvening();
    await wait(biz);
    await wait(biz);
    await cancel(biz, early);
    await cancel(biz, late);
    await runJobs();
    const messages = await offerMessages();
    assert.deepEqual(messages.map((message) => message.payload.start_time).sort(), ['18:00', '18:30']);
    const answers = await Promise.all(messages.map((message) => accept(message.token)));
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409]);
    assert.equal(await countBookings(biz.tenant.businessId), 1);
  });
});

describe('accepting an offer is an online booking', () => {
  /** One table for eight, open 18:00 to 20:00, taking a charge of EUR 5 per guest. */
  async function depositEvening(settings: Record<string, unknown> = {}) {
    return setupDepositBusiness(ctx.app, 'charge', {
      open: '18:00',
      close: '20:00',
      resources: [{ name: 'T8', capacity_min: 1, capacity_max: 8 }],
      settings: { default_deposit_amount_cents: 500, ...settings },
    });
  }

  /** A guest books 18:00 online for two and pays, then the venue's cancellation frees it. */
  async function freeAfterPaidBooking(biz: BookableBusiness) {
    const booking = await bookOk(ctx.app, biz, { start_time: '18:00', capacity: 2 });
    assert.equal(booking.status, 'pending');
    await confirmPayment(ctx.app, booking.payment_client_secret);
    await cancel(biz, booking.id);
  }

  it('offers nothing to a party too large to book online, which waits for the staff', async () => {
    const biz = await depositEvening({ max_online_party_size: 4 });
    const online = await postBooking(ctx.app, biz, { start_time: '18:00', capacity: 8 });
    assert.equal(online.statusCode, 422, online.body);
    assert.equal(online.json().error.code, 'party_too_large_online');
    await wait(biz, { capacity: 8 });
    await freeAfterPaidBooking(biz);
    await runJobs();
    assert.deepEqual(await offers(), [], 'a party of 8 is not offered what it could not book online');
    assert.deepEqual(await offerMessages(), []);
  });

  it('books online with the deposit through the JSON route: pending until paid, counted as online', async () => {
    const biz = await depositEvening();
    await wait(biz);
    await freeAfterPaidBooking(biz);
    await runJobs();
    const [message] = await offerMessages();
    assert.ok(message, 'the party of two is offered the freed time');
    const response = await accept(message.token);
    assert.equal(response.statusCode, 201, response.body);
    const { booking } = response.json();
    assert.equal(booking.source, 'online');
    assert.equal(booking.status, 'pending');
    assert.equal(booking.deposit_type, 'charge');
    assert.ok(booking.payment_client_secret, 'the guest is given the deposit to pay, as online');
    assert.equal((await depositRow(ctx.app, booking.id))?.amount_cents, 1000);
    await confirmPayment(ctx.app, booking.payment_client_secret);
    assert.equal((await bookingView(ctx.app, biz, booking.id)).status, 'confirmed');
  });

  it('the page’s button holds the time and sends the guest to pay the deposit', async () => {
    const biz = await depositEvening({ notification_language: 'fr' });
    await wait(biz);
    await freeAfterPaidBooking(biz);
    await runJobs();
    const [message] = await offerMessages();
    const shown = await page(message!.token, 'POST');
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /Payez l’acompte pour confirmer votre table/);
    const href = /<a class="pay" href="([^"]+)"/.exec(shown.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(href?.startsWith('/simulated-processor/payment_intents/pi_'), shown.body);
    const payPage = await ctx.app.inject({ method: 'GET', url: href });
    assert.equal(payPage.statusCode, 200, payPage.body);
    const [offer] = await offers();
    const booking = await bookingView(ctx.app, biz, offer!.booked_booking_id!);
    assert.equal(booking.source, 'online');
    assert.equal(booking.status, 'pending');
  });

  it('refuses the offer once the plan’s monthly quota is used up, as online', async () => {
    const { biz, early } = await fullEvening();
    await wait(biz);
    await cancel(biz, early);
    await runJobs();
    const [message] = await offerMessages();
    await setSubscription(ctx.app.db, ctx.app.changes, biz.tenant.developer.id, {
      status: 'active',
      planId: 'free',
    });
    await db()
      .insertInto('booking_usage')
      .values({
        developer_id: biz.tenant.developer.id,
        month: quotaMonth(ctx.app.clock.now()),
        bookings: PLANS.free.monthlyBookings,
      })
      .onConflict((oc) =>
        oc.columns(['developer_id', 'month', 'shard']).doUpdateSet({ bookings: PLANS.free.monthlyBookings }),
      )
      .execute();
    const response = await accept(message!.token);
    assert.equal(response.statusCode, 402, response.body);
    assert.equal(response.json().error.code, 'plan_limit_reached');
  });
});
