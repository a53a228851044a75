import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BookableBusiness, bookOk, daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import { bearer, createTenant, feedCaughtUp, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const DAY = daysFromNow(7);

const availability = (businessId: string, query: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/v1/availability/${businessId}?${query}`, headers });

const book = (biz: BookableBusiness, body: Record<string, unknown> = {}) => bookOk(ctx.app, biz, body);

type SlotView = { time: string; available?: boolean; remaining_resources?: number };
const slotAt = (slots: SlotView[], time: string) => slots.find((s) => s.time === time);

describe('GET /v1/availability/{business_id}', () => {
  describe('200', () => {
    it('lists the grid with free resources per slot, without credentials', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await availability(biz.tenant.businessId, `booking_date=${DAY}&capacity=2`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.business_id, biz.tenant.businessId);
      assert.equal(body.booking_date, DAY);
      assert.equal(body.capacity, 2);
      assert.equal(body.slots[0].time, '09:00');
      assert.equal(body.slots.at(-1).time, '16:00', 'the last start leaves a full hour before close');
      assert.equal(body.slots.length, 15);
      assert.deepEqual(slotAt(body.slots, '12:00'), {
        time: '12:00',
        available: true,
        remaining_resources: 3,
        duration_minutes: 60,
        period: null,
      });
    });

    it('counts down as bookings take resources, buffers included, and `date` is an alias', async () => {
      const biz = await setupBookable(ctx.app, { settings: { buffer_minutes: 30 } });
      await book(biz);
      await book(biz);
      await book(biz);
      const slots = (await availability(biz.tenant.businessId, `date=${DAY}&capacity=2`)).json().slots;
      assert.deepEqual(slotAt(slots, '12:00'), {
        time: '12:00',
        available: false,
        remaining_resources: 0,
        duration_minutes: 60,
        period: null,
      });
      assert.equal(
        slotAt(slots, '11:00')?.available,
        false,
        '11:00-12:00 plus 30 min buffer runs into 12:00',
      );
      assert.equal(slotAt(slots, '10:30')?.available, true);
      assert.equal(slotAt(slots, '13:00')?.available, false, 'the 12:00 bookings hold until 13:30');
      assert.equal(slotAt(slots, '13:30')?.available, true);
    });

    it('fits the party: only resources whose capacity range holds it count', async () => {
      const biz = await setupBookable(ctx.app);
      const five = (await availability(biz.tenant.businessId, `date=${DAY}&capacity=5`)).json().slots;
      assert.equal(slotAt(five, '12:00')?.remaining_resources, 1);
      const one = (await availability(biz.tenant.businessId, `date=${DAY}&capacity=1`)).json().slots;
      assert.equal(slotAt(one, '12:00')?.remaining_resources, 2, 'T6 takes 2 to 6');
    });

    it('with view=resources lists each free (time, resource) pair', async () => {
      const biz = await setupBookable(ctx.app);
      await book(biz, { capacity: 2 });
      const slots = (
        await availability(biz.tenant.businessId, `date=${DAY}&capacity=2&view=resources`)
      ).json().slots;
      const noon = slots.filter((s: { time: string }) => s.time === '12:00');
      assert.deepEqual(
        noon.map((s: { resource_name: string; available: boolean }) => [s.resource_name, s.available]),
        [
          ['T4', true],
          ['T6', true],
        ],
      );
      assert.ok(
        noon.every((s: { resource_id: string }) => Object.values(biz.resources).includes(s.resource_id)),
      );
    });

    it('honours resource_id and a service length', async () => {
      const biz = await setupBookable(ctx.app);
      const service = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Long lunch', duration_minutes: 180, resource_ids: [biz.resources.T6] },
      });
      const slots = (
        await availability(biz.tenant.businessId, `date=${DAY}&service_id=${service.json().id}&capacity=2`)
      ).json().slots;
      assert.equal(slots.at(-1).time, '14:00', 'a 3-hour service must end by 17:00');
      assert.equal(slotAt(slots, '12:00')?.remaining_resources, 1, 'only T6 performs the service');
      const one = (
        await availability(biz.tenant.businessId, `date=${DAY}&resource_id=${biz.resources.T2}`)
      ).json().slots;
      assert.equal(slotAt(one, '12:00')?.remaining_resources, 1);
    });

    it('returns no slots on a blackout date, a closed day, or for an inactive resource', async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Solo', capacity_min: 1, capacity_max: 4 }],
      });
      await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/resources/${biz.resources.Solo}`,
        headers: biz.tenant.headers,
        payload: { is_active: false },
      });
      const inactive = (await availability(biz.tenant.businessId, `date=${DAY}`)).json().slots;
      assert.ok(inactive.every((s: { available: boolean }) => !s.available));
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/blackout-dates',
        headers: biz.tenant.headers,
        payload: { start_date: daysFromNow(6), end_date: daysFromNow(8), reason: 'Holidays' },
      });
      assert.deepEqual((await availability(biz.tenant.businessId, `date=${DAY}`)).json().slots, []);
      const fresh = await createTenant(ctx.app);
      assert.deepEqual(
        (await availability(fresh.businessId, `date=${DAY}`)).json().slots,
        [],
        'new businesses are closed',
      );
    });

    it('removes slots a resource block covers', async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Room', capacity_min: 1, capacity_max: 4 }],
      });
      const block = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/resources/${biz.resources.Room}/blocks`,
        headers: biz.tenant.headers,
        payload: {
          start_at: `${DAY}T12:00:00Z`,
          end_at: `${DAY}T14:00:00Z`,
          reason: 'maintenance',
          source: 'calendar',
        },
      });
      assert.equal(block.statusCode, 201, block.body);
      const slots = (await availability(biz.tenant.businessId, `date=${DAY}`)).json().slots;
      assert.equal(slotAt(slots, '11:00')?.available, true);
      assert.equal(slotAt(slots, '11:30')?.available, false);
      assert.equal(slotAt(slots, '13:30')?.available, false);
      assert.equal(slotAt(slots, '14:00')?.available, true);
    });

    it("uses the business's time zone: a Berlin booking on the fall-back night lasts real minutes", async () => {
      const biz = await setupBookable(ctx.app, {
        settings: { timezone: 'Europe/Berlin', booking_window_days: 365 },
        open: '00:00',
        close: '06:00',
      });
      const nextFallBack = (() => {
        const year = new Date().getUTCFullYear();
        for (const y of [year, year + 1]) {
          const last = new Date(Date.UTC(y, 9, 31));
          last.setUTCDate(31 - last.getUTCDay());
          if (last.getTime() > Date.now() + 86_400_000) return last.toISOString().slice(0, 10);
        }
        throw new Error('no fall-back date ahead');
      })();
      const slots = (await availability(biz.tenant.businessId, `date=${nextFallBack}`)).json().slots;
      assert.deepEqual(slots.map((s: { time: string }) => s.time).slice(0, 8), [
        '00:00',
        '00:30',
        '01:00',
        '01:30',
        '02:00',
        '02:30',
        '03:00',
        '03:30',
      ]);
      const booking = await book(biz, { booking_date: nextFallBack, start_time: '02:00' });
      assert.equal(booking.start_time, '02:00');
      assert.equal(booking.end_time, '02:00', 'an hour later the clock shows 02:00 again');
      assert.equal(Date.parse(booking.ends_at) - Date.parse(booking.starts_at), 3_600_000);
      assert.equal(booking.starts_at.slice(11, 16), '00:00', '02:00 CEST (first occurrence) is 00:00 UTC');
    });

    it('says why a day lists no slots, and gives no reason while it lists some', async () => {
      const realClock = ctx.app.clock.now;
      ctx.app.clock.now = () => Date.parse('2030-06-14T10:00:00Z');
      try {
        const biz = await setupBookable(ctx.app, { settings: { min_notice_hours: 48 } });
        await ctx.app.inject({
          method: 'POST',
          url: '/v1/manage/blackout-dates',
          headers: biz.tenant.headers,
          payload: { start_date: '2030-06-20', end_date: '2030-06-21', reason: 'Holidays' },
        });
        const fresh = await createTenant(ctx.app);
        const reasonOf = async (businessId: string, query: string) => {
          const response = await availability(businessId, query);
          assert.equal(response.statusCode, 200, response.body);
          const body = response.json();
          assert.equal(body.slots.length === 0, body.reason !== null, `${query}: ${response.body}`);
          return body.reason;
        };
        const id = biz.tenant.businessId;
        assert.equal(await reasonOf(id, 'date=2030-06-17'), null);
        assert.equal(await reasonOf(id, 'date=2030-06-13'), 'past');
        assert.equal(await reasonOf(id, 'date=2030-06-20'), 'blackout');
        assert.equal(await reasonOf(id, 'date=2030-06-15'), 'outside_booking_window', 'all inside notice');
        assert.equal(await reasonOf(id, 'date=2030-09-01'), 'outside_booking_window', 'beyond 60 days');
        assert.equal(await reasonOf(fresh.businessId, 'date=2030-06-17'), 'closed');
        assert.equal(await reasonOf(id, 'date=2030-06-17&capacity=7'), null, 'slots, none available');
        assert.equal(await reasonOf(id, 'date=2030-06-17&capacity=7&view=resources'), 'no_free_resource');
        const long = await ctx.app.inject({
          method: 'POST',
          url: '/v1/manage/services',
          headers: biz.tenant.headers,
          payload: { name: 'Longer than the day', duration_minutes: 240 },
        });
        await ctx.app.inject({
          method: 'PUT',
          url: '/v1/manage/hours',
          headers: biz.tenant.headers,
          payload: [0, 1, 2, 3, 4, 5, 6].map((day) => ({
            day_of_week: day,
            is_open: true,
            open_time: '09:00',
            close_time: '12:00',
          })),
        });
        assert.equal(
          await reasonOf(id, `date=2030-06-17&service_id=${long.json().id}`),
          'closed',
          'hours too short for one booking',
        );
      } finally {
        ctx.app.clock.now = realClock;
      }
    });
    it('answers a day asked again with the bytes it sent when it computed it, until a booking changes the day', async () => {
      const biz = await setupBookable(ctx.app);
      const id = biz.tenant.businessId;
      const { days } = ctx.app.availability.lookups;
      // The set-up's own announcements come first: one arriving later would drop the day cached below.
      await feedCaughtUp(ctx.app);
      const asked = async (query: string) => {
        const response = await availability(id, query);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        return response.body;
      };
      const computed = await asked(`date=${DAY}&capacity=2`);
      const hits = days.hits;
      const cached = await asked(`date=${DAY}&capacity=2`);
      assert.equal(days.hits, hits + 1, 'the second answer comes from the cache');
      assert.equal(cached, computed);
      assert.deepEqual(Object.keys(JSON.parse(cached)), [
        'business_id',
        'booking_date',
        'capacity',
        'slots',
        'reason',
      ]);
      const four = JSON.parse(await asked(`date=${DAY}&capacity=4`));
      assert.equal(four.capacity, 4, 'another party size is another answer');
      assert.equal(JSON.parse(await asked(`booking_date=${DAY}&capacity=2`)).capacity, 2);

      await book(biz, { capacity: 2 });
      const afterBooking = await asked(`date=${DAY}&capacity=2`);
      assert.notEqual(afterBooking, computed);
      assert.equal(slotAt(JSON.parse(afterBooking).slots, '12:00')?.remaining_resources, 2);
      assert.equal(slotAt(JSON.parse(computed).slots, '12:00')?.remaining_resources, 3);
      assert.equal(await asked(`date=${DAY}&capacity=2`), afterBooking);
    });
  });

  describe('401', () => {
    it('checks a credential that is sent', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await availability(biz.tenant.businessId, `date=${DAY}`, bearer('svc_live_bogus'));
      assert.equal(response.statusCode, 401);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown or malformed business id', async () => {
      const unknown = await availability('00000000-0000-4000-8000-000000000000', `date=${DAY}`);
      assert.equal(unknown.statusCode, 404);
      assert.equal((await availability('nope', `date=${DAY}`)).statusCode, 404);
    });
  });

  describe('422', () => {
    it('names a missing date, a bad capacity, an unknown parameter and an unknown service', async () => {
      const biz = await setupBookable(ctx.app);
      const missing = await availability(biz.tenant.businessId, 'capacity=2');
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().error.fields[0].field, 'booking_date');
      assert.equal((await availability(biz.tenant.businessId, `date=${DAY}&capacity=0`)).statusCode, 422);
      assert.equal((await availability(biz.tenant.businessId, `date=${DAY}&capacity=51`)).statusCode, 422);
      assert.equal((await availability(biz.tenant.businessId, `date=${DAY}&colour=red`)).statusCode, 422);
      assert.equal((await availability(biz.tenant.businessId, 'date=2026-02-30')).statusCode, 422);
      const service = await availability(
        biz.tenant.businessId,
        `date=${DAY}&service_id=00000000-0000-4000-8000-000000000000`,
      );
      assert.equal(service.statusCode, 422);
      assert.equal(service.json().error.fields[0].field, 'service_id');
    });
  });
});

describe('GET /v1/manage/availability', () => {
  it("200: slots of the credential's business", async () => {
    const biz = await setupBookable(ctx.app);
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/availability?booking_date=${DAY}&capacity=2`,
      headers: biz.tenant.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(slotAt(response.json().slots, '12:00')?.available, true);
  });

  it('422: capacity is required', async () => {
    const biz = await setupBookable(ctx.app);
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/availability?booking_date=${DAY}`,
      headers: biz.tenant.headers,
    });
    assert.equal(response.statusCode, 422);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: {
            method: 'GET',
            url: `/v1/manage/availability?booking_date=${DAY}&capacity=2`,
            scope: 'read',
            staff: true,
          },
        };
      },
    );
  });
});
