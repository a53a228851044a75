import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guest } from '../test/booking-fixtures.ts';
import { bearer, useTestApp } from '../test/helpers.ts';
import { DEMO_PASSWORD, describeDemo, seedDemo } from './demo.ts';

const ctx = useTestApp();

const NOW = new Date('2026-11-18T12:00:00Z'); // a Wednesday

describe('demo seed', () => {
  it('creates a sandbox restaurant with settings, hours, tables, services and a blackout', async () => {
    const demo = await seedDemo(ctx.app, NOW);
    const get = async (url: string) => {
      const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(demo.apiKey) });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      return response.json();
    };
    assert.match(demo.apiKey, /^svc_test_/);
    assert.match(demo.developer.email, /^demo\+\d+@slotwise\.dev$/);

    const settings = await get('/v1/manage/settings');
    assert.equal(settings.timezone, 'Europe/Berlin');
    assert.equal(settings.default_slot_interval_minutes, 30);
    assert.equal(settings.default_slot_duration_minutes, 90);

    const hours = await get('/v1/manage/hours');
    assert.deepEqual(
      hours.map((d: { is_open: boolean; open_time: string; close_time: string }) =>
        d.is_open ? `${d.open_time}-${d.close_time}` : 'closed',
      ),
      ['11:30-23:00', 'closed', '11:30-23:00', '11:30-23:00', '11:30-23:00', '11:30-23:00', '11:30-23:00'],
    );

    const tables = (await get('/v1/manage/resources')).items;
    assert.equal(tables.length, 8);
    assert.deepEqual(
      new Set(tables.map((t: { section: string }) => t.section)),
      new Set(['Window', 'Main room', 'Terrace']),
    );
    assert.deepEqual(
      [...new Set(tables.map((t: { capacity_max: number }) => t.capacity_max))].sort(),
      [2, 4, 6, 8],
    );
    assert.ok(
      tables.every(
        (t: { resource_type: string; is_active: boolean }) => t.resource_type === 'table' && t.is_active,
      ),
    );

    const services = (await get('/v1/manage/services')).items;
    assert.equal(services.length, 2);
    const tasting = services.find((s: { name: string }) => s.name === "Chef's tasting menu");
    assert.equal(tasting.resource_ids.length, 3);

    const blackouts = (await get('/v1/manage/blackout-dates')).items;
    assert.deepEqual(
      blackouts.map((b: { start_date: string; end_date: string }) => [b.start_date, b.end_date]),
      [['2026-12-09', '2026-12-10']],
    );
    assert.equal(demo.exampleDate, '2026-11-21');

    const business = await ctx.app.inject({
      method: 'GET',
      url: `/v1/public/business/${demo.business.slug}`,
    });
    assert.equal(business.json().id, demo.business.id);
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/developer/login',
      payload: { email: demo.developer.email, password: DEMO_PASSWORD },
    });
    assert.equal(login.statusCode, 200, login.body);
    const owned = await ctx.app.inject({
      method: 'GET',
      url: '/v1/developer/businesses',
      headers: bearer(login.json().access_token),
    });
    assert.deepEqual(
      owned.json().items.map((b: { id: string; is_dev: boolean }) => [b.id, b.is_dev]),
      [
        [demo.business.id, true],
        [demo.studio.id, false],
        [demo.classes.id, true],
        [demo.salon.id, true],
      ],
    );
  });

  it('puts the developer on the premium plan and a live studio in dynamic mode', async () => {
    const demo = await seedDemo(ctx.app, NOW);
    const studio = bearer(demo.studio.apiKey);
    const subscription = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/subscription',
      headers: studio,
    });
    assert.equal(subscription.json().subscription_status, 'active');
    assert.equal(subscription.json().subscription_plan_id, 'premium');
    assert.equal(subscription.json().is_sandbox, false);
    const settings = await ctx.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: studio });
    assert.equal(settings.json().booking_mode, 'dynamic');
    const printed = describeDemo(demo, 'http://127.0.0.1:8080').match(
      /"http:\/\/127\.0\.0\.1:8080(\/v1\/dynamic\/[^"]+)"/,
    );
    assert.ok(printed, 'the demo prints a dynamic availability call');
    // The demo was seeded as of NOW; its example date is in the past of the real clock.
    ctx.app.clock.now = () => NOW.getTime();
    const check = await ctx.app.inject({ method: 'GET', url: printed[1]!, headers: studio });
    ctx.app.clock.now = () => Date.now();
    assert.equal(check.statusCode, 200, check.body);
    assert.equal(check.json().available, true);
    const rooms = await ctx.app.inject({ method: 'GET', url: '/v1/manage/resources', headers: studio });
    assert.deepEqual(
      rooms.json().items.map((r: { name: string }) => r.name),
      ['Room A', 'Room B'],
    );
  });

  it('serves lunch every 15 minutes and dinner every 30, and seats parties of 5 or more for 2 hours', async () => {
    const demo = await seedDemo(ctx.app, NOW);
    const headers = bearer(demo.apiKey);
    const settings = (await ctx.app.inject({ method: 'GET', url: '/v1/manage/settings', headers })).json();
    assert.deepEqual(settings.turn_times, [
      { min_party: 1, max_party: 4, duration_minutes: 90 },
      { min_party: 5, max_party: 50, duration_minutes: 120 },
    ]);
    const periods = (
      await ctx.app.inject({ method: 'GET', url: '/v1/manage/service-periods', headers })
    ).json();
    assert.deepEqual(
      periods.map(
        (p: {
          name: string;
          start_time: string;
          end_time: string;
          slot_interval_minutes: number;
          max_covers_per_slot: number;
        }) => `${p.name} ${p.start_time}-${p.end_time}/${p.slot_interval_minutes} ${p.max_covers_per_slot}`,
      ),
      ['Lunch 12:00-14:30/15 20', 'Dinner 18:00-22:30/30 20'],
    );

    // The demo was seeded as of NOW; its example date is in the past of the real clock.
    ctx.app.clock.now = () => NOW.getTime();
    try {
      const text = describeDemo(demo, 'http://127.0.0.1:8080');
      const grouped = async (capacity: number) => {
        const printed = text.match(
          new RegExp(`"http://127\\.0\\.0\\.1:8080(/v1/availability/[^"]+&capacity=${capacity})"`),
        );
        assert.ok(printed, `the demo prints the day for a party of ${capacity}`);
        const response = await ctx.app.inject({ method: 'GET', url: printed[1]! });
        assert.equal(response.statusCode, 200, response.body);
        const groups: Record<string, string[]> = {};
        for (const slot of response.json().slots as { time: string; period: { name: string } | null }[]) {
          const name = slot.period?.name ?? '-';
          groups[name] = [...(groups[name] ?? []), slot.time];
        }
        return groups;
      };
      // A booking of 90 minutes ends by 14:30 and 22:30, one of 120 minutes too.
      assert.deepEqual(await grouped(2), {
        Lunch: ['12:00', '12:15', '12:30', '12:45', '13:00'],
        Dinner: ['18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00'],
      });
      assert.deepEqual(await grouped(6), {
        Lunch: ['12:00', '12:15', '12:30'],
        Dinner: ['18:00', '18:30', '19:00', '19:30', '20:00', '20:30'],
      });

      const book = (capacity: number, start_time = '19:00') =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/bookings',
          headers,
          payload: {
            business_id: demo.business.id,
            booking_date: demo.exampleDate,
            start_time,
            capacity,
            ...guest(),
          },
        });
      const six = await book(6);
      assert.equal(six.statusCode, 201, six.body);
      assert.deepEqual([six.json().booking.duration_minutes, six.json().booking.end_time], [120, '21:00']);
      // Tables 4 and 5 together take a party of 10; 20 guests fill a quarter hour of lunch.
      const ten = await book(10, '12:00');
      assert.equal(ten.statusCode, 201, ten.body);
      assert.equal(ten.json().booking.resource_ids.length, 2);
      for (const capacity of [8, 6, 6]) {
        const paced = await book(capacity, '12:15');
        assert.equal(paced.statusCode, 201, paced.body);
      }
      const full = await book(2, '12:15');
      assert.equal(full.statusCode, 409, full.body);
      assert.equal(full.json().error.code, 'slot_unavailable');
      assert.equal((await book(2, '12:30')).statusCode, 201);

      const twelve = await book(12);
      assert.equal(twelve.statusCode, 422, twelve.body);
      assert.equal(twelve.json().error.code, 'party_too_large_online');
      assert.match(twelve.json().error.message, /\+49 30 901820/);
    } finally {
      ctx.app.clock.now = () => Date.now();
    }
  });

  it('sets up a class of 12 booked seat by seat and a salon that holds a stylist and a chair', async () => {
    const demo = await seedDemo(ctx.app, NOW);
    const text = describeDemo(demo, 'http://127.0.0.1:8080');
    ctx.app.clock.now = () => NOW.getTime();
    try {
      const printed = (id: string) => {
        const found = new RegExp(`"http://127\\.0\\.0\\.1:8080(/v1/availability/${id}[^"]+)"`).exec(text);
        assert.ok(found, `the demo prints availability of ${id}`);
        return found[1]!;
      };
      const yoga = await ctx.app.inject({ method: 'GET', url: printed(demo.classes.id) });
      assert.equal(yoga.statusCode, 200, yoga.body);
      const seven = yoga.json().slots.find((slot: { time: string }) => slot.time === '07:00');
      assert.equal(seven.seats_left, 12);
      for (let seat = 0; seat < 12; seat++) {
        const booked = await ctx.app.inject({
          method: 'POST',
          url: '/v1/bookings',
          headers: bearer(demo.classes.apiKey),
          payload: {
            business_id: demo.classes.id,
            service_id: demo.classes.serviceId,
            booking_date: demo.exampleDate,
            start_time: '07:00',
            capacity: 1,
            ...guest(),
          },
        });
        assert.equal(booked.statusCode, 201, booked.body);
      }
      const full = await ctx.app.inject({ method: 'GET', url: printed(demo.classes.id) });
      assert.equal(
        full.json().slots.find((slot: { time: string }) => slot.time === '07:00').available,
        false,
      );

      const salon = await ctx.app.inject({ method: 'GET', url: printed(demo.salon.id) });
      assert.equal(salon.statusCode, 200, salon.body);
      const nine = salon.json().slots.filter((slot: { time: string }) => slot.time === '09:00');
      assert.deepEqual(
        nine.map((slot: { resource_name: string }) => slot.resource_name),
        ['Ana + Chair 1', 'Ben + Chair 2'],
      );
    } finally {
      ctx.app.clock.now = () => Date.now();
    }
  });

  it('makes a fresh developer and business on every run', async () => {
    const first = await seedDemo(ctx.app, NOW);
    const second = await seedDemo(ctx.app, new Date(NOW.getTime() + 1000));
    assert.notEqual(first.developer.email, second.developer.email);
    assert.notEqual(first.business.slug, second.business.slug);
  });

  it('prints the credentials, the booking page, the dashboard and calls to try', async () => {
    const demo = await seedDemo(ctx.app, NOW);
    const text = describeDemo(demo, 'http://127.0.0.1:8080');
    for (const part of [
      demo.developer.email,
      DEMO_PASSWORD,
      demo.business.id,
      demo.business.slug,
      demo.apiKey,
      demo.studio.id,
      demo.studio.apiKey,
    ]) {
      assert.ok(text.includes(part), part);
    }
    assert.ok(
      text.includes(
        `curl -H "Authorization: Bearer ${demo.apiKey}" http://127.0.0.1:8080/v1/manage/resources`,
      ),
    );
    assert.ok(
      text.includes(`http://127.0.0.1:8080/v1/availability/${demo.business.id}?date=2026-11-21&capacity=2`),
    );
    // The partner's printed call answers, with the credentials printed beside it, on the demo's day.
    ctx.app.clock.now = () => NOW.getTime();
    try {
      const lookup =
        /curl -u (\S+):(\S+) -H 'Content-Type: application\/json' http:\/\/127\.0\.0\.1:8080(\S+) \\\n +-d '(.+)'/.exec(
          text,
        );
      assert.ok(lookup, 'a partner call is printed');
      const answered = await ctx.app.inject({
        method: 'POST',
        url: lookup[3]!,
        headers: { authorization: `Basic ${Buffer.from(`${lookup[1]}:${lookup[2]}`).toString('base64')}` },
        payload: JSON.parse(lookup[4]!),
      });
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.json().slot_time_availability[0].available, true, 'Saturday 19:00 is free');
    } finally {
      ctx.app.clock.now = () => Date.now();
    }
    const page = /Booking page +http:\/\/127\.0\.0\.1:8080(\/book\/\S+)/.exec(text);
    assert.ok(page, 'the booking page is printed');
    const shown = await ctx.app.inject({ method: 'GET', url: page[1]!, headers: { accept: 'text/html' } });
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /<slotwise-booking /);
    assert.match(
      text,
      /Staff dashboard +http:\/\/127\.0\.0\.1:8080\/staff\/ +\(sign in with the developer login above\)/,
    );
  });
});
