import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { BOOKING_DAY, type BookableBusiness, bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { createTestApp, ENGINE, type TestContext, untilALockWait } from '../../test/helpers.ts';
import { withTx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { rangeLiteral } from '../platform/sql.ts';
import { insertOnFirstFree } from './bookings.service.ts';

/**
 * The placement's retry path: a candidate resource the exclusion constraint refuses (23P01) is
 * given up inside a savepoint and the next one tried. On PGlite's one connection no two requests
 * ever race, so the conflicting booking is put there by hand.
 */

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());
beforeEach(() => ctx.reset());

type Placement = Parameters<typeof insertOnFirstFree>[1];

const NOON = Date.parse(`${BOOKING_DAY}T12:00:00Z`);
const HOUR = 3_600_000;

async function placementFor(biz: BookableBusiness): Promise<Placement> {
  const customer = await ctx.database.db
    .insertInto('customers')
    .values({
      business_id: biz.tenant.businessId,
      first_name: 'Grace',
      last_name: 'Hopper',
      phone: '+49 30 5550100',
      phone_normalized: '49305550100',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    businessId: biz.tenant.businessId,
    customerId: customer.id,
    serviceId: null,
    date: BOOKING_DAY,
    startTime: '12:00',
    endTime: '13:00',
    durationMinutes: 60,
    start: NOON,
    end: NOON + HOUR,
    heldStart: NOON,
    heldEnd: NOON + HOUR,
    status: 'confirmed',
    capacity: 2,
    source: 'staff',
    customerNotes: null,
  };
}

/** A booking holding `resourceId` over the placement's time, inserted as it is. */
const insertConflicting = (
  tx: Parameters<typeof insertOnFirstFree>[0],
  placement: Placement,
  resourceId: string,
) =>
  tx
    .insertInto('bookings')
    .values({
      business_id: placement.businessId,
      customer_id: placement.customerId,
      resource_id: resourceId,
      booking_date: placement.date,
      start_time: '11:30',
      end_time: '12:30',
      duration_minutes: 60,
      starts_at: new Date(NOON - HOUR / 2),
      ends_at: new Date(NOON + HOUR / 2),
      during: rangeLiteral(NOON - HOUR / 2, NOON + HOUR / 2),
      status: 'confirmed',
      confirmation_code: 'TAKEN001',
      capacity: 2,
      source: 'staff',
    })
    .execute();

const resourceOf = async (bookingId: string) =>
  (
    await ctx.database.db
      .selectFrom('bookings')
      .select('resource_id')
      .where('id', '=', bookingId)
      .executeTakeFirstOrThrow()
  ).resource_id;

describe('insertOnFirstFree', () => {
  it('moves on to the next candidate when the exclusion constraint refuses the first', async () => {
    const biz = await setupBookable(ctx.app);
    const placement = await placementFor(biz);
    const { T4, T6 } = biz.resources as { T4: string; T6: string };
    const bookingId = await withTx(ctx.database.db, async (tx) => {
      await insertConflicting(tx, placement, T4);
      const placed = await insertOnFirstFree(tx, placement, [T4, T6]);
      // The transaction goes on after the refused insert: the savepoint undid only that.
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings`.execute(tx);
      assert.equal(rows[0]!.n, 2);
      return placed;
    });
    assert.equal(await resourceOf(bookingId), T6);
  });

  it('answers 409 slot_unavailable when every candidate is refused', async () => {
    const biz = await setupBookable(ctx.app);
    const placement = await placementFor(biz);
    const { T4 } = biz.resources as { T4: string };
    await assert.rejects(
      withTx(ctx.database.db, async (tx) => {
        await insertConflicting(tx, placement, T4);
        return insertOnFirstFree(tx, placement, [T4]);
      }),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.status, 409);
        assert.equal(error.code, 'slot_unavailable');
        return true;
      },
    );
  });

  it('places the later of two transactions racing for one resource on the next, once the first commits', {
    skip: ENGINE !== 'postgres' && 'needs a second connection (PostgreSQL)',
  }, async () => {
    const biz = await setupBookable(ctx.app);
    const placement = await placementFor(biz);
    const { T4, T6 } = biz.resources as { T4: string; T6: string };
    const first = await ctx.database.db.startTransaction().execute();
    try {
      const firstId = await insertOnFirstFree(first, placement, [T4, T6]);
      assert.equal(firstId.length, 36);
      // The second insert on T4 waits for the first transaction to end, then is refused.
      const second = withTx(ctx.database.db, (tx) => insertOnFirstFree(tx, placement, [T4, T6]));
      await untilALockWait(ctx.database);
      await first.commit().execute();
      const secondId = await second;
      assert.equal(await resourceOf(firstId), T4);
      assert.equal(await resourceOf(secondId), T6);
    } finally {
      if (!first.isCommitted) await first.rollback().execute();
    }
  });
});

describe('two placements on one resource at once', () => {
  it('take turns at the resource, so the exclusion constraint never deadlocks them', {
    skip: ENGINE !== 'postgres' && 'needs a second connection (PostgreSQL)',
  }, async () => {
    const biz = await setupBookable(ctx.app);
    const placement = await placementFor(biz);
    const { T4, T6 } = biz.resources as { T4: string; T6: string };
    const at = (hours: number) => {
      const start = NOON + hours * HOUR;
      return { ...placement, start, end: start + HOUR, heldStart: start, heldEnd: start + HOUR };
    };
    const first = await ctx.database.db.startTransaction().execute();
    try {
      await insertOnFirstFree(first, at(0), [T4]);
      // 12:30-13:30 clashes with the first transaction's 12:00-13:00 on T4.
      // No retry here, unlike withTx: a deadlock must show, not be papered over.
      const second = ctx.database.db.transaction().execute((tx) => insertOnFirstFree(tx, at(0.5), [T4, T6]));
      await untilALockWait(ctx.database);
      // 13:00-14:00 clashes only with what the second would insert: had it already inserted its
      // row and waited on the first inside the constraint check, each would now wait for the other.
      await insertOnFirstFree(first, at(1), [T4]);
      await first.commit().execute();
      assert.equal(await resourceOf(await second), T6);
    } finally {
      if (!first.isCommitted) await first.rollback().execute();
    }
  });
});

describe('a reschedule racing a booking for its resource', () => {
  it('moves to the next free resource instead of failing when another request takes the first', {
    skip: ENGINE !== 'postgres' && 'needs a second connection (PostgreSQL)',
  }, async () => {
    const biz = await setupBookable(ctx.app);
    const { T2, T4 } = biz.resources as { T2: string; T4: string };
    const booking = await bookOk(ctx.app, biz, { resource_id: T4 });
    const placement = await placementFor(biz);
    const twoPm = NOON + 2 * HOUR;
    const rival = await ctx.database.db.startTransaction().execute();
    try {
      // Another request books T4 at 14:00 and has not committed: the reschedule cannot see it yet.
      await insertOnFirstFree(
        rival,
        {
          ...placement,
          startTime: '14:00',
          endTime: '15:00',
          start: twoPm,
          end: twoPm + HOUR,
          heldStart: twoPm,
          heldEnd: twoPm + HOUR,
        },
        [T4],
      );
      const moved = ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
        payload: { start_time: '14:00' },
      });
      await untilALockWait(ctx.database);
      await rival.commit().execute();
      const response = await moved;
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().resource_id, T2, 'the best-fitting free one');
      assert.equal(response.json().start_time, '14:00');
    } finally {
      if (!rival.isCommitted) await rival.rollback().execute();
    }
  });
});
