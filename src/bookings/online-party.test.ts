import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  guest,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { dynamicFixtures } from '../../test/dynamic-fixtures.ts';
import { assertError, bearer, createPublishableKey, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const { setupDynamic, book: bookDynamic, startCheck } = dynamicFixtures(() => ctx.app);

const SHOP = 'https://shop.example';
const PHONE = '+49 30 1234567';
/** Tables for up to 10; parties above 4 book online nowhere, but the venue seats them. */
const LIMITED = { max_capacity: 10, max_online_party_size: 4 };
const TABLES = [
  { name: 'T4', capacity_min: 1, capacity_max: 4 },
  { name: 'T10', capacity_min: 1, capacity_max: 10 },
];

const setup = (settings: Record<string, unknown> = {}) =>
  setupBookable(ctx.app, { settings: { ...LIMITED, ...settings }, resources: TABLES });

function assertTooLarge(response: LightMyRequestResponse, reach: RegExp) {
  assertError(response, 422, 'party_too_large_online');
  const { message } = response.json().error;
  assert.match(message, /more than 4 cannot book online/);
  assert.match(message, reach);
}

const get = (biz: BookableBusiness, url: string) =>
  ctx.app.inject({ method: 'GET', url, headers: biz.tenant.headers });

describe('a party above max_online_party_size', () => {
  describe('422 party_too_large_online', () => {
    it('on POST /v1/bookings with a secret or a publishable key, giving the venue phone when it has one', async () => {
      const biz = await setup({ phone: PHONE });
      const { key } = await createPublishableKey(ctx.app, biz.tenant, [SHOP]);
      for (const headers of [biz.tenant.headers, { ...bearer(key), origin: SHOP }]) {
        assertTooLarge(
          await postBooking(ctx.app, biz, { capacity: 5 }, headers),
          /call the venue at \+49 30 1234567/,
        );
      }
      const bookings = await get(biz, '/v1/manage/bookings');
      assert.deepEqual(bookings.json().items, []);
      assert.equal((await bookOk(ctx.app, biz, { capacity: 4 })).capacity, 4);
    });

    it('says to contact the venue when it gives no phone', async () => {
      const biz = await setup();
      assertTooLarge(await postBooking(ctx.app, biz, { capacity: 10 }), /please contact the venue/);
    });

    it('on POST /v1/dynamic/bookings, with and without a phone', async () => {
      const withPhone = await setupDynamic({ settings: { ...LIMITED, phone: PHONE }, resources: TABLES });
      assertTooLarge(await bookDynamic(withPhone, { capacity: 6 }), /call the venue at \+49 30 1234567/);
      const without = await setupDynamic({ settings: LIMITED, resources: TABLES });
      assertTooLarge(await bookDynamic(without, { capacity: 6 }), /contact the venue/);
      assert.equal((await bookDynamic(without, { capacity: 4 })).statusCode, 201);
    });

    it('on the public availability of a day, of a month and of a dynamic start', async () => {
      const biz = await setup({ phone: PHONE });
      const id = biz.tenant.businessId;
      for (const url of [
        `/v1/availability/${id}?booking_date=${BOOKING_DAY}&capacity=5`,
        `/v1/availability/${id}/days?capacity=5`,
      ]) {
        assertTooLarge(await ctx.app.inject({ method: 'GET', url }), /call the venue/);
      }
      assert.equal(
        (
          await ctx.app.inject({
            method: 'GET',
            url: `/v1/availability/${id}?booking_date=${BOOKING_DAY}&capacity=4`,
          })
        ).statusCode,
        200,
      );
      const dynamic = await setupDynamic({ settings: LIMITED, resources: TABLES });
      assertTooLarge(await startCheck(dynamic, { capacity: 5 }), /contact the venue/);
    });

    it('answers a party above max_capacity as before: validation_error naming capacity', async () => {
      const biz = await setup({ phone: PHONE });
      const response = await postBooking(ctx.app, biz, { capacity: 11 });
      assertError(response, 422, 'validation_error');
      assert.equal(response.json().error.fields[0].field, 'capacity');
    });

    it('follows a lowered limit at once, though the availability of that party was cached', async () => {
      const biz = await setup({ max_online_party_size: null });
      const url = `/v1/availability/${biz.tenant.businessId}?booking_date=${BOOKING_DAY}&capacity=6`;
      assert.equal((await ctx.app.inject({ method: 'GET', url })).statusCode, 200);
      const changed = await ctx.app.inject({
        method: 'PATCH',
        url: '/v1/manage/settings',
        headers: biz.tenant.headers,
        payload: { max_online_party_size: 5 },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assertError(await ctx.app.inject({ method: 'GET', url }), 422, 'party_too_large_online');
    });
  });

  describe('staff are not limited', () => {
    it('book it, see its slots, and change an online booking to it', async () => {
      const biz = await setup({ phone: PHONE });
      const staff = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/bookings/staff',
        headers: biz.tenant.headers,
        payload: { booking_date: BOOKING_DAY, start_time: '12:00', capacity: 8, ...guest() },
      });
      assert.equal(staff.statusCode, 201, staff.body);
      assert.equal(staff.json().booking.capacity, 8);
      const slots = await get(biz, `/v1/manage/availability?booking_date=${BOOKING_DAY}&capacity=8`);
      assert.equal(slots.statusCode, 200, slots.body);
      assert.ok(slots.json().slots.some((slot: { available: boolean }) => slot.available));
      const online = await bookOk(ctx.app, biz, { capacity: 4, start_time: '14:00' });
      for (const change of [{ capacity: 6, resource_id: biz.resources.T10 }, { start_time: '15:00' }]) {
        const changed = await ctx.app.inject({
          method: 'PATCH',
          url: `/v1/manage/bookings/${online.id}`,
          headers: biz.tenant.headers,
          payload: change,
        });
        assert.equal(changed.statusCode, 200, changed.body);
      }
    });
  });
});
