import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, type BookableBusiness, send, setupBookable } from '../../test/booking-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';
import { AvailabilityFeed, FEED_DAYS } from './feeds.service.ts';

const ctx = useTestApp();

interface Credentials {
  username: string;
  password: string;
}

const basic = ({ username, password }: Credentials) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

const read = (partner: Credentials, feed: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'GET',
    url: `/partners/maps-booking/feeds/${feed}`,
    headers: { ...basic(partner), ...headers },
  });

async function feedOf(partner: Credentials, feed: string) {
  const response = await read(partner, feed);
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers.etag), /^".+"$/);
  const body = response.json();
  assert.equal(body.metadata.processing_instruction, 'PROCESS_AS_COMPLETE');
  assert.match(body.metadata.nonce, /^\d+$/);
  assert.equal(typeof body.metadata.generation_timestamp, 'number');
  return { body, etag: String(response.headers.etag) };
}

/** A day before the booking day, so the whole of it is inside notice and window. */
const beforeTheDay = () => {
  ctx.app.clock.now = () => Date.parse(`${BOOKING_DAY}T08:00:00Z`) - 6 * 86_400_000;
};

async function restaurant(name = 'Feed Bistro'): Promise<BookableBusiness> {
  return setupBookable(ctx.app, {
    name,
    businessType: 'restaurant',
    settings: {
      timezone: 'UTC',
      default_slot_duration_minutes: 60,
      address: '1 Quay Street, Dublin',
      phone: '+353 1 555 0100',
    },
    resources: [
      { name: 'T2', capacity_min: 1, capacity_max: 2 },
      { name: 'T4', capacity_min: 1, capacity_max: 4 },
    ],
  });
}

const listed = (biz: BookableBusiness) =>
  send(ctx.app, biz.tenant, 'POST', '/v1/manage/partners', { name: 'Maps reservations' });

describe('the partner feeds', () => {
  it('list the merchants and their service, each with what a partner shows of it', async () => {
    beforeTheDay();
    const biz = await restaurant();
    const other = await restaurant('Not listed');
    const partner = await listed(biz);
    const merchants = (await feedOf(partner, 'merchants.json')).body;
    assert.deepEqual(merchants.merchant, [
      {
        merchant_id: biz.tenant.businessId,
        name: 'Feed Bistro',
        telephone: '+353 1 555 0100',
        url: `${ctx.app.config.publicBaseUrl}/book/${biz.tenant.slug}`,
        category: 'restaurant',
        geo: { unstructured_address: '1 Quay Street, Dublin' },
      },
    ]);
    assert.ok(
      !JSON.stringify(merchants).includes(other.tenant.businessId),
      'a merchant not listed is not shown',
    );
    const services = (await feedOf(partner, 'services.json')).body;
    assert.deepEqual(services.service, [
      {
        merchant_id: biz.tenant.businessId,
        service_id: 'reservation',
        localized_service_name: {
          value: 'Reservation',
          localized_value: [{ locale: 'en', value: 'Reservation' }],
        },
        rules: { min_advance_booking: 0, min_advance_online_canceling: 0 },
      },
    ]);
  });

  it('give the availability of the next 30 days for every party taken online, as the booking server answers it', async () => {
    beforeTheDay();
    const biz = await restaurant();
    const partner = await listed(biz);
    const { body, etag } = await feedOf(partner, 'availability.json');
    assert.equal(body.metadata.shard_number, 0);
    assert.equal(body.metadata.total_shards, 1);
    const entries = body.service_availability[0].availability;
    const noon = Date.parse(`${BOOKING_DAY}T12:00:00Z`) / 1000;
    const atNoon = entries.filter((e: { start_sec: number }) => e.start_sec === noon);
    assert.deepEqual(
      atNoon.map((e: { resources: { party_size: number }; spots_open: number; spots_total: number }) => [
        e.resources.party_size,
        e.spots_open,
        e.spots_total,
      ]),
      [
        [1, 2, 2],
        [2, 2, 2],
        [3, 1, 1],
        [4, 1, 1],
      ],
      'the online parties are what the tables seat: 1 to 4',
    );
    assert.deepEqual(atNoon[0], {
      merchant_id: biz.tenant.businessId,
      service_id: 'reservation',
      start_sec: noon,
      duration_sec: 3600,
      spots_total: 2,
      spots_open: 2,
      resources: { party_size: 1 },
      confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    });
    const days = new Set(
      entries.map((e: { start_sec: number }) => new Date(e.start_sec * 1000).toISOString().slice(0, 10)),
    );
    assert.equal(days.size, FEED_DAYS);

    assert.equal((await read(partner, 'availability.json', { 'if-none-match': etag })).statusCode, 304);
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/bookings/staff', {
      date: BOOKING_DAY,
      time: '12:00',
      capacity: 4,
      first_name: 'Table',
      last_name: 'Four',
      phone: '+353 1 555 0101',
    });
    const after = await read(partner, 'availability.json', { 'if-none-match': etag });
    assert.equal(after.statusCode, 200, 'the booking changed the feed');
    const noonAfter = after
      .json()
      .service_availability[0].availability.filter((e: { start_sec: number }) => e.start_sec === noon)
      .map((e: { spots_open: number }) => e.spots_open);
    assert.deepEqual(noonAfter, [1, 1, 0, 0]);
  });

  it('give one merchant per shard, and refuse a shard past the last', async () => {
    beforeTheDay();
    const biz = await restaurant();
    const partner = await listed(biz);
    assert.equal((await read(partner, 'availability.json?shard=1')).statusCode, 400);
    assert.equal((await read(partner, 'availability.json?shard=-1')).statusCode, 400);
  });

  it('are read with the partner credentials only', async () => {
    const biz = await restaurant();
    for (const feed of ['merchants.json', 'services.json', 'availability.json']) {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/partners/maps-booking/feeds/${feed}`,
        headers: biz.tenant.headers,
      });
      assert.equal(response.statusCode, 401, feed);
    }
  });

  it("hold a merchant's availability to the limits: fewer days, never an answer of any size", async () => {
    beforeTheDay();
    const biz = await restaurant();
    const listed = await send(ctx.app, biz.tenant, 'POST', '/v1/manage/partners', { name: 'Limited' });
    const deps = {
      db: ctx.app.db,
      availability: ctx.app.availability,
      changes: ctx.app.changes,
      publicBaseUrl: ctx.app.config.publicBaseUrl,
    };
    const partner = { id: listed.id, name: listed.name, principal: null as never };
    const datesOf = async (feed: AvailabilityFeed) => {
      const charged: string[] = [];
      const { text } = await feed.shard(partner, 0, ctx.app.clock.now(), (id) => charged.push(id));
      assert.deepEqual(charged, [biz.tenant.businessId], 'the merchant pays for its own days');
      const entries = JSON.parse(text).service_availability[0].availability as { start_sec: number }[];
      return new Set(entries.map((e) => new Date(e.start_sec * 1000).toISOString().slice(0, 10))).size;
    };
    // Parties of 1 to 4 and one service: each day asks the engine four times.
    assert.equal(
      await datesOf(new AvailabilityFeed(deps, { daysAsked: 10, entries: 100_000, cachedEntries: 1000 })),
      2,
    );
    // A day of 15 starts (09:00 to 16:00, every 30 minutes) for four parties is 60 entries.
    assert.equal(
      await datesOf(new AvailabilityFeed(deps, { daysAsked: 1000, entries: 130, cachedEntries: 1000 })),
      2,
    );
  });
});
