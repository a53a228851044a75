import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  raisedWith,
  setupBookable,
  staffPlacement,
} from '../../test/booking-fixtures.ts';
import { bookingsCounted, RACE, SECOND_CONNECTION, untilALockWait, useTestApp } from '../../test/helpers.ts';
import { type Executor, withTx } from '../platform/db.ts';
import { rangeLiteral } from '../platform/sql.ts';
import { placeBooking } from './bookings.queries.ts';
import { findBooking } from './bookings.service.ts';
import { SQLSTATE } from './sqlstates.model.ts';
import type { PlaceBookingParams } from './statements.model.ts';

/**
 * The booking statement (`slotwise_place_booking`, migrations/0017 and 0018) as the database runs it: a
 * candidate resource the exclusion constraint refuses (23P01) is given up inside a subtransaction
 * and the next one tried; a refusal leaves nothing written. On PGlite's one connection no two
 * requests ever race, so the conflicting booking is put there by hand.
 */

const ctx = useTestApp();

const NOON = Date.parse(`${BOOKING_DAY}T12:00:00Z`);
const HOUR = 3_600_000;

/** A staff booking of two at noon UTC plus `hours`, for an hour, on the first of `candidates` free. */
const toPlace = (biz: BookableBusiness, candidates: string[], hours = 0) =>
  staffPlacement(biz, candidates, NOON + hours * HOUR);

/** The resource the booking was placed on; fails the test when it was refused. */
async function placedOn(executor: Executor, booking: PlaceBookingParams): Promise<string> {
  return (await placeBooking(executor, booking)).booking.resource_id;
}

/** A booking holding `resourceId` from 11:30 to 12:30, inserted as it is. */
const insertConflicting = async (executor: Executor, biz: BookableBusiness, resourceId: string) => {
  const customer = await executor
    .insertInto('customers')
    .values({
      business_id: biz.tenant.businessId,
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+44 20 5550100',
      phone_normalized: '+442055501000',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await executor
    .insertInto('bookings')
    .values({
      business_id: biz.tenant.businessId,
      customer_id: customer.id,
      resource_id: resourceId,
      booking_date: BOOKING_DAY,
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
};

/**
 * `hold` writes in a transaction left open; `contender` starts beside it and waits on its locks;
 * then (after `whileWaiting`, still inside) the transaction commits. Answers what the contender
 * ended with.
 */
async function againstUncommitted<T>(
  hold: (tx: Executor) => Promise<unknown>,
  contender: () => Promise<T>,
  whileWaiting?: (tx: Executor) => Promise<unknown>,
): Promise<T> {
  const tx = await ctx.database.db.startTransaction().execute();
  try {
    await hold(tx);
    const contending = contender();
    await untilALockWait(ctx.database);
    await whileWaiting?.(tx);
    await tx.commit().execute();
    return await contending;
  } finally {
    if (!tx.isCommitted) await tx.rollback().execute();
  }
}

const count = async (table: 'bookings' | 'customers' | 'audit_logs') =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(ctx.database.db))
    .rows[0]!.n;

/** The monthly quota of the business's developer for the booking day's month, at `limit`. */
const quotaOf = async (biz: BookableBusiness, limit: number) => {
  const { developer_id } = await ctx.database.db
    .selectFrom('businesses')
    .select('developer_id')
    .where('id', '=', biz.tenant.businessId)
    .executeTakeFirstOrThrow();
  return { developer_id, month: `${BOOKING_DAY.slice(0, 7)}-01`, limit, plan_id: 'starter' };
};

describe('placeBooking', () => {
  it('moves on to the next candidate when the exclusion constraint refuses the first', async () => {
    const biz = await setupBookable(ctx.app);
    const { T4, T6 } = biz.resources as { T4: string; T6: string };
    await withTx(ctx.database.db, async (tx) => {
      await insertConflicting(tx, biz, T4);
      assert.equal(await placedOn(tx, toPlace(biz, [T4, T6])), T6);
      // The transaction goes on after the refused insert: the subtransaction undid only that.
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings`.execute(tx);
      assert.equal(rows[0]!.n, 2);
    });
  });

  it('skips a candidate that is blocked, inactive or deleted', async () => {
    const biz = await setupBookable(ctx.app);
    const { T2, T4, T6 } = biz.resources as { T2: string; T4: string; T6: string };
    await ctx.database.db
      .insertInto('resource_blocks')
      .values({
        business_id: biz.tenant.businessId,
        resource_id: T2,
        during: rangeLiteral(NOON - HOUR, NOON + HOUR / 2),
        source: 'manual',
      })
      .execute();
    await ctx.database.db.updateTable('resources').set({ is_active: false }).where('id', '=', T4).execute();
    assert.equal(await placedOn(ctx.database.db, toPlace(biz, [T2, T4, T6])), T6);
  });

  it('draws the next confirmation code when one is taken', async () => {
    const biz = await setupBookable(ctx.app);
    const { T2, T4 } = biz.resources as { T2: string; T4: string };
    const first = toPlace(biz, [T2]);
    await placedOn(ctx.database.db, first);
    const second = { ...toPlace(biz, [T4]), codes: [first.codes[0]!, 'FRESH234'] };
    const placed = await placeBooking(ctx.database.db, second);
    assert.equal(placed.booking.confirmation_code, 'FRESH234');
  });

  it('answers the booking exactly as it is read back, and audits that', async () => {
    const biz = await setupBookable(ctx.app);
    const { T4 } = biz.resources as { T4: string };
    const { booking: placed, held_dates } = await placeBooking(ctx.database.db, toPlace(biz, [T4]));
    assert.deepEqual(placed, await findBooking(ctx.database.db, biz.tenant.businessId, placed.id));
    assert.deepEqual(held_dates, [BOOKING_DAY]);
    const audit = await ctx.database.db
      .selectFrom('audit_logs')
      .select(['action', 'after_state', 'user_email'])
      .where('entity_id', '=', placed.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(audit, {
      action: 'booking.created_by_staff',
      after_state: placed,
      user_email: 'placement test',
    });
  });

  it('refuses with nothing written when every candidate is taken', async () => {
    const biz = await setupBookable(ctx.app);
    const { T4 } = biz.resources as { T4: string };
    await insertConflicting(ctx.database.db, biz, T4);
    const before = [await count('bookings'), await count('customers'), await count('audit_logs')];
    await assert.rejects(placeBooking(ctx.database.db, toPlace(biz, [T4])), { code: SQLSTATE.SLOT_TAKEN });
    assert.deepEqual([await count('bookings'), await count('customers'), await count('audit_logs')], before);
  });

  it('refuses with nothing written when the monthly quota is used up, and counts below it', async () => {
    const biz = await setupBookable(ctx.app);
    const { T2, T4, T6 } = biz.resources as { T2: string; T4: string; T6: string };
    const quota = await quotaOf(biz, 2);
    await placedOn(ctx.database.db, { ...toPlace(biz, [T2]), quota });
    await placedOn(ctx.database.db, { ...toPlace(biz, [T4]), quota });
    const before = [await count('bookings'), await count('customers')];
    await assert.rejects(
      placeBooking(ctx.database.db, { ...toPlace(biz, [T6]), quota }),
      raisedWith(SQLSTATE.QUOTA_REACHED, { plan: quota.plan_id, limit: 2 }),
    );
    assert.deepEqual([await count('bookings'), await count('customers')], before);
  });

  it('counts exactly up to the quota when many bookings race for its last units', RACE, async () => {
    const biz = await setupBookable(ctx.app);
    const { T2, T4, T6 } = biz.resources as { T2: string; T4: string; T6: string };
    // Far from the limit each booking counts on one shard; the last units are counted exactly.
    const quota = await quotaOf(biz, 12);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => {
        const booking = toPlace(biz, [T2, T4, T6], i);
        const phone = `+49 30 555${String(i).padStart(4, '0')}`;
        const customer = { ...booking.customer, phone, phone_normalized: phone.replaceAll(' ', '') };
        return placeBooking(ctx.database.db, { ...booking, customer, quota });
      }),
    );
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 12);
    const refusals = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [(outcome.reason as { code: string }).code] : [],
    );
    assert.deepEqual(refusals, Array(28).fill(SQLSTATE.QUOTA_REACHED));
    assert.equal(await bookingsCounted(ctx.database.db, quota.developer_id), 12);
    assert.equal(await count('bookings'), 12);
  });

  it(
    'places the later of two transactions racing for one resource on the next, once the first commits',
    SECOND_CONNECTION,
    async () => {
      const biz = await setupBookable(ctx.app);
      const { T4, T6 } = biz.resources as { T4: string; T6: string };
      const second = await againstUncommitted(
        async (first) => assert.equal(await placedOn(first, toPlace(biz, [T4, T6])), T4),
        // The second waits at T4 for the first transaction to end, then moves on.
        () => placedOn(ctx.database.db, toPlace(biz, [T4, T6])),
      );
      assert.equal(second, T6);
    },
  );
});

describe('two placements on one resource at once', () => {
  it(
    'take turns at the resource, so the exclusion constraint never deadlocks them',
    SECOND_CONNECTION,
    async () => {
      const biz = await setupBookable(ctx.app);
      const { T4, T6 } = biz.resources as { T4: string; T6: string };
      const second = await againstUncommitted(
        (first) => placedOn(first, toPlace(biz, [T4])),
        // 12:30-13:30 clashes with the first transaction's 12:00-13:00 on T4.
        // No retry here: a deadlock must show, not be papered over.
        () => placedOn(ctx.database.db, toPlace(biz, [T4, T6], 0.5)),
        // 13:00-14:00 clashes only with what the second would insert: had it already inserted its
        // row and waited on the first inside the constraint check, each would now wait for the other.
        (first) => placedOn(first, toPlace(biz, [T4], 1)),
      );
      assert.equal(second, T6);
    },
  );
});

describe('placements on one resource on different days', () => {
  it(
    'do not wait for each other: turns are taken only where their times can meet',
    SECOND_CONNECTION,
    async () => {
      const biz = await setupBookable(ctx.app);
      const { T4 } = biz.resources as { T4: string };
      const first = await ctx.database.db.startTransaction().execute();
      try {
        assert.equal(await placedOn(first, toPlace(biz, [T4])), T4);
        // The next day on the same table, for another customer: placed while the first is still
        // open, not after its commit.
        const nextDay = toPlace(biz, [T4], 24);
        const customer = { ...nextDay.customer, phone: '+49 30 5550199', phone_normalized: '+49305550199' };
        assert.equal(await placedOn(ctx.database.db, { ...nextDay, customer }), T4);
      } finally {
        await first.rollback().execute();
      }
    },
  );
});

describe('a placement racing a resource delete', () => {
  it('never lands a booking on a resource deleted in the same moment', SECOND_CONNECTION, async () => {
    const biz = await setupBookable(ctx.app);
    const { T4, T6 } = biz.resources as { T4: string; T6: string };
    const placed = await againstUncommitted(
      // What the delete route does: lock the row, mark it deleted; then hold the commit.
      async (remover) => {
        await sql`SELECT id FROM resources WHERE id = ${T4} FOR UPDATE`.execute(remover);
        await sql`UPDATE resources SET deleted_at = now() WHERE id = ${T4}`.execute(remover);
      },
      () => placedOn(ctx.database.db, toPlace(biz, [T4, T6])),
    );
    assert.equal(placed, T6);
  });
});

describe('a reschedule racing a booking for its resource', () => {
  it(
    'moves to the next free resource instead of failing when another request takes the first',
    SECOND_CONNECTION,
    async () => {
      const biz = await setupBookable(ctx.app);
      const { T2, T4 } = biz.resources as { T2: string; T4: string };
      const booking = await bookOk(ctx.app, biz, { resource_id: T4 });
      const response = await againstUncommitted(
        // Another request books T4 at 14:00 and has not committed: the reschedule cannot see it yet.
        (rival) => placedOn(rival, toPlace(biz, [T4], 2)),
        () =>
          ctx.app.inject({
            method: 'PATCH',
            url: `/v1/manage/bookings/${booking.id}`,
            headers: biz.tenant.headers,
            payload: { start_time: '14:00' },
          }),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().resource_id, T2, 'the best-fitting free one');
      assert.equal(response.json().start_time, '14:00');
    },
  );
});
