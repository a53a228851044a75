import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  guest,
  postBooking,
  setupBookable,
  withoutGuestProfile,
} from '../../test/booking-fixtures.ts';
import { createTestApp, RACE, type Tenant, type TestContext } from '../../test/helpers.ts';
import { openPostgres } from '../platform/db.ts';
import { type DispatcherOptions, WebhookDispatcher } from './dispatcher.jobs.ts';
import { assertSigned, Receiver } from './receiver.fixture.ts';
import { type ResolvedAddress, systemResolver } from './target.adapter.ts';

/** Retries after 1 s, 2 s and 5 s (with jitter of a tenth either way), then the delivery has failed. */
const SCHEDULE = [1_000, 2_000, 5_000];

let ctx: TestContext;
let receiver: Receiver;
let now: number;
/** Names resolved by the tests' own resolver; others go to the system's. */
const names = new Map<string, ResolvedAddress[]>();

before(async () => {
  ctx = await createTestApp({ webhookAllowPrivateUrls: true, webhookRetrySchedule: SCHEDULE });
  ctx.app.webhooks.targets.resolve = async (hostname) => names.get(hostname) ?? systemResolver(hostname);
  receiver = await Receiver.start();
});
after(async () => {
  await receiver.close();
  await ctx.close();
});
beforeEach(async () => {
  await ctx.reset();
  await receiver.reset();
  names.clear();
  ctx.app.config.webhookAllowPrivateUrls = true;
  now = Date.now();
  ctx.app.clock.now = () => now;
});

const advance = (ms: number) => {
  now += ms;
};

/** Runs the service's jobs once, as the server's timers would: every delivery due now is attempted. */
const dispatch = () => ctx.app.jobs.runAll();

async function subscribe(tenant: Tenant, events: string[] = ['*'], url = receiver.url) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/webhooks',
    headers: tenant.headers,
    payload: { url, events },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string; secret: string };
}

async function call(tenant: Tenant, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  const response = await ctx.app.inject({ method, url, headers: tenant.headers, payload });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

const patchBooking = (biz: BookableBusiness, id: string, body: object, suffix = '') =>
  call(biz.tenant, 'PATCH', `/v1/manage/bookings/${id}${suffix}`, body);

async function deliveries(tenant: Tenant, endpointId: string) {
  return (await call(tenant, 'GET', `/v1/manage/webhooks/${endpointId}/deliveries`)).items as {
    id: string;
    event_id: string;
    event_type: string;
    status: string;
    attempts: number;
    last_response_code: number | null;
    last_error: string | null;
    next_attempt_at: string | null;
    delivered_at: string | null;
  }[];
}

async function theDelivery(tenant: Tenant, endpointId: string) {
  const [only, ...more] = await deliveries(tenant, endpointId);
  assert.ok(only && more.length === 0, 'one delivery');
  return only;
}

const countRows = async (table: 'webhook_events' | 'webhook_deliveries') =>
  (await ctx.app.db.selectFrom(table).select('id').execute()).length;

/** The types of the events received about one subject, in order of arrival. */
const typesAbout = (subjectId: string) =>
  receiver.received.filter((r) => r.event.data.id === subjectId).map((r) => r.event.type);

describe('events', () => {
  it('delivers every booking event, signed, with the booking as the API answers it after the change', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    const a = await bookOk(ctx.app, biz, { start_time: '10:00' });
    await patchBooking(biz, a.id, { status: 'checked_in' });
    await patchBooking(biz, a.id, { status: 'completed' });
    const b = await bookOk(ctx.app, biz, { start_time: '11:00' });
    await patchBooking(biz, b.id, { resource_id: biz.resources.T6 });
    await patchBooking(biz, b.id, { capacity: 3 });
    await patchBooking(biz, b.id, { staff_notes: 'window seat' }, '/notes');
    await patchBooking(biz, b.id, { start_time: '14:00' });
    await patchBooking(biz, b.id, { status: 'cancelled' });
    const c = await bookOk(ctx.app, biz, { start_time: '12:00' });
    // A no-show is marked once its booking has started.
    ctx.app.clock.now = () => Date.parse(c.starts_at);
    await patchBooking(biz, c.id, { status: 'no_show' });
    ctx.app.clock.now = () => now;
    const staff = (
      await call(biz.tenant, 'POST', '/v1/manage/bookings/staff', {
        date: BOOKING_DAY,
        time: '15:10',
        first_name: 'Walk',
        last_name: 'In',
        phone: '+49 30 999 0000',
      })
    ).booking;
    assert.equal(await dispatch().then((handled) => handled['webhook-deliveries']), 12);

    assert.deepEqual(typesAbout(a.id), ['booking.created', 'booking.checked_in', 'booking.completed']);
    assert.deepEqual(typesAbout(b.id), [
      'booking.created',
      'booking.updated',
      'booking.updated',
      'booking.updated',
      'booking.rescheduled',
      'booking.cancelled',
    ]);
    assert.deepEqual(typesAbout(c.id), ['booking.created', 'booking.no_show']);
    assert.deepEqual(typesAbout(staff.id), ['booking.created']);
    for (const received of receiver.received) {
      assertSigned(received, endpoint.secret);
      assert.equal(received.headers['content-type'], 'application/json');
      assert.deepEqual(Object.keys(received.event), ['id', 'type', 'created_at', 'business_id', 'data']);
      assert.equal(received.event.business_id, biz.tenant.businessId);
    }
    const created = receiver.received.find((r) => r.event.data.id === a.id)!;
    assert.deepEqual(created.event.data, a, 'booking.created carries the booking as created');
    for (const id of [a.id, b.id, c.id]) {
      const last = receiver.received.filter((r) => r.event.data.id === id).at(-1)!;
      assert.deepEqual(
        last.event.data,
        withoutGuestProfile(await call(biz.tenant, 'GET', `/v1/manage/bookings/${id}`)),
      );
    }
    const rescheduled = receiver.received.find((r) => r.event.type === 'booking.rescheduled')!;
    assert.equal(rescheduled.event.data.start_time, '14:00');
    assert.equal(rescheduled.event.data.staff_notes, 'window seat');
    assert.equal(new Set(receiver.received.map((r) => r.event.id)).size, 12, 'each event its own id');
  });

  it('delivers booking.created for a dynamic-mode booking too', async () => {
    const biz = await setupBookable(ctx.app, { settings: { booking_mode: 'dynamic' } });
    await subscribe(biz.tenant);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/dynamic/bookings',
      headers: biz.tenant.headers,
      payload: {
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        start_time: '10:07',
        duration_minutes: 25,
        capacity: 2,
        ...guest(),
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    await dispatch();
    assert.deepEqual(receiver.types(), ['booking.created']);
    assert.deepEqual(receiver.received[0]!.event.data, response.json().booking);
  });

  it('fires one event per kind of change of a PATCH, the status last, each with the final booking', async () => {
    const biz = await setupBookable(ctx.app, { settings: { auto_confirm_bookings: false } });
    await subscribe(biz.tenant);
    const booking = await bookOk(ctx.app, biz);
    assert.equal(booking.status, 'pending');
    const changed = await patchBooking(biz, booking.id, { capacity: 1, status: 'confirmed' });
    await dispatch();
    assert.deepEqual(typesAbout(booking.id), ['booking.created', 'booking.updated', 'booking.confirmed']);
    for (const received of receiver.received.slice(1)) assert.deepEqual(received.event.data, changed);
  });

  it('delivers waitlist.created with the entry as the waitlist lists it', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant, ['waitlist.created']);
    const joined = await ctx.app.inject({
      method: 'POST',
      url: `/v1/waitlist/${biz.tenant.businessId}`,
      payload: {
        customer: { first_name: 'Ada', last_name: 'King', phone: '+44 20 7946 0000' },
        preferred_date: BOOKING_DAY,
        capacity: 3,
      },
    });
    assert.equal(joined.statusCode, 201, joined.body);
    await dispatch();
    const [received] = receiver.received;
    assert.equal(receiver.received.length, 1);
    assertSigned(received!, endpoint.secret);
    assert.equal(received!.event.type, 'waitlist.created');
    const listed = (await call(biz.tenant, 'GET', '/v1/manage/waitlist')).items[0];
    assert.deepEqual(received!.event.data, listed);
    assert.equal(listed.id, joined.json().waitlist_id);
  });

  it('sends an endpoint only the events it subscribes to', async () => {
    const biz = await setupBookable(ctx.app);
    await subscribe(biz.tenant, ['booking.cancelled'], `${receiver.url}?only=cancelled`);
    await subscribe(biz.tenant, ['booking.created', 'waitlist.created'], `${receiver.url}?only=created`);
    const booking = await bookOk(ctx.app, biz);
    await patchBooking(biz, booking.id, { status: 'cancelled' });
    await dispatch();
    const byPath = (path: string) =>
      receiver.received.filter((r) => r.path.endsWith(path)).map((r) => r.event.type);
    assert.deepEqual(byPath('only=cancelled'), ['booking.cancelled']);
    assert.deepEqual(byPath('only=created'), ['booking.created']);
  });
});

describe('the outbox', () => {
  it('is written with its change and not at all for a refused one', async () => {
    const biz = await setupBookable(ctx.app, {
      resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
    });
    await subscribe(biz.tenant);
    const booking = await bookOk(ctx.app, biz);
    assert.equal(await countRows('webhook_events'), 1);
    const taken = await postBooking(ctx.app, biz);
    assert.equal(taken.statusCode, 409, 'the slot is taken');
    const closed = await postBooking(ctx.app, biz, { start_time: '20:00' });
    assert.equal(closed.statusCode, 422, 'outside the hours');
    const refusedMove = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { status: 'completed' },
    });
    assert.equal(refusedMove.statusCode, 409, 'confirmed cannot jump to completed');
    assert.equal(await countRows('webhook_events'), 1);
    assert.equal(await countRows('webhook_deliveries'), 1);
  });

  it('stays empty for a business without endpoints', async () => {
    const biz = await setupBookable(ctx.app);
    const other = await setupBookable(ctx.app);
    await subscribe(other.tenant);
    await bookOk(ctx.app, biz);
    assert.equal(await countRows('webhook_events'), 0);
  });
});

describe('retries', () => {
  it('gives a receiver that fails three times the event exactly once more, then nothing', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    receiver.answer = (n) => (n <= 3 ? { status: 500 } : { status: 200 });
    await bookOk(ctx.app, biz);
    await dispatch();
    let delivery = await theDelivery(biz.tenant, endpoint.id);
    assert.equal(delivery.status, 'retrying');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_response_code, 500);
    const due = Date.parse(delivery.next_attempt_at!);
    assert.ok(due >= now + 900 && due <= now + 1_100, 'the first retry waits 1 s, give or take a tenth');
    await dispatch();
    assert.equal(receiver.received.length, 1, 'not before it is due');

    for (const wait of [1_100, 2_200, 5_500]) {
      advance(wait);
      await dispatch();
    }
    advance(3_600_000);
    await dispatch();
    assert.equal(receiver.received.length, 4);
    assert.equal(
      new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
      1,
      'one event, sent four times',
    );
    delivery = await theDelivery(biz.tenant, endpoint.id);
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 4);
    assert.equal(delivery.last_response_code, 200);
    assert.equal(delivery.next_attempt_at, null);
    assert.ok(delivery.delivered_at);
  });

  it('marks the delivery failed and the endpoint failing after the last retry; a later success makes it active', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    receiver.answer = () => ({ status: 503 });
    await bookOk(ctx.app, biz);
    await dispatch();
    for (const wait of [1_100, 2_200, 5_500, 3_600_000]) {
      advance(wait);
      await dispatch();
    }
    assert.equal(receiver.received.length, 4, 'the first attempt and three retries');
    const delivery = await theDelivery(biz.tenant, endpoint.id);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.next_attempt_at, null);
    const status = async () =>
      (await call(biz.tenant, 'GET', '/v1/manage/webhooks')).items.find(
        (e: { id: string }) => e.id === endpoint.id,
      ).status;
    assert.equal(await status(), 'failing');

    receiver.answer = () => ({ status: 204 });
    await call(biz.tenant, 'POST', `/v1/manage/webhooks/${endpoint.id}/test`);
    await dispatch();
    assert.equal(receiver.received.at(-1)!.event.type, 'webhook.test');
    assert.equal((receiver.received.at(-1)!.event.data as { id: string }).id, endpoint.id);
    assert.equal(await status(), 'active');
  });

  it("honours Retry-After, in seconds or as a date, when it is later than the schedule's wait", async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    const start = now;
    receiver.answer = (n) => {
      if (n === 1) return { status: 503, headers: { 'retry-after': '120' } };
      if (n === 2)
        return { status: 429, headers: { 'retry-after': new Date(start + 600_000).toUTCString() } };
      if (n === 3) return { status: 503, headers: { 'retry-after': '1' } };
      return { status: 200 };
    };
    await bookOk(ctx.app, biz);
    await dispatch();
    assert.equal(
      (await theDelivery(biz.tenant, endpoint.id)).next_attempt_at,
      new Date(start + 120_000).toISOString(),
    );
    advance(60_000);
    await dispatch();
    assert.equal(receiver.received.length, 1, 'the schedule alone would have retried by now');
    advance(60_000);
    await dispatch();
    assert.equal(receiver.received.length, 2);
    const afterSecond = Date.parse((await theDelivery(biz.tenant, endpoint.id)).next_attempt_at!);
    assert.equal(afterSecond, Math.floor((start + 600_000) / 1000) * 1000, 'the HTTP date');
    now = afterSecond;
    await dispatch();
    assert.equal(receiver.received.length, 3);
    const afterThird = Date.parse((await theDelivery(biz.tenant, endpoint.id)).next_attempt_at!);
    assert.ok(afterThird >= now + 4_500, 'an earlier Retry-After does not shorten the scheduled 5 s');
  });

  it('does not follow a redirect: a 3xx is retried like any other answer', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    receiver.answer = () => ({ status: 302, headers: { location: `${receiver.url}/moved` } });
    await bookOk(ctx.app, biz);
    await dispatch();
    assert.equal(receiver.received.length, 1);
    const delivery = await theDelivery(biz.tenant, endpoint.id);
    assert.equal(delivery.status, 'retrying');
    assert.equal(delivery.last_response_code, 302);
  });

  it('retries an attempt that gets no answer in time or cannot connect, naming only the class of failure', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    const closed = await Receiver.start();
    const unreachable = await subscribe(biz.tenant, ['*'], closed.url);
    await closed.close();
    receiver.answer = () => 'hang';
    await bookOk(ctx.app, biz);
    await dispatcher({ timeoutMs: 100 }).run();
    const timedOut = await theDelivery(biz.tenant, endpoint.id);
    assert.equal(timedOut.status, 'retrying');
    assert.equal(timedOut.last_response_code, null);
    assert.equal(timedOut.last_error, 'timeout');
    const refused = await theDelivery(biz.tenant, unreachable.id);
    assert.equal(refused.status, 'retrying');
    assert.equal(refused.last_error, 'connection_refused');
  });

  it('names a failed TLS handshake, a name that does not resolve and a non-2xx answer by class only', async () => {
    const biz = await setupBookable(ctx.app);
    // https to a plain-http listener: the connection is made, the handshake fails.
    const tls = await subscribe(biz.tenant, ['*'], `https://127.0.0.1:${receiver.port}/hooks`);
    names.set('nowhere.test', []);
    const unresolved = await subscribe(biz.tenant, ['*'], `https://nowhere.test:${receiver.port}/hooks`);
    const answered = await subscribe(biz.tenant);
    receiver.answer = () => ({ status: 503 });
    for (const endpoint of [tls, unresolved, answered]) {
      const test = await call(biz.tenant, 'POST', `/v1/manage/webhooks/${endpoint.id}/test`);
      assert.equal(test.last_error, null);
    }
    await dispatch();
    const tlsFailure = await theDelivery(biz.tenant, tls.id);
    assert.deepEqual(
      [tlsFailure.status, tlsFailure.last_response_code, tlsFailure.last_error],
      ['retrying', null, 'tls_error'],
    );
    assert.equal((await theDelivery(biz.tenant, unresolved.id)).last_error, 'dns_error');
    const non2xx = await theDelivery(biz.tenant, answered.id);
    assert.deepEqual([non2xx.last_response_code, non2xx.last_error], [503, 'http_503']);
    assert.equal(receiver.received.length, 1, 'only the plain receiver got a request');
  });

  it('sends a delivery again on request, with the same webhook-id', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    await bookOk(ctx.app, biz);
    await dispatch();
    const delivered = await theDelivery(biz.tenant, endpoint.id);
    const retried = await call(
      biz.tenant,
      'POST',
      `/v1/manage/webhooks/${endpoint.id}/deliveries/${delivered.id}/retry`,
    );
    assert.equal(retried.status, 'pending');
    await dispatch();
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]!.body, receiver.received[0]!.body, 'the same event, byte for byte');
    assert.equal(receiver.received[1]!.headers['webhook-id'], delivered.event_id);
    assert.equal((await theDelivery(biz.tenant, endpoint.id)).status, 'delivered');
  });
});

/** A dispatcher besides the app's own, on the same database. */
function dispatcher(options: DispatcherOptions = {}, db = ctx.app.db) {
  return new WebhookDispatcher({
    db,
    clock: ctx.app.clock,
    targets: ctx.app.webhooks.targets,
    sealKey: ctx.app.webhooks.sealKey,
    retrySchedule: SCHEDULE,
    log: ctx.app.log,
    options,
  });
}

describe('order and concurrency', () => {
  it("delivers one booking's events in order: a later one waits while an earlier one is retried", async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    const first = await bookOk(ctx.app, biz, { start_time: '10:00' });
    await patchBooking(biz, first.id, { status: 'cancelled' });
    receiver.answer = (n) => (n === 1 ? { status: 500 } : { status: 200 });
    await dispatch();
    assert.deepEqual(receiver.types(), ['booking.created'], 'the cancellation waits for the creation');
    const other = await bookOk(ctx.app, biz, { start_time: '12:00' });
    await dispatch();
    assert.deepEqual(typesAbout(other.id), ['booking.created'], 'another booking does not wait');
    advance(1_100);
    await dispatch();
    assert.deepEqual(typesAbout(first.id), ['booking.created', 'booking.created', 'booking.cancelled']);
    const log = await deliveries(biz.tenant, endpoint.id);
    assert.ok(log.every((d) => d.status === 'delivered'));
  });

  it('never sends one delivery twice when several dispatchers run at once', RACE, async () => {
    const biz = await setupBookable(ctx.app, {
      resources: Array.from({ length: 8 }, (_, i) => ({ name: `T${i}`, capacity_min: 1, capacity_max: 4 })),
    });
    await subscribe(biz.tenant);
    const bookings = [];
    for (const time of ['10:00', '11:00', '12:00']) {
      for (let i = 0; i < 8; i++) bookings.push(await bookOk(ctx.app, biz, { start_time: time }));
    }
    receiver.answer = () => ({ status: 200, delayMs: 20 });
    const other = ctx.databaseUrl
      ? await openPostgres(ctx.databaseUrl, 4, ctx.app.config.dbTimeouts)
      : undefined;
    try {
      const handled = await Promise.all([
        dispatcher({ batchSize: 3 }, other?.db).run(),
        dispatcher({ batchSize: 5 }).run(),
        dispatch().then((counts) => counts['webhook-deliveries']!),
      ]);
      assert.equal(
        handled.reduce((sum, n) => sum + n, 0),
        bookings.length,
      );
    } finally {
      await other?.close();
    }
    assert.equal(receiver.received.length, bookings.length);
    assert.equal(new Set(receiver.received.map((r) => r.event.id)).size, bookings.length, 'each event once');
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for 24 hours, then with the new one alone', async () => {
    const biz = await setupBookable(ctx.app);
    const endpoint = await subscribe(biz.tenant);
    const rotated = await call(biz.tenant, 'POST', `/v1/manage/webhooks/${endpoint.id}/rotate-secret`);
    const booking = await bookOk(ctx.app, biz);
    await dispatch();
    const during = receiver.received[0]!;
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
    assertSigned(during, rotated.secret);
    const headers = {
      'webhook-id': String(during.headers['webhook-id']),
      'webhook-timestamp': String(during.headers['webhook-timestamp']),
      'webhook-signature': String(during.headers['webhook-signature']),
    };
    assert.doesNotThrow(
      () => new Webhook(endpoint.secret).verify(during.body, headers),
      'the old secret verifies',
    );

    advance(24 * 3_600_000 + 1_000);
    await patchBooking(biz, booking.id, { status: 'cancelled' });
    await dispatch();
    const later = receiver.received[1]!;
    assert.equal(String(later.headers['webhook-signature']).split(' ').length, 1);
    assertSigned(later, rotated.secret);
    const oldSignature = new Webhook(endpoint.secret).sign(
      String(later.headers['webhook-id']),
      new Date(Number(later.headers['webhook-timestamp']) * 1000),
      later.body,
    );
    assert.notEqual(later.headers['webhook-signature'], oldSignature);
  });
});

describe('the address an attempt connects to', () => {
  it('is checked again at send time: a URL that became private is refused and nothing is sent', async () => {
    const biz = await setupBookable(ctx.app);
    ctx.app.config.webhookAllowPrivateUrls = false;
    names.set('hooks.example.com', [{ address: '93.184.215.14', family: 4 }]);
    const renamed = await subscribe(biz.tenant, ['*'], `https://hooks.example.com:${receiver.port}/hooks`);
    names.set('hooks.example.com', [{ address: '127.0.0.1', family: 4 }]);
    ctx.app.config.webhookAllowPrivateUrls = true;
    const literal = await subscribe(biz.tenant, ['*'], `https://127.0.0.1:${receiver.port}/hooks`);
    ctx.app.config.webhookAllowPrivateUrls = false;
    await bookOk(ctx.app, biz);
    await dispatch();
    assert.equal(receiver.received.length, 0);
    const rebound = await theDelivery(biz.tenant, renamed.id);
    assert.equal(rebound.status, 'retrying');
    assert.equal(rebound.last_error, 'url_not_allowed');
    assert.equal((await theDelivery(biz.tenant, literal.id)).last_error, 'url_not_allowed');
  });

  it('is refused at send time when the stored URL breaks the port or user-info rules', async () => {
    const biz = await setupBookable(ctx.app);
    const port = await subscribe(biz.tenant);
    const userInfo = await subscribe(biz.tenant);
    for (const [endpoint, url] of [
      [port, 'http://127.0.0.1:22/hooks'],
      [userInfo, `http://user:secret@127.0.0.1:${receiver.port}/hooks`],
    ] as const) {
      await ctx.app.db.updateTable('webhook_endpoints').set({ url }).where('id', '=', endpoint.id).execute();
    }
    await bookOk(ctx.app, biz);
    await dispatch();
    assert.equal(receiver.received.length, 0);
    for (const endpoint of [port, userInfo]) {
      assert.equal((await theDelivery(biz.tenant, endpoint.id)).last_error, 'url_not_allowed');
    }
  });

  it('is the one resolved and checked, whatever the name would resolve to later', async () => {
    const biz = await setupBookable(ctx.app);
    names.set('receiver.test', [{ address: '127.0.0.1', family: 4 }]);
    const endpoint = await subscribe(biz.tenant, ['*'], `http://receiver.test:${receiver.port}/hooks`);
    await bookOk(ctx.app, biz);
    await dispatch();
    assert.equal(receiver.received.length, 1, 'the system resolver knows no receiver.test');
    assert.equal(receiver.received[0]!.headers.host, `receiver.test:${receiver.port}`);
    assert.equal((await theDelivery(biz.tenant, endpoint.id)).status, 'delivered');
  });
});

describe('retention', () => {
  it('forgets finished deliveries and their events after 30 days, never unfinished ones', async () => {
    const biz = await setupBookable(ctx.app);
    await subscribe(biz.tenant);
    const delivered = await bookOk(ctx.app, biz, { start_time: '10:00' });
    await dispatch();
    receiver.answer = () => ({ status: 500 });
    await bookOk(ctx.app, biz, { start_time: '11:00' });
    await dispatch();
    await ctx.app.db
      .updateTable('webhook_deliveries')
      .set({ created_at: new Date(now - 31 * 86_400_000) })
      .execute();
    await ctx.app.db
      .updateTable('webhook_events')
      .set({ created_at: new Date(now - 31 * 86_400_000) })
      .execute();
    assert.equal(await ctx.app.webhooks.dispatcher.forgetOld(), 2);
    const left = await ctx.app.db.selectFrom('webhook_events').select('data').execute();
    assert.equal(left.length, 1);
    assert.notEqual((left[0]!.data as { id: string }).id, delivered.id);
  });
});
