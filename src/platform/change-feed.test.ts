import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daysFromNow, guest, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, createKeyWithId, eventually, feedCaughtUp, useTestApp } from '../../test/helpers.ts';
import { heldSpan } from '../engine/index.ts';
import { ChangeFeed, datesAround } from './change-feed.ts';

const ctx = useTestApp();

const DAY = daysFromNow(6);

describe('cached availability', () => {
  const noon = async (businessId: string) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/availability/${businessId}?date=${DAY}&capacity=2`,
    });
    return response.json().slots.find((s: { time: string }) => s.time === '12:00');
  };

  it("reflects this process's own writes at once", async () => {
    const biz = await setupBookable(ctx.app);
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 3);
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 3);
    const booked = await ctx.app.inject({
      method: 'POST',
      url: '/v1/bookings',
      headers: biz.tenant.headers,
      payload: {
        business_id: biz.tenant.businessId,
        booking_date: DAY,
        start_time: '12:00',
        capacity: 2,
        ...guest(),
      },
    });
    assert.equal(booked.statusCode, 201);
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 2);
    await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/resources/${biz.resources.T6}`,
      headers: biz.tenant.headers,
      payload: { is_active: false },
    });
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 1);
  });

  it("keeps the business's cached rules across its bookings, and across a refused one its days too", async () => {
    const biz = await setupBookable(ctx.app);
    // The set-up's own announcements come first: they would refresh what is cached below.
    await feedCaughtUp(ctx.app);
    const { lookups } = ctx.app.availability;
    const book = () => postBooking(ctx.app, biz, { booking_date: DAY, capacity: 6 });
    await noon(biz.tenant.businessId);
    assert.equal((await book()).statusCode, 201);
    await feedCaughtUp(ctx.app);
    const rulesRead = lookups.rules.misses;
    const daysRead = lookups.days.misses;
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 2, 'the booking shows at once');
    assert.equal(lookups.rules.misses, rulesRead, 'rules read from the cache');
    assert.equal(lookups.days.misses, daysRead + 1, 'the day recomputed');
    // The only table for six is taken: refused, nothing changed, the day stays cached.
    assert.equal((await book()).statusCode, 409);
    await noon(biz.tenant.businessId);
    assert.equal(lookups.days.misses, daysRead + 2, 'only the booking attempt read its day');
  });

  it('recomputes after a booking only the days it can touch, and frees a slot cancelled by another process', async () => {
    const biz = await setupBookable(ctx.app);
    await feedCaughtUp(ctx.app);
    const far = daysFromNow(20);
    const { lookups } = ctx.app.availability;
    const farNoon = async () => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v1/availability/${biz.tenant.businessId}?date=${far}&capacity=2`,
      });
      return response.json().slots.find((s: { time: string }) => s.time === '12:00');
    };
    await noon(biz.tenant.businessId);
    await farNoon();
    const booked = await postBooking(ctx.app, biz, { booking_date: DAY });
    assert.equal(booked.statusCode, 201);
    await feedCaughtUp(ctx.app);
    const daysRead = lookups.days.misses;
    assert.equal((await farNoon()).remaining_resources, 3);
    assert.equal(lookups.days.misses, daysRead, 'the far day served from the cache');
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 2, 'the booked day recomputed');
    assert.equal(lookups.days.misses, daysRead + 1);
    // Another process cancels it: its dates come through the feed.
    await ctx.database.db
      .updateTable('bookings')
      .set({ status: 'cancelled' })
      .where('id', '=', booked.json().booking.id)
      .execute();
    await eventually(
      async () => (await noon(biz.tenant.businessId)).remaining_resources === 3,
      'the cancelled booking to free its slot',
    );
  });

  it('reflects a change committed by another process once the database announces it', async () => {
    const biz = await setupBookable(ctx.app);
    assert.equal((await noon(biz.tenant.businessId)).remaining_resources, 3);
    await ctx.database.db
      .updateTable('resources')
      .set({ is_active: false })
      .where('id', '=', biz.resources.T2)
      .execute();
    await eventually(
      async () => (await noon(biz.tenant.businessId)).remaining_resources === 2,
      'the cached day to refresh',
    );
    await ctx.database.db
      .insertInto('resource_blocks')
      .values({
        business_id: biz.tenant.businessId,
        resource_id: biz.resources.T4,
        during: `[${DAY}T11:00:00Z,${DAY}T13:00:00Z)`,
        reason: 'synced from a calendar elsewhere',
        source: 'test',
      })
      .execute();
    await eventually(
      async () => (await noon(biz.tenant.businessId)).remaining_resources === 1,
      'the block to show',
    );
  });
});

describe('cached API keys', () => {
  it('stop working at once when revoked here, and soon after when revoked elsewhere', async () => {
    const biz = await setupBookable(ctx.app);
    const use = (key: string) =>
      ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers: bearer(key) });
    const here = await createKeyWithId(ctx.app, biz.tenant, ['read']);
    assert.equal((await use(here.key)).statusCode, 200);
    await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/api-keys/${here.id}`,
      headers: biz.tenant.headers,
    });
    assert.equal((await use(here.key)).statusCode, 401);

    const elsewhere = await createKeyWithId(ctx.app, biz.tenant, ['read']);
    assert.equal((await use(elsewhere.key)).statusCode, 200);
    await ctx.database.db
      .updateTable('api_keys')
      .set({ is_active: false })
      .where('id', '=', elsewhere.id)
      .execute();
    await eventually(
      async () => (await use(elsewhere.key)).statusCode === 401,
      'the revoked key to be refused',
    );
  });
});

describe('ChangeFeed', () => {
  it('gives no version while not listening, and a new one after each change or reconnection', () => {
    const feed = new ChangeFeed();
    assert.equal(feed.businessVersion('b1'), null);
    feed.connected();
    const first = feed.businessVersion('b1');
    assert.ok(first);
    const rules = feed.rulesVersion('b1');
    feed.apply('busy:b2');
    feed.apply('rules:b2');
    assert.equal(feed.businessVersion('b1'), first);
    feed.apply('busy:b1');
    assert.notEqual(feed.businessVersion('b1'), first);
    assert.equal(feed.rulesVersion('b1'), rules, 'bookings leave the rules as they are');
    feed.apply('rules:b1');
    assert.notEqual(feed.rulesVersion('b1'), rules);
    const keys = feed.credentialsVersion();
    feed.apply('keys:b1');
    assert.notEqual(feed.credentialsVersion(), keys);
    const beforeDrop = feed.businessVersion('b1');
    feed.disconnected();
    assert.equal(feed.businessVersion('b1'), null);
    feed.connected();
    assert.notEqual(feed.businessVersion('b1'), beforeDrop);
    assert.equal(feed.reconnects, 1, 'the first connection is no reconnection');
  });

  it('gives no version once its last poll began the lag bound ago or longer, and again after a poll', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const feed = new ChangeFeed({ now: () => now }, 1000);
    feed.connected();
    const live = feed.dayVersion('b1', '2030-03-11');
    assert.ok(live);
    now += 999;
    assert.equal(feed.dayVersion('b1', '2030-03-11'), live);
    assert.ok(feed.credentialsVersion());
    now += 1;
    assert.equal(feed.dayVersion('b1', '2030-03-11'), null, 'the log may hold changes not read yet');
    assert.equal(feed.rulesVersion('b1'), null);
    assert.equal(feed.credentialsVersion(), null);
    feed.polled(now - 10);
    assert.equal(feed.dayVersion('b1', '2030-03-11'), live, 'nothing was missed: what was cached holds');
  });
});

describe('ChangeFeed day versions', () => {
  it("moves a day's version for bookings on the dates that can touch it, and no other day's", () => {
    const feed = new ChangeFeed();
    feed.connected();
    const day = (date: string) => feed.dayVersion('b1', date);
    const dates = ['2030-03-08', '2030-03-09', '2030-03-10', '2030-03-11', '2030-03-12', '2030-03-13'];
    const before = dates.map(day);
    const whole = feed.businessVersion('b1');
    const rules = feed.rulesVersion('b1');
    const otherBusiness = feed.dayVersion('b2', '2030-03-11');
    feed.apply('busy:b1:2030-03-11');
    // Day D counts the UTC dates D-1 to D+2: a booking held on the 11th touches the 9th to the 12th.
    assert.deepEqual(
      dates.map((date, i) => day(date) !== before[i]),
      [false, true, true, true, true, false],
    );
    assert.notEqual(feed.businessVersion('b1'), whole, 'a month of days is touched by any booking');
    assert.equal(feed.rulesVersion('b1'), rules);
    assert.equal(feed.dayVersion('b2', '2030-03-11'), otherBusiness);
    // A booking's row names every date it touches.
    const between = dates.map(day);
    feed.apply('busy:b1:2030-03-08,2030-03-13');
    assert.deepEqual(
      dates.map((date, i) => day(date) !== between[i]),
      [true, true, false, true, true, true],
    );
    // A block (or a booking of unknown dates) touches every day.
    const far = day('2030-03-20');
    feed.apply('busy:b1');
    assert.notEqual(day('2030-03-20'), far);
  });

  it("counts every UTC date a day's opening window can reach, in the farthest zones, with overnight hours and the longest buffers", () => {
    for (const timezone of ['Pacific/Kiritimati', 'Etc/GMT+12', 'Pacific/Pago_Pago', 'Asia/Kathmandu']) {
      for (const [openTime, closeTime] of [
        ['00:00', '23:59'],
        ['00:00', '00:00'],
        ['12:00', '11:59'],
      ]) {
        const date = '2030-03-11';
        const span = heldSpan({
          date,
          timezone,
          now: Date.parse('2030-03-01T00:00:00Z'),
          hours: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
            dayOfWeek,
            isOpen: true,
            openTime,
            closeTime,
            lastBookingTime: null,
          })),
          blackouts: [],
          intervalMinutes: 30,
          durationMinutes: 60,
          bufferBeforeMinutes: 240,
          bufferAfterMinutes: 480,
          minNoticeHours: 0,
          bookingWindowDays: 365,
          partySize: 1,
          resources: [],
        });
        assert.ok(span, `${timezone} ${openTime}-${closeTime} is open`);
        const counted = datesAround(date);
        const first = new Date(span.start).toISOString().slice(0, 10);
        const last = new Date(span.end - 1).toISOString().slice(0, 10);
        assert.ok(
          counted.includes(first) && counted.includes(last),
          `${timezone} ${openTime}-${closeTime}: ${first}..${last}`,
        );
      }
    }
  });
});

describe('ChangeFeed memory', () => {
  it('forgets businesses not changed for an hour, and gives them a version that matches nothing cached before', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const feed = new ChangeFeed({ now: () => now });
    feed.connected();
    const never = feed.businessVersion('b1');
    feed.apply('busy:b1');
    feed.apply('rules:b2');
    const changed = feed.businessVersion('b1');
    assert.equal(feed.trackedBusinesses, 2);
    now += 59 * 60_000;
    feed.apply('busy:b2');
    now += 2 * 60_000;
    feed.apply('busy:b3');
    assert.equal(feed.trackedBusinesses, 2, 'b1 went quiet an hour ago');
    assert.equal(feed.businessVersion('b1'), never);
    assert.notEqual(feed.businessVersion('b1'), changed);
    assert.notEqual(feed.businessVersion('b2'), never);
  });
});
