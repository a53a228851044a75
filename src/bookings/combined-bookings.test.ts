import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { bearer, createKey, RACE, useTestApp } from '../../test/helpers.ts';

/**
 * Bookings on table combinations: a party no single table seats sits at joined tables, which the
 * booking holds every one of, in the database, until it is cancelled, moved or shrunk.
 */

const ctx = useTestApp();

interface Joined extends BookableBusiness {
  /** Combination ids by name. */
  combinations: Record<string, string>;
}

/** Tables 4 (up to 4), 5 and 6 (up to 6 each); 4 + 5 seat 7 to 10, 5 + 6 seat 7 to 12. */
async function joinedTables(): Promise<Joined> {
  const biz = await setupBookable(ctx.app, {
    resources: [
      { name: 'T4', capacity_min: 1, capacity_max: 4 },
      { name: 'T5', capacity_min: 1, capacity_max: 6 },
      { name: 'T6', capacity_min: 1, capacity_max: 6 },
    ],
  });
  const combinations: Record<string, string> = {};
  for (const [name, tables, max] of [
    ['4 + 5', ['T4', 'T5'], 10],
    ['5 + 6', ['T5', 'T6'], 12],
  ] as const) {
    const response = await manage(biz, 'POST', '/v1/manage/combinations', {
      name,
      resource_ids: tables.map((table) => biz.resources[table]),
      capacity_min: 7,
      capacity_max: max,
    });
    assert.equal(response.statusCode, 201, response.body);
    combinations[name] = response.json().id;
  }
  return { ...biz, combinations };
}

const manage = (biz: BookableBusiness, method: 'POST' | 'PATCH', url: string, payload: unknown) =>
  ctx.app.inject({ method, url, headers: biz.tenant.headers, payload: payload as object });

const change = (biz: BookableBusiness, id: string, body: Record<string, unknown>) =>
  manage(biz, 'PATCH', `/v1/manage/bookings/${id}`, body);

async function slots(biz: BookableBusiness, capacity: number, view = 'slots') {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/availability/${biz.tenant.businessId}?date=${BOOKING_DAY}&capacity=${capacity}&view=${view}`,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().slots as Record<string, unknown>[];
}

const at = (list: Record<string, unknown>[], time: string) => list.filter((slot) => slot.time === time);

/** Pairs of active holds of one resource that overlap: never any. */
async function overlappingHolds(businessId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM booking_holds a JOIN booking_holds b
      ON a.business_id = b.business_id AND a.resource_id = b.resource_id AND a.booking_id < b.booking_id
      AND a.during && b.during
    WHERE a.business_id = ${businessId}`.execute(ctx.database.db);
  return rows[0]!.n;
}

/** Whether `table` takes a party of two at `time`, asked for by name. */
async function tableTakes(biz: BookableBusiness, table: string, time = '12:00') {
  const response = await postBooking(ctx.app, biz, { start_time: time, resource_id: biz.resources[table] });
  assert.ok([201, 409].includes(response.statusCode), response.body);
  return response.statusCode === 201;
}

describe('a party no single table seats', () => {
  it('sits at the tightest free combination, which holds each of its tables', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 10 });
    assert.equal(booking.resource_id, biz.resources.T4);
    assert.deepEqual(booking.resource_ids, [biz.resources.T4, biz.resources.T5]);
    assert.equal(await tableTakes(biz, 'T4'), false);
    assert.equal(await tableTakes(biz, 'T5'), false);
    assert.equal(await tableTakes(biz, 'T6'), true);
    const shown = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
    });
    assert.deepEqual(shown.json().resource_ids, [biz.resources.T4, biz.resources.T5]);
    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/resources/${biz.resources.T5}`,
      headers: biz.tenant.headers,
    });
    assert.equal(deleted.statusCode, 409, 'a joined table held by a booking to come stays');
    for (const table of ['T4', 'T5']) {
      const list = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings?resource_id=${biz.resources[table]}`,
        headers: biz.tenant.headers,
      });
      assert.deepEqual(
        list.json().items.map((item: { id: string }) => item.id),
        [booking.id],
        table,
      );
    }
  });

  it('is seated at one table when one fits, before any combination', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 6 });
    assert.deepEqual(booking.resource_ids, [biz.resources.T5]);
  });

  it('is offered a start while a combination is free, counted as one more option and listed with its id', async () => {
    const biz = await joinedTables();
    assert.deepEqual(
      at(await slots(biz, 10), '12:00').map((slot) => [slot.available, slot.remaining_resources]),
      [[true, 2]],
    );
    const listed = at(await slots(biz, 10, 'resources'), '12:00');
    assert.deepEqual(
      listed.map((entry) => [entry.combination_id, entry.resource_name, entry.resource_ids]),
      [
        [biz.combinations['4 + 5'], '4 + 5', [biz.resources.T4, biz.resources.T5]],
        [biz.combinations['5 + 6'], '5 + 6', [biz.resources.T5, biz.resources.T6]],
      ],
    );
    await bookOk(ctx.app, biz, { capacity: 10 });
    // 5 + 6 shares table 5: nothing seats ten more at noon.
    assert.deepEqual(
      at(await slots(biz, 10), '12:00').map((slot) => slot.available),
      [false],
    );
    const refused = await postBooking(ctx.app, biz, { capacity: 10 });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error.code, 'slot_unavailable');
    assert.deepEqual(
      at(await slots(biz, 2, 'resources'), '12:00').map((entry) => entry.resource_id),
      [biz.resources.T6],
    );
  });

  it('is not offered a combination with an inactive table', async () => {
    const biz = await joinedTables();
    const off = await manage(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T5}`, { is_active: false });
    assert.equal(off.statusCode, 200, off.body);
    assert.deepEqual(
      at(await slots(biz, 10), '12:00').map((slot) => slot.available),
      [false],
    );
    const refused = await postBooking(ctx.app, biz, { capacity: 10 });
    assert.equal(refused.statusCode, 409, refused.body);
    await manage(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T5}`, { is_active: true });
    assert.deepEqual(
      at(await slots(biz, 10), '12:00').map((slot) => slot.remaining_resources),
      [2],
    );
    // A combination switched off is not offered either, though the day was just cached with it.
    for (const id of Object.values(biz.combinations)) {
      const response = await manage(biz, 'PATCH', `/v1/manage/combinations/${id}`, { is_active: false });
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.deepEqual(
      at(await slots(biz, 10), '12:00').map((slot) => slot.available),
      [false],
    );
  });

  it('frees its tables when cancelled', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 10 });
    const cancelled = await change(biz, booking.id, { status: 'cancelled' });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(await tableTakes(biz, 'T4'), true);
    assert.equal(await tableTakes(biz, 'T5'), true);
  });

  it('moves with all its tables, freeing the ones it held', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 10 });
    const moved = await change(biz, booking.id, { start_time: '14:00' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(moved.json().resource_ids, [biz.resources.T4, biz.resources.T5]);
    assert.equal(await tableTakes(biz, 'T5'), true);
    assert.equal(await tableTakes(biz, 'T4', '14:00'), false);
    assert.equal(await tableTakes(biz, 'T5', '14:00'), false);
  });

  it('is seated at the best single table when it shrinks, which frees the other; kept when none fits', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 10 });
    const still = await change(biz, booking.id, { capacity: 8 });
    assert.equal(still.statusCode, 200, still.body);
    assert.deepEqual(still.json().resource_ids, [biz.resources.T4, biz.resources.T5]);
    const shrunk = await change(biz, booking.id, { capacity: 4 });
    assert.equal(shrunk.statusCode, 200, shrunk.body);
    assert.deepEqual(shrunk.json().resource_ids, [biz.resources.T4]);
    assert.equal(await tableTakes(biz, 'T5'), true);
    assert.equal(await overlappingHolds(biz.tenant.businessId), 0);
  });

  it('is placed on one table when staff ask for it, which frees the joined tables', async () => {
    const biz = await joinedTables();
    const booking = await bookOk(ctx.app, biz, { capacity: 10 });
    const placed = await change(biz, booking.id, { resource_id: biz.resources.T5, capacity: 6 });
    assert.equal(placed.statusCode, 200, placed.body);
    assert.deepEqual(placed.json().resource_ids, [biz.resources.T5]);
    assert.equal(await tableTakes(biz, 'T4'), true);
  });
});

describe('racing for joined tables', () => {
  const racer = async (biz: BookableBusiness) =>
    bearer(await createKey(ctx.app, biz.tenant, ['write'], { rate_limit_per_minute: 1000 }));

  it('lets exactly one of two parties win overlapping combinations (4 + 5, 5 + 6)', RACE, async () => {
    const biz = await joinedTables();
    const headers = await racer(biz);
    for (let round = 0; round < 5; round++) {
      const time = `${10 + round}:00`;
      const responses = await Promise.all([
        postBooking(ctx.app, biz, { capacity: 10, start_time: time }, headers),
        postBooking(ctx.app, biz, { capacity: 12, start_time: time }, headers),
      ]);
      const statuses = responses.map((response) => response.statusCode).sort();
      assert.deepEqual(statuses, [201, 409], responses.map((r) => r.body).join('\n'));
      await Promise.all(
        responses
          .filter((response) => response.statusCode === 201)
          .map((response) => change(biz, response.json().booking.id, { status: 'cancelled' })),
      );
    }
  });

  it('never lets a combination and a single booking of one of its tables both win', RACE, async () => {
    const biz = await joinedTables();
    await manage(biz, 'PATCH', `/v1/manage/resources/${biz.resources.T6}`, { is_active: false });
    const headers = await racer(biz);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? postBooking(ctx.app, biz, { capacity: 10, start_time: '12:00' }, headers)
          : postBooking(ctx.app, biz, { resource_id: biz.resources.T5, start_time: '12:00' }, headers),
      ),
    );
    const won = responses.filter((response) => response.statusCode === 201);
    assert.equal(won.length, 1, responses.map((r) => r.statusCode).join());
    assert.equal(await overlappingHolds(biz.tenant.businessId), 0);
  });

  it(
    'leaves no resource with two overlapping holds after many bookings over tables and combinations',
    RACE,
    async (t) => {
      const biz = await joinedTables();
      const headers = await racer(biz);
      const sizes = [2, 10, 4, 12, 6, 8, 3, 9];
      const responses = await Promise.all(
        Array.from({ length: 48 }, (_, i) =>
          postBooking(
            ctx.app,
            biz,
            { capacity: sizes[i % sizes.length], start_time: ['12:00', '12:30', '13:00'][i % 3] },
            headers,
          ),
        ),
      );
      for (const response of responses) assert.ok([201, 409].includes(response.statusCode), response.body);
      const won = responses.filter((response) => response.statusCode === 201).length;
      assert.ok(won > 0);
      t.diagnostic(`${won} of ${responses.length} won`);
      assert.equal(await overlappingHolds(biz.tenant.businessId), 0);
      const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM bookings b
      WHERE b.business_id = ${biz.tenant.businessId}
        AND (SELECT count(*) FROM booking_holds h WHERE h.booking_id = b.id)
          <> 1 + cardinality(b.joined_resource_ids)`.execute(ctx.database.db);
      assert.equal(rows[0]!.n, 0, 'every active booking holds each of its resources');
    },
  );
});
