import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, type BookableBusiness, send, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, dashboardToken, itChecksAuth, RACE, useTestApp } from '../../test/helpers.ts';
import { QUEUE_MAX } from './walk-ins.service.ts';

const ctx = useTestApp();

/** 12:00:30 UTC on the booking tests' day: the venue (UTC, 09:00-17:00, bookings of an hour) is open. */
const NOON = Date.parse(`${BOOKING_DAY}T12:00:30Z`);

async function venueAtNoon(settings: Record<string, unknown> = {}, name?: string): Promise<BookableBusiness> {
  ctx.app.clock.now = () => NOON;
  return setupBookable(ctx.app, {
    name,
    settings: { timezone: 'UTC', default_slot_duration_minutes: 60, ...settings },
  });
}

const inject = (biz: BookableBusiness, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: biz.tenant.headers, ...(payload ? { payload } : {}) });

async function joined(biz: BookableBusiness, body: object) {
  const response = await inject(biz, 'POST', '/v1/manage/walk-ins', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().walk_in;
}

const queue = async (biz: BookableBusiness) =>
  (await send(ctx.app, biz.tenant, 'GET', '/v1/manage/walk-ins')).items;

/** A staff booking holding `table` from `time` today for an hour. */
const holdTable = (biz: BookableBusiness, table: string, time: string, capacity = 2) =>
  send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
    date: BOOKING_DAY,
    time,
    capacity,
    resource_id: biz.resources[table],
    first_name: 'Held',
    last_name: 'Table',
    phone: `+49 30 555 ${Math.floor(Math.random() * 90000) + 10000}`,
  });

const outbox = (businessId: string) =>
  ctx.database.db
    .selectFrom('message_outbox')
    .select(['type', 'channel', 'to_address', 'subject', 'body_text'])
    .where('business_id', '=', businessId)
    .where('type', '=', 'table_ready')
    .orderBy('created_at')
    .execute();

describe('POST /v1/manage/bookings/staff with walk_in', () => {
  it('books a party size alone at the venue’s minute, seated, each nameless guest a profile of their own', async () => {
    const biz = await venueAtNoon();
    const first = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
      walk_in: true,
      capacity: 3,
    });
    const { booking } = first;
    assert.equal(booking.status, 'checked_in');
    assert.equal(booking.booking_date, BOOKING_DAY);
    assert.equal(booking.start_time, '12:00');
    assert.equal(booking.capacity, 3);
    assert.equal(booking.source, 'staff');
    assert.deepEqual([booking.customer.first_name, booking.customer.phone], ['', '']);
    const second = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
      walk_in: true,
      capacity: 2,
    });
    assert.notEqual(second.booking.customer_id, booking.customer_id);
    const customers = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers');
    assert.equal(customers.items.length, 2);
  });

  it('keeps the name and phone a walk-in gives, and a date and time given', async () => {
    const biz = await venueAtNoon();
    const { booking } = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
      walk_in: true,
      capacity: 2,
      time: '11:45',
      first_name: 'Ada',
      phone: '+49 30 5550 777',
    });
    assert.equal(booking.start_time, '11:45');
    assert.equal(booking.customer.first_name, 'Ada');
    assert.equal(booking.customer.last_name, '');
    assert.equal(booking.customer.phone, '+49 30 5550 777');
  });

  it('refuses a walk-in while the venue is closed, and sends no message for one', async () => {
    const biz = await venueAtNoon({ sms_enabled: true });
    ctx.app.clock.now = () => Date.parse(`${BOOKING_DAY}T20:00:00Z`);
    const closed = await inject(biz, 'POST', '/v1/manage/bookings/staff', { walk_in: true, capacity: 2 });
    assert.equal(closed.statusCode, 422, closed.body);
    assert.equal(closed.json().error.code, 'outside_operating_hours');
    ctx.app.clock.now = () => NOON;
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
      walk_in: true,
      capacity: 2,
      first_name: 'Ada',
      phone: '+49 30 5550 778',
    });
    const messages = await ctx.database.db
      .selectFrom('message_outbox')
      .select('type')
      .where('business_id', '=', biz.tenant.businessId)
      .execute();
    assert.deepEqual(messages, []);
  });

  it('still wants the date, time, names and phone of a booking that is not a walk-in', async () => {
    const biz = await venueAtNoon();
    const response = await inject(biz, 'POST', '/v1/manage/bookings/staff', {
      capacity: 2,
      date: BOOKING_DAY,
      time: '13:00',
    });
    assert.equal(response.statusCode, 422, response.body);
    assert.equal(response.json().error.fields[0].field, 'first_name');
    const bookings = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/bookings');
    assert.equal(bookings.items.length, 0);
  });
});

describe('the walk-in queue', () => {
  it('quotes each party the minutes until a table that seats it frees, the parties ahead seated first', async () => {
    const biz = await venueAtNoon();
    await holdTable(biz, 'T4', '11:30', 4);
    await holdTable(biz, 'T6', '11:45', 6);
    const three = await joined(biz, { capacity: 3, first_name: 'Ada', phone: '+49 30 5550 1001' });
    assert.equal(three.position, 1);
    // T4 frees at 12:30, T6 at 12:45; now is 12:00:30, quoted from 12:01.
    assert.equal(three.quoted_wait_minutes, 29);
    const four = await joined(biz, { capacity: 4 });
    assert.equal(four.quoted_wait_minutes, 44);
    const two = await joined(biz, { capacity: 2 });
    assert.equal(two.quoted_wait_minutes, 0);
    const listed = await queue(biz);
    assert.deepEqual(
      listed.map((entry: { position: number; quoted_wait_minutes: number }) => [
        entry.position,
        entry.quoted_wait_minutes,
      ]),
      [
        [1, 29],
        [2, 44],
        [3, 0],
      ],
    );
    assert.equal(listed[0].first_name, 'Ada');
    assert.equal(listed[1].first_name, null);
  });

  it('quotes null for a party no table seats today', async () => {
    const biz = await venueAtNoon();
    assert.equal((await joined(biz, { capacity: 12 })).quoted_wait_minutes, null);
  });

  it('seats a party from the queue: a checked-in walk-in booking with its name, the party off the queue', async () => {
    const biz = await venueAtNoon();
    const entry = await joined(biz, {
      capacity: 3,
      first_name: 'Ada',
      last_name: 'King',
      notes: 'by the window',
    });
    const response = await inject(biz, 'POST', `/v1/manage/walk-ins/${entry.id}/seat`, {
      resource_id: biz.resources.T6,
    });
    assert.equal(response.statusCode, 201, response.body);
    const { booking } = response.json();
    assert.equal(booking.status, 'checked_in');
    assert.equal(booking.resource_id, biz.resources.T6);
    assert.equal(booking.start_time, '12:00');
    assert.deepEqual([booking.customer.first_name, booking.customer.last_name], ['Ada', 'King']);
    assert.equal(booking.customer_notes, 'by the window');
    assert.deepEqual(await queue(biz), []);
    const again = await inject(biz, 'POST', `/v1/manage/walk-ins/${entry.id}/seat`, {});
    assert.equal(again.statusCode, 404);
  });

  it('keeps a party queued when no table that seats it is free now', async () => {
    const biz = await venueAtNoon();
    await holdTable(biz, 'T6', '11:30', 6);
    const entry = await joined(biz, { capacity: 6 });
    const response = await inject(biz, 'POST', `/v1/manage/walk-ins/${entry.id}/seat`, {});
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().error.code, 'slot_unavailable');
    assert.equal((await queue(biz)).length, 1);
  });

  it('tells a party by SMS when it gave a phone and the venue sends SMS, else by email', async () => {
    const biz = await venueAtNoon({ sms_enabled: true, notification_language: 'de' }, 'Zur Linde');
    const byPhone = await joined(biz, { capacity: 2, phone: '+49 30 5550 1002', email: 'ada@example.com' });
    const byEmail = await joined(biz, { capacity: 2, email: 'bert@example.com' });
    const told = await inject(biz, 'POST', `/v1/manage/walk-ins/${byPhone.id}/notify`);
    assert.equal(told.statusCode, 200, told.body);
    assert.equal(told.json().walk_in.notified_at, new Date(NOON).toISOString());
    assert.equal((await inject(biz, 'POST', `/v1/manage/walk-ins/${byEmail.id}/notify`)).statusCode, 200);
    const messages = await outbox(biz.tenant.businessId);
    assert.deepEqual(
      messages.map((message) => [message.channel, message.to_address]),
      [
        ['sms', '+49 30 5550 1002'],
        ['email', 'bert@example.com'],
      ],
    );
    assert.equal(messages[0]!.body_text, 'Zur Linde: Ihr Tisch ist bereit. Bitte kommen Sie zum Empfang.');
    assert.equal(messages[1]!.subject, 'Ihr Tisch ist bereit: "Zur Linde"');
  });

  it('refuses to tell a party it cannot reach, and writes nothing', async () => {
    const biz = await venueAtNoon({ sms_enabled: false });
    const entry = await joined(biz, { capacity: 2, phone: '+49 30 5550 1003' });
    const response = await inject(biz, 'POST', `/v1/manage/walk-ins/${entry.id}/notify`);
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().error.code, 'conflict');
    assert.deepEqual(await outbox(biz.tenant.businessId), []);
    assert.equal((await queue(biz))[0].notified_at, null);
  });

  it('removes a party that left, once', async () => {
    const biz = await venueAtNoon();
    const entry = await joined(biz, { capacity: 2 });
    assert.equal((await inject(biz, 'DELETE', `/v1/manage/walk-ins/${entry.id}`)).statusCode, 204);
    assert.equal((await inject(biz, 'DELETE', `/v1/manage/walk-ins/${entry.id}`)).statusCode, 404);
    assert.deepEqual(await queue(biz), []);
  });

  it('holds at most QUEUE_MAX parties, and forgets parties queued more than 12 hours ago', async () => {
    const biz = await venueAtNoon();
    await ctx.database.db
      .insertInto('walk_ins')
      .values(
        Array.from({ length: QUEUE_MAX }, () => ({
          business_id: biz.tenant.businessId,
          capacity: 2,
          created_at: new Date(NOON - 60_000),
        })),
      )
      .execute();
    const full = await inject(biz, 'POST', '/v1/manage/walk-ins', { capacity: 2 });
    assert.equal(full.statusCode, 409, full.body);
    ctx.app.clock.now = () => NOON + 13 * 3_600_000;
    assert.equal((await queue(biz)).length, 0);
    assert.equal((await joined(biz, { capacity: 2 })).position, 1);
  });

  it('refuses a party without its size and a phone that is not one', async () => {
    const biz = await venueAtNoon();
    for (const body of [{}, { capacity: 0 }, { capacity: 2, phone: 'call me' }, { capacity: 2, extra: 1 }]) {
      const response = await inject(biz, 'POST', '/v1/manage/walk-ins', body);
      assert.equal(response.statusCode, 422, `${JSON.stringify(body)}: ${response.body}`);
    }
    assert.deepEqual(await queue(biz), []);
  });

  it('keeps each venue’s queue its own', async () => {
    const biz = await venueAtNoon();
    const other = await venueAtNoon();
    const entry = await joined(biz, { capacity: 2, first_name: 'Ada' });
    assert.deepEqual(await queue(other), []);
    for (const [method, url] of [
      ['POST', `/v1/manage/walk-ins/${entry.id}/notify`],
      ['POST', `/v1/manage/walk-ins/${entry.id}/seat`],
      ['DELETE', `/v1/manage/walk-ins/${entry.id}`],
    ] as const) {
      const response = await inject(other, method, url, method === 'POST' ? {} : undefined);
      assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
    }
    assert.equal((await queue(biz)).length, 1);
  });

  it('lets a host of the venue run the queue with a dashboard token', async () => {
    const biz = await venueAtNoon();
    const token = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/walk-ins',
      headers: bearer(token),
      payload: { capacity: 2 },
    });
    assert.equal(response.statusCode, 201, response.body);
  });

  it('seats a party once when two hosts seat it at the same moment', RACE, async () => {
    const biz = await venueAtNoon();
    const entry = await joined(biz, { capacity: 2 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => inject(biz, 'POST', `/v1/manage/walk-ins/${entry.id}/seat`, {})),
    );
    const codes = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(codes, [201, 404, 404, 404, 404, 404, 404, 404]);
    const bookings = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/bookings');
    assert.equal(bookings.items.length, 1);
  });

  describe('auth', () => {
    const withEntry = async () => {
      const biz = await venueAtNoon();
      return { biz, entry: await joined(biz, { capacity: 2 }) };
    };
    itChecksAuth(
      () => ctx,
      async () => ({
        tenant: (await venueAtNoon()).tenant,
        route: { method: 'GET', url: '/v1/manage/walk-ins', scope: 'read', staff: true },
      }),
    );
    itChecksAuth(
      () => ctx,
      async () => ({
        tenant: (await venueAtNoon()).tenant,
        route: {
          method: 'POST',
          url: '/v1/manage/walk-ins',
          payload: { capacity: 2 },
          scope: 'write',
          staff: true,
        },
      }),
    );
    for (const [method, action] of [
      ['POST', '/notify'],
      ['POST', '/seat'],
      ['DELETE', ''],
    ] as const) {
      itChecksAuth(
        () => ctx,
        async () => {
          const { biz, entry } = await withEntry();
          return {
            tenant: biz.tenant,
            route: {
              method,
              url: `/v1/manage/walk-ins/${entry.id}${action}`,
              payload: method === 'POST' ? {} : undefined,
              scope: 'write',
              staff: true,
            },
          };
        },
      );
    }
  });
});
