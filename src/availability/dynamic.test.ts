import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import {
  DAY,
  dynamicFixtures,
  nextSpringForward,
  ONE_TABLE,
  type Query,
} from '../../test/dynamic-fixtures.ts';
import { assertError, assertNamesFields, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const { setupDynamic, startCheck, checkOk, book, bookOk, call, blackOut, moveToPro, setupSandbox } =
  dynamicFixtures(() => ctx.app);

describe('GET /v1/dynamic/availability/{business_id}', () => {
  describe('200', () => {
    it('checks any minute and lists the free fitting resources by display order', async () => {
      const biz = await setupDynamic();
      await call(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T6}`, { display_order: 0 });
      const body = await checkOk(biz, { start_time: '10:07', duration_minutes: 95, capacity: 2 });
      assert.deepEqual(body, {
        business_id: biz.tenant.businessId,
        booking_date: DAY,
        start_time: '10:07',
        duration_minutes: 95,
        capacity: 2,
        available: true,
        remaining_resources: 3,
        free_resources: ['T6', 'T2', 'T4'],
        reason: null,
      });
      const defaults = await checkOk(biz, { booking_date: undefined, date: DAY, start_time: '16:00' });
      assert.equal(defaults.duration_minutes, 60);
      assert.equal(defaults.capacity, 1);
      assert.deepEqual(defaults.free_resources, ['T2', 'T4'], 'T6 takes parties of 2 to 6');
      assert.deepEqual((await checkOk(biz, { capacity: 5 })).free_resources, ['T6']);
    });

    it('answers available:false with the reason for a start that cannot be booked', async () => {
      const biz = await setupDynamic({
        ...ONE_TABLE,
        settings: { booking_window_days: 10, min_notice_hours: 48 },
      });
      await blackOut(biz, daysFromNow(8));
      const refused = async (query: Query) => {
        const body = await checkOk(biz, query);
        assert.equal(body.available, false, JSON.stringify(query));
        assert.equal(body.remaining_resources, 0);
        assert.deepEqual(body.free_resources, []);
        return body.reason;
      };
      assert.equal(await refused({ start_time: '08:59' }), 'outside_operating_hours');
      assert.equal(await refused({ start_time: '16:01' }), 'outside_operating_hours', 'ends after closing');
      assert.equal(await refused({ booking_date: daysFromNow(8) }), 'outside_operating_hours', 'blackout');
      assert.equal(await refused({ booking_date: daysFromNow(11) }), 'outside_booking_window');
      assert.equal(await refused({ booking_date: daysFromNow(1) }), 'outside_booking_window', 'notice');
      assert.equal(await refused({ booking_date: daysFromNow(-1) }), 'outside_booking_window', 'past');
      assert.equal((await checkOk(biz, { start_time: '16:01', duration_minutes: 59 })).available, true);
      await bookOk(biz, { start_time: '10:00' });
      assert.equal(await refused({ start_time: '10:59', duration_minutes: 5 }), 'slot_unavailable');
    });

    it('keeps the buffer after a booking, and a new booking counts at once', async () => {
      const biz = await setupDynamic({ ...ONE_TABLE, settings: { buffer_minutes: 15 } });
      assert.equal((await checkOk(biz, { start_time: '11:10' })).available, true, 'asked before the booking');
      await bookOk(biz, { start_time: '10:00', duration_minutes: 60 });
      assert.equal((await checkOk(biz, { start_time: '11:10' })).reason, 'slot_unavailable');
      assert.deepEqual((await checkOk(biz, { start_time: '11:15' })).free_resources, ['Only']);
      assert.equal(
        (await checkOk(biz, { start_time: '09:00', duration_minutes: 50 })).available,
        false,
        "the new booking's own buffer would run into 10:00",
      );
      assert.equal((await checkOk(biz, { start_time: '09:00', duration_minutes: 45 })).available, true);
    });

    it('leaves out a resource while an external block covers it', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      await call(biz, 'POST', `/v1/manage/resources/${biz.resources.Only}/blocks`, {
        start_at: `${DAY}T12:00:00Z`,
        end_at: `${DAY}T14:00:00Z`,
        reason: 'maintenance',
        source: 'calendar',
      });
      assert.equal((await checkOk(biz, { start_time: '11:30', duration_minutes: 30 })).available, true);
      assert.equal(
        (await checkOk(biz, { start_time: '11:31', duration_minutes: 30 })).reason,
        'slot_unavailable',
      );
      assert.equal((await checkOk(biz, { start_time: '13:59', duration_minutes: 5 })).available, false);
      assert.equal((await checkOk(biz, { start_time: '14:00' })).available, true);
    });

    it('takes overnight hours and the last booking time', async () => {
      const biz = await setupDynamic(ONE_TABLE);
      await call(
        biz,
        'PUT',
        '/v1/manage/hours',
        [0, 1, 2, 3, 4, 5, 6].map((day) => ({
          day_of_week: day,
          is_open: true,
          open_time: '18:00',
          close_time: '02:00',
          last_booking_time: '01:00',
        })),
      );
      assert.equal((await checkOk(biz, { start_time: '23:47' })).available, true);
      assert.equal((await checkOk(biz, { start_time: '01:00' })).available, true, 'ends at closing');
      assert.equal(
        (await checkOk(biz, { start_time: '01:01', duration_minutes: 5 })).reason,
        'outside_operating_hours',
      );
      assert.equal(
        (await checkOk(biz, { start_time: '00:31', duration_minutes: 90 })).reason,
        'outside_operating_hours',
      );
      assert.equal((await checkOk(biz, { start_time: '17:59' })).reason, 'outside_operating_hours');
      const booking = await bookOk(biz, { start_time: '00:15', duration_minutes: 100 });
      assert.equal(booking.booking_date, DAY, 'the night belongs to the day it opens');
      assert.equal(booking.end_time, '01:55');
      assert.equal(Date.parse(booking.starts_at) - Date.parse(`${DAY}T00:15:00Z`), 86_400_000);
    });

    it('refuses a time the clocks skip on the spring-forward night, and counts real minutes across it', async () => {
      const night = nextSpringForward();
      const biz = await setupDynamic({
        ...ONE_TABLE,
        settings: { timezone: 'Europe/Berlin', booking_window_days: 365 },
        open: '00:00',
        close: '06:00',
      });
      const gap = await checkOk(biz, { booking_date: night, start_time: '02:30', duration_minutes: 30 });
      assert.equal(gap.available, false);
      assert.equal(gap.reason, 'outside_operating_hours');
      const refused = await book(biz, { booking_date: night, start_time: '02:30', duration_minutes: 30 });
      assertError(refused, 422, 'outside_operating_hours');
      assert.equal((await checkOk(biz, { booking_date: night, start_time: '03:00' })).available, true);
      const across = await bookOk(biz, { booking_date: night, start_time: '01:30', duration_minutes: 60 });
      assert.equal(across.end_time, '03:30', '60 real minutes from 01:30 CET end at 03:30 CEST');
      assert.equal(Date.parse(across.ends_at) - Date.parse(across.starts_at), 3_600_000);
    });

    it('drops a deactivated resource at once', async () => {
      const biz = await setupDynamic();
      assert.deepEqual((await checkOk(biz, { capacity: 2 })).free_resources, ['T2', 'T4', 'T6']);
      await call(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T4}`, { is_active: false });
      const after = await checkOk(biz, { capacity: 2 });
      assert.deepEqual(after.free_resources, ['T2', 'T6']);
      assert.equal(after.remaining_resources, 2);
    });

    it('is open to a sandbox business on the free plan', async () => {
      const biz = await setupSandbox();
      assert.deepEqual((await checkOk(biz)).free_resources, ['Only']);
    });
  });

  describe('400', () => {
    it('refuses a business that books on its slot grid', async () => {
      const biz = await setupBookable(ctx.app);
      const response = await startCheck(biz);
      assertError(response, 400, 'bad_request');
      assert.match(response.json().error.message, /slot grid.*\/v1\/availability/);
    });
  });

  describe('402', () => {
    it('refuses a plan without dynamic mode, before looking at the booking mode', async () => {
      const biz = await setupDynamic();
      const scheduled = await setupBookable(ctx.app);
      await moveToPro(biz);
      await moveToPro(scheduled);
      for (const business of [biz, scheduled]) {
        const response = await startCheck(business);
        assertError(response, 402, 'plan_upgrade_required');
      }
    });
  });

  describe('404', () => {
    it("answers not_found for another business's id", async () => {
      const biz = await setupDynamic();
      const other = await setupDynamic();
      const response = await startCheck(other, {}, biz.tenant.headers);
      assertError(response, 404, 'not_found');
    });
  });

  describe('422', () => {
    it('refuses bad lengths, times, dates, party sizes and unknown fields, naming each', async () => {
      const biz = await setupDynamic({ settings: { max_capacity: 4 } });
      const cases: [Query, string][] = [
        [{ duration_minutes: 4 }, 'duration_minutes'],
        [{ duration_minutes: 481 }, 'duration_minutes'],
        [{ duration_minutes: 30.5 }, 'duration_minutes'],
        [{ start_time: '10:7' }, 'start_time'],
        [{ start_time: '24:00' }, 'start_time'],
        [{ start_time: '' }, 'start_time'],
        [{ booking_date: '2030-02-30' }, 'booking_date'],
        [{ booking_date: '' }, 'booking_date'],
        [{ capacity: 51 }, 'capacity'],
        [{ capacity: 5 }, 'capacity'],
        [{ view: 'resources' }, 'view'],
      ];
      await assertNamesFields(cases, (query) => startCheck(biz, query));
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupDynamic();
        return {
          tenant: biz.tenant,
          route: {
            method: 'GET',
            url: `/v1/dynamic/availability/${biz.tenant.businessId}?booking_date=${DAY}&start_time=10:07`,
            scope: 'read',
            staff: true,
          },
        };
      },
    );
  });
});
