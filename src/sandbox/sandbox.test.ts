import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { daysFromNow, setupBookable } from '../../test/booking-fixtures.ts';
import { RACE, useTestApp } from '../../test/helpers.ts';
import { SANDBOX_BOOKING_DAYS } from './sandbox.service.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const DAY = daysFromNow(7);
const customer = {
  first_name: 'Grace',
  last_name: 'Hopper',
  email: 'grace@example.com',
  phone: '+49 30 5550101',
};

const slots = async (date = DAY, capacity = 2) => {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/sandbox/availability?date=${date}&capacity=${capacity}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
};

const book = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/sandbox/bookings',
    headers,
    payload: { capacity: 2, customer, ...body },
  });

describe('sandbox surface', () => {
  describe('200', () => {
    it('lists the shared demo tables without a key', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/v1/sandbox/resources' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().map((r: { name: string; capacity_max: number }) => [r.name, r.capacity_max]),
        [
          ['Table 1', 2],
          ['Table 2', 2],
          ['Table 3', 4],
          ['Table 4', 4],
          ['Table 5', 6],
          ['Table 6', 8],
        ],
      );
    });

    it("lists a day's slots as timestamps with the business's offset", async () => {
      ctx.app.clock.now = () => Date.parse('2026-11-25T12:00:00Z');
      const winter = await slots('2026-12-01');
      assert.equal(winter.timezone, 'Europe/Berlin');
      assert.equal(winter.slots[0].start_time, '2026-12-01T11:00:00+01:00');
      assert.equal(winter.slots[0].end_time, '2026-12-01T12:30:00+01:00');
      assert.equal(winter.slots.at(-1).start_time, '2026-12-01T21:30:00+01:00');
      assert.equal(winter.slots[0].remaining_resources, 4);
    });

    it('reads and cancels its own bookings; cancelling twice answers the cancelled booking', async () => {
      const { slots: day } = await slots();
      const created = await book({ start_time: day[2].start_time, notes: 'by the window' });
      const id = created.json().id;
      const read = await ctx.app.inject({ method: 'GET', url: `/v1/sandbox/bookings/${id}` });
      assert.equal(read.statusCode, 200);
      // Read back, the phone is the number as matched, not the spelling the booking sent.
      const phone = '+49305550101';
      assert.deepEqual(read.json(), { ...created.json(), customer: { ...customer, phone } });
      for (let i = 0; i < 2; i++) {
        const cancelled = await ctx.app.inject({ method: 'DELETE', url: `/v1/sandbox/bookings/${id}` });
        assert.equal(cancelled.statusCode, 200, cancelled.body);
        assert.equal(cancelled.json().status, 'cancelled');
      }
      assert.equal((await slots()).slots[2].remaining_resources, day[2].remaining_resources);
    });
  });

  describe('200 (at once)', () => {
    it('cancels once when two cancellations arrive together: one change, one audit row', RACE, async () => {
      const { slots: day } = await slots();
      const { id } = (await book({ start_time: day[0].start_time })).json();
      const answers = await Promise.all(
        [0, 1, 2].map(() => ctx.app.inject({ method: 'DELETE', url: `/v1/sandbox/bookings/${id}` })),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200, 200],
      );
      const audits = await ctx.database.db
        .selectFrom('audit_logs')
        .select('action')
        .where('entity_id', '=', id)
        .where('action', '=', 'booking.status_changed')
        .execute();
      assert.equal(audits.length, 1);
    });
  });

  describe('201', () => {
    it('books a slot given as a timestamp in any offset, answered in the business offset', async () => {
      ctx.app.clock.now = () => Date.parse('2026-11-25T12:00:00Z');
      const response = await book({ start_time: '2026-12-01T18:00:00Z', notes: 'birthday' });
      assert.equal(response.statusCode, 201, response.body);
      const booking = response.json();
      assert.equal(booking.status, 'confirmed');
      assert.equal(booking.start_time, '2026-12-01T19:00:00+01:00');
      assert.equal(booking.end_time, '2026-12-01T20:30:00+01:00');
      assert.equal(booking.resource.name, 'Table 1');
      assert.deepEqual(booking.customer, customer);
      assert.equal(booking.notes, 'birthday');
      const stored = await ctx.database.db
        .selectFrom('bookings')
        .select('source')
        .where('id', '=', booking.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.source, 'sandbox');
      const after = await slots('2026-12-01');
      const taken = after.slots.find(
        (s: { start_time: string }) => s.start_time === '2026-12-01T19:00:00+01:00',
      );
      assert.equal(taken.remaining_resources, 3);
    });

    it("is shared by every visitor: a developer's sandbox cap of 100 a month is not the demo's", async () => {
      ctx.app.clock.now = () => Date.parse('2026-11-25T12:00:00Z');
      // The demo is seeded by its first read.
      await slots('2026-12-01');
      const demo = await ctx.database.db
        .selectFrom('businesses')
        .select('id')
        .where('is_dev', '=', true)
        .executeTakeFirstOrThrow();
      await ctx.database.db
        .insertInto('sandbox_usage')
        .values({ business_id: demo.id, month: '2026-11-01', bookings: 100 })
        .execute();
      const response = await book({ start_time: '2026-12-01T18:00:00Z' });
      assert.equal(response.statusCode, 201, response.body);
    });

    it('answers a repeated Idempotency-Key with the first booking, and makes only one', async () => {
      const { slots: day } = await slots();
      const headers = { 'idempotency-key': 'sandbox-try-1' };
      const first = await book({ start_time: day[0].start_time }, headers);
      const again = await book({ start_time: day[0].start_time }, headers);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().id, first.json().id);
      const count = await ctx.database.db.selectFrom('bookings').select('id').execute();
      assert.equal(count.length, 1);
    });
  });

  describe('404', () => {
    it("never shows or cancels a booking that is not the sandbox's", async () => {
      const { tenant } = await setupBookable(ctx.app);
      const other = await ctx.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: tenant.headers,
        payload: {
          business_id: tenant.businessId,
          booking_date: DAY,
          start_time: '10:00',
          capacity: 2,
          ...customer,
        },
      });
      assert.equal(other.statusCode, 201, other.body);
      const id = other.json().booking.id;
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await ctx.app.inject({ method, url: `/v1/sandbox/bookings/${id}` });
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      const missing = await ctx.app.inject({ method: 'GET', url: '/v1/sandbox/bookings/not-a-uuid' });
      assert.equal(missing.statusCode, 404);
    });
  });

  describe('409', () => {
    it('refuses a slot that is full', async () => {
      ctx.app.clock.now = () => Date.parse('2026-11-25T12:00:00Z');
      const start = '2026-12-01T12:00:00+01:00';
      assert.equal((await book({ start_time: start, capacity: 8 })).statusCode, 201);
      const full = await book({ start_time: start, capacity: 8 });
      assert.equal(full.statusCode, 409, full.body);
      assert.equal(full.json().error.code, 'slot_unavailable');
    });
  });

  describe('422', () => {
    it('refuses a start off the grid, outside hours, with seconds or without an offset, and bad bodies', async () => {
      ctx.app.clock.now = () => Date.parse('2026-11-25T12:00:00Z');
      for (const [body, code] of [
        [{ start_time: '2026-12-01T19:10:00+01:00' }, 'validation_error'],
        [{ start_time: '2026-12-01T08:00:00+01:00' }, 'outside_operating_hours'],
        [{ start_time: '2026-12-01T19:00:30+01:00' }, 'validation_error'],
        [{ start_time: '2026-12-01T19:00:00' }, 'validation_error'],
        [
          { start_time: '2026-12-01T19:00:00+01:00', customer: { ...customer, email: 'nope' } },
          'validation_error',
        ],
        [{ start_time: '2026-12-01T19:00:00+01:00', table: 3 }, 'validation_error'],
      ] as const) {
        const response = await book(body);
        assert.equal(response.statusCode, 422, `${JSON.stringify(body)}: ${response.body}`);
        assert.equal(response.json().error.code, code, response.body);
      }
      const badDate = await ctx.app.inject({ method: 'GET', url: '/v1/sandbox/availability?date=tomorrow' });
      assert.equal(badDate.statusCode, 422);
    });
  });

  describe('retention', () => {
    it(`deletes bookings made more than ${SANDBOX_BOOKING_DAYS} days ago`, async () => {
      const { slots: day } = await slots();
      const old = (await book({ start_time: day[0].start_time })).json();
      const recent = (await book({ start_time: day[1].start_time })).json();
      await ctx.database.db
        .updateTable('bookings')
        .set({ created_at: new Date(Date.now() - (SANDBOX_BOOKING_DAYS * 86_400_000 + 60_000)) })
        .where('id', '=', old.id)
        .execute();
      await ctx.app.jobs.runAll();
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: `/v1/sandbox/bookings/${old.id}` })).statusCode,
        404,
      );
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: `/v1/sandbox/bookings/${recent.id}` })).statusCode,
        200,
      );
    });
  });
});
