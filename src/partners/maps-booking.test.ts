import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, type BookableBusiness, send, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, createTenant, ENGINE, RACE, type Tenant, useTestApp } from '../../test/helpers.ts';
import { examples, responseExamples } from './maps-booking-examples.fixture.ts';
import { v3ResponseSchemas } from './maps-booking-schema.fixture.ts';

const ctx = useTestApp();

const V3 = '/partners/maps-booking/v3';

interface Credentials {
  id: string;
  username: string;
  password: string;
}

const basic = ({ username, password }: Pick<Credentials, 'username' | 'password'>) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

async function listWithPartner(tenant: Tenant, name = 'Maps reservations'): Promise<Credentials> {
  return send(ctx.app, tenant, 'POST', '/v1/manage/partners', { name });
}

/** Noon on the booking day (UTC venue), in seconds since the epoch as the spec writes them. */
const startSec = (time: string, date = BOOKING_DAY) => String(Date.parse(`${date}T${time}:00Z`) / 1000);

async function venue(settings: Record<string, unknown> = {}): Promise<BookableBusiness> {
  return setupBookable(ctx.app, {
    settings: { timezone: 'UTC', default_slot_duration_minutes: 60, ...settings },
  });
}

const call = (credentials: Credentials, method: string, payload?: object) =>
  ctx.app.inject({
    method: payload === undefined ? 'GET' : 'POST',
    url: `${V3}/${method}`,
    headers: basic(credentials),
    ...(payload === undefined ? {} : { payload }),
  });

/** Answers 200 and its body fits the spec's message, as the proto defines it. */
async function answered(credentials: Credentials, method: string, payload?: object) {
  const response = await call(credentials, method, payload);
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  const check = v3ResponseSchemas[method as keyof typeof v3ResponseSchemas];
  assert.ok(
    check(JSON.parse(response.body)),
    `${method} answer ${response.body}: ${JSON.stringify(check.errors)}`,
  );
  return body;
}

const user = (overrides: Record<string, unknown> = {}) => ({
  user_id: 'user-1',
  given_name: 'Ada',
  family_name: 'Lovelace',
  telephone: `+4930555${Math.floor(Math.random() * 900000) + 100000}`,
  email: 'ada@example.com',
  ...overrides,
});

const createBody = (biz: BookableBusiness, time: string, party = 2, extra: Record<string, unknown> = {}) => ({
  slot: {
    merchant_id: biz.tenant.businessId,
    service_id: 'reservation',
    start_sec: startSec(time),
    duration_sec: '3600',
    resources: { party_size: party },
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
  },
  user_information: user(),
  idempotency_token: `token-${Math.random()}`,
  payment_information: { prepayment_status: 'PREPAYMENT_NOT_PROVIDED' },
  ...extra,
});

describe('reservation partners: credentials', () => {
  it('answers HealthCheck to its credentials only, with a Basic challenge otherwise', async () => {
    const biz = await venue();
    const partner = await listWithPartner(biz.tenant);
    assert.match(partner.username, /^partner_/);
    assert.equal((await call(partner, 'HealthCheck')).statusCode, 200);
    const wrong = await call({ ...partner, password: 'not-it' }, 'HealthCheck');
    assert.equal(wrong.statusCode, 401);
    assert.match(String(wrong.headers['www-authenticate']), /^Basic realm=/);
    const none = await ctx.app.inject({ method: 'GET', url: `${V3}/HealthCheck` });
    assert.equal(none.statusCode, 401);
    const bearerToo = await ctx.app.inject({
      method: 'GET',
      url: `${V3}/HealthCheck`,
      headers: bearer(biz.tenant.apiKey),
    });
    assert.equal(bearerToo.statusCode, 401, 'an API key is no partner credential');
  });
});

describe('reservation partners: the booking server', () => {
  it('looks availability up, books, reads the status, lists, changes the party and cancels', async () => {
    ctx.app.clock.now = () => Date.parse(`${BOOKING_DAY}T08:00:00Z`) - 86_400_000;
    const biz = await venue();
    const partner = await listWithPartner(biz.tenant);
    const lookup = await answered(partner, 'BatchAvailabilityLookup', {
      merchant_id: biz.tenant.businessId,
      slot_time: [
        { service_id: 'reservation', start_sec: startSec('12:00'), resource_ids: { party_size: 2 } },
        { service_id: 'reservation', start_sec: startSec('20:00'), resource_ids: { party_size: 2 } },
        { service_id: 'reservation', start_sec: startSec('12:00'), resource_ids: { party_size: 40 } },
      ],
    });
    assert.deepEqual(
      lookup.slot_time_availability.map((a: { available: boolean }) => a.available),
      [true, false, false],
    );
    assert.equal(lookup.slot_time_availability[0].slot_time.start_sec, startSec('12:00'));

    const created = await answered(partner, 'CreateBooking', createBody(biz, '12:00'));
    const booking = created.booking;
    assert.equal(booking.status, 'CONFIRMED');
    assert.equal(booking.slot.start_sec, startSec('12:00'));
    assert.equal(booking.slot.duration_sec, '3600');

    const manage = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/bookings/${booking.booking_id}`);
    assert.equal(manage.source, 'partner');
    assert.deepEqual(manage.partner, { id: partner.id, name: 'Maps reservations' });

    const status = await answered(partner, 'GetBookingStatus', { booking_id: booking.booking_id });
    assert.deepEqual(status, {
      booking_id: booking.booking_id,
      booking_status: 'CONFIRMED',
      prepayment_status: 'PREPAYMENT_NOT_PROVIDED',
    });
    const listed = await answered(partner, 'ListBookings', { user_id: 'user-1' });
    assert.deepEqual(
      listed.bookings.map((b: { booking_id: string }) => b.booking_id),
      [booking.booking_id],
    );

    const bigger = await answered(partner, 'UpdateBooking', {
      booking: { booking_id: booking.booking_id, slot: { resources: { party_size: 4 } } },
    });
    assert.equal(bigger.booking.slot.resources.party_size, 4);

    const cancelled = await answered(partner, 'UpdateBooking', {
      booking: { booking_id: booking.booking_id, status: 'CANCELED' },
    });
    assert.equal(cancelled.booking.status, 'CANCELED');
    const again = await answered(partner, 'UpdateBooking', {
      booking: { booking_id: booking.booking_id, status: 'CANCELED' },
    });
    assert.equal(again.booking_failure.cause, 'BOOKING_ALREADY_CANCELLED');
    assert.deepEqual((await answered(partner, 'ListBookings', { user_id: 'user-1' })).bookings ?? [], []);
  });
});

void ENGINE;
void RACE;
void examples;
void responseExamples;
void createTenant;
