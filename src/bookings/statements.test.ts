import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  BOOKING_DAY,
  type BookableBusiness,
  raisedWith,
  setupBookable,
  staffPlacement,
} from '../../test/booking-fixtures.ts';
import { ENGINE, useTestApp } from '../../test/helpers.ts';
import { BOOKING_STATUSES, HOLDING_STATUSES } from '../engine/status.ts';
import { rangeLiteral } from '../platform/sql.ts';
import { findBookingToChange } from './bookings.queries.ts';
import { SQLSTATE } from './sqlstates.model.ts';
import {
  type BookingMove,
  type ChangeBookingParams,
  ChangeBookingParams as ChangeBookingParamsSchema,
  ChangeBookingResult,
  MoveBookingParams as MoveBookingParamsSchema,
  MoveBookingResult,
  PacingToCheck,
  type PlaceBookingParams,
  PlaceBookingParams as PlaceBookingParamsSchema,
  PlaceBookingResult,
} from './statements.model.ts';

/**
 * The contract of statements.model.ts against the functions of db/functions/ themselves, called directly
 * as the queries call them: a parameter of the schema's shape is answered with the result's shape,
 * one that lacks a required key, or has it renamed, is refused (SWC01) instead of being read as
 * NULL, and each refusal is raised with its registered code (sqlstates.model.ts) and what its answer
 * needs.
 */

const ctx = useTestApp();

const NOON = Date.parse(`${BOOKING_DAY}T12:00:00Z`);
const HOUR = 3_600_000;

/** Answers `fn(params)`, once `params` is checked against `schema`. */
async function call(fn: string, schema: TSchema, params: unknown): Promise<unknown> {
  assert.deepEqual([...Value.Errors(schema, params)], [], `${fn}'s parameter is not of its schema`);
  return callUnchecked(fn, params);
}

async function callUnchecked(fn: string, params: unknown): Promise<unknown> {
  const { rows } = await sql<{ result: unknown }>`
    SELECT ${sql.raw(fn)}(${JSON.stringify(params)}::jsonb) AS result`.execute(ctx.database.db);
  return rows[0]!.result;
}

function assertOfSchema(schema: TSchema, result: unknown) {
  assert.deepEqual(
    [...Value.Errors(schema, result)],
    [],
    `not of the result's schema: ${JSON.stringify(result)}`,
  );
}

type Path = string[];

/**
 * The path of each key `schema` requires in `value`, and of those required by the objects under it
 * that `value` holds.
 */
function requiredPaths(schema: TSchema, value: Record<string, unknown>, path: Path = []): Path[] {
  const { required = [], properties = {} } = schema as {
    required?: string[];
    properties?: Record<string, TSchema & { type?: string }>;
  };
  const paths = required.map((key) => [...path, key]);
  for (const [key, property] of Object.entries(properties)) {
    const inner = value[key];
    if (property.type === 'object' && inner && typeof inner === 'object') {
      paths.push(...requiredPaths(property, inner as Record<string, unknown>, [...path, key]));
    }
  }
  return paths;
}

/** `value` without the key at `path`, or with it renamed to `renamed`. */
function without(value: object, path: Path, renamed?: string): object {
  const copy = structuredClone(value) as Record<string, unknown>;
  const parent = path.slice(0, -1).reduce((at, key) => at[key] as Record<string, unknown>, copy);
  const key = path.at(-1)!;
  if (renamed) parent[renamed] = parent[key];
  delete parent[key];
  return copy;
}

/** Calls `fn` once per path, without that key, and expects each call refused naming the key. */
async function assertEachRequired(fn: string, params: object, paths: Path[]) {
  assert.ok(paths.length > 0);
  for (const path of paths) {
    await assert.rejects(
      callUnchecked(fn, without(params, path)),
      (error: { code?: string; message: string }) =>
        error.code === SQLSTATE.PARAMETER_INCOMPLETE && error.message.includes(`"${path.at(-1)}"`),
      `${fn} without ${path.join('.')}`,
    );
  }
}

/** A staff booking of two at noon UTC for an hour on `resourceId`, with a deposit and the quota. */
async function toPlace(biz: BookableBusiness, resourceId: string): Promise<PlaceBookingParams> {
  const { developer_id } = await ctx.database.db
    .selectFrom('businesses')
    .select('developer_id')
    .where('id', '=', biz.tenant.businessId)
    .executeTakeFirstOrThrow();
  return {
    ...staffPlacement(biz, [resourceId], NOON),
    status: 'pending',
    deposit: {
      type: 'charge',
      status: 'requires_payment',
      amount_cents: 1000,
      currency: 'eur',
      processor: 'simulated',
      processor_payment_id: `pi_${resourceId}`,
      expires_at: new Date(NOON).toISOString(),
    },
    actor: 'contract test',
    action: 'booking.created_by_staff_with_deposit',
    quota: { developer_id, month: `${BOOKING_DAY.slice(0, 7)}-01`, limit: 100, plan_id: 'starter' },
  };
}

/** A placed booking, as `changeBooking` reads it before a change. */
async function placed(biz: BookableBusiness, resourceId: string) {
  const placed = await call(
    'slotwise_place_booking',
    PlaceBookingParamsSchema,
    await toPlace(biz, resourceId),
  );
  const read = await findBookingToChange(
    ctx.database.db,
    biz.tenant.businessId,
    (placed as PlaceBookingResult).booking.id,
  );
  return read!;
}

/** The move of the booking to 14:00 UTC on `resourceId`. */
function moveTo(resourceId: string): BookingMove {
  const start = NOON + 2 * HOUR;
  return {
    candidates: [[resourceId]],
    booking_date: BOOKING_DAY,
    start_time: '14:00',
    end_time: '15:00',
    starts_at: new Date(start).toISOString(),
    ends_at: new Date(start + HOUR).toISOString(),
    duration_minutes: 60,
    during: rangeLiteral(start, start + HOUR),
    capacity: 2,
    hold_lead_ms: 0,
  };
}

async function deactivate(resourceId: string) {
  await ctx.database.db
    .updateTable('resources')
    .set({ is_active: false })
    .where('id', '=', resourceId)
    .execute();
}

/** Blocks `resourceId` from 11:30 to 14:30 UTC on the booking day. */
async function block(biz: BookableBusiness, resourceId: string) {
  await ctx.database.db
    .insertInto('resource_blocks')
    .values({
      business_id: biz.tenant.businessId,
      resource_id: resourceId,
      during: rangeLiteral(NOON - HOUR / 2, NOON + 2.5 * HOUR),
      source: 'manual',
    })
    .execute();
}

describe('slotwise_place_booking', () => {
  it('answers the placed booking in the shape of its result', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await call(
      'slotwise_place_booking',
      PlaceBookingParamsSchema,
      await toPlace(biz, biz.resources.T4!),
    );
    assertOfSchema(PlaceBookingResult, booking);
  });

  it('refuses a parameter that lacks a required key, or has it renamed', async () => {
    const biz = await setupBookable(ctx.app);
    const params = await toPlace(biz, biz.resources.T4!);
    assert.ok(Value.Check(PlaceBookingParamsSchema, params));
    await assertEachRequired(
      'slotwise_place_booking',
      params,
      requiredPaths(PlaceBookingParamsSchema, params),
    );
    await assert.rejects(callUnchecked('slotwise_place_booking', without(params, ['booking_date'], 'date')), {
      code: SQLSTATE.PARAMETER_INCOMPLETE,
      message: 'slotwise_place_booking lacks the key "booking_date"',
    });
    assert.equal(await bookingCount(), 0);
  });

  it('raises each refusal with its code and what its answer names, and writes nothing', async () => {
    const biz = await setupBookable(ctx.app);
    const params = await toPlace(biz, biz.resources.T4!);
    await block(biz, biz.resources.T4!);
    await assert.rejects(call('slotwise_place_booking', PlaceBookingParamsSchema, params), {
      code: SQLSTATE.SLOT_TAKEN,
    });
    const free = { ...params, candidates: [[biz.resources.T6!]] };
    await assert.rejects(
      call('slotwise_place_booking', PlaceBookingParamsSchema, {
        ...free,
        quota: { ...params.quota!, limit: 0 },
      }),
      raisedWith(SQLSTATE.QUOTA_REACHED, { plan: 'starter', limit: 0 }),
    );
    const month = params.quota!.month;
    await ctx.database.db
      .insertInto('sandbox_usage')
      .values({ business_id: biz.tenant.businessId, month, bookings: 3 })
      .execute();
    await assert.rejects(
      call('slotwise_place_booking', PlaceBookingParamsSchema, {
        ...free,
        quota: undefined,
        sandbox_cap: { month, cap: 3 },
      }),
      raisedWith(SQLSTATE.SANDBOX_CAP_REACHED, { cap: 3 }),
    );
    assert.equal(await bookingCount(), 0);
  });
});

describe('slotwise_check_pacing, through slotwise_place_booking', () => {
  /** The pacing of the placement's start, with at most `max_covers` guests. */
  const pacingOf = (params: PlaceBookingParams, max_covers: number, override = false): PacingToCheck => ({
    starts_at: params.starts_at,
    booking_date: params.booking_date,
    start_time: params.start_time,
    max_covers,
    max_bookings: null,
    override,
  });

  it('raises SWB12 naming the start, the cap and what it holds, and writes nothing', async () => {
    const biz = await setupBookable(ctx.app);
    const first = await toPlace(biz, biz.resources.T4!);
    await call('slotwise_place_booking', PlaceBookingParamsSchema, { ...first, pacing: pacingOf(first, 3) });
    const second = { ...(await toPlace(biz, biz.resources.T6!)), deposit: undefined };
    await assert.rejects(
      call('slotwise_place_booking', PlaceBookingParamsSchema, { ...second, pacing: pacingOf(second, 3) }),
      raisedWith(SQLSTATE.PACING_FULL, {
        booking_date: BOOKING_DAY,
        start_time: '12:00',
        cap: 'covers',
        max: 3,
        covers: 2,
        bookings: 1,
        party: 2,
      }),
    );
    assert.equal(await bookingCount(), 1);
    const passed = await call('slotwise_place_booking', PlaceBookingParamsSchema, {
      ...second,
      pacing: pacingOf(second, 3, true),
    });
    assertOfSchema(PlaceBookingResult, passed);
    assert.equal(await bookingCount(), 2);
  });

  it('refuses a pacing that lacks a required key', async () => {
    const biz = await setupBookable(ctx.app);
    const params = await toPlace(biz, biz.resources.T4!);
    const pacing = pacingOf(params, 10);
    await assertEachRequired(
      'slotwise_place_booking',
      { ...params, pacing },
      requiredPaths(PacingToCheck, pacing, ['pacing']),
    );
    assert.equal(await bookingCount(), 0);
  });
});

const bookingCount = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings`.execute(ctx.database.db)).rows[0]!.n;

describe('slotwise_move_booking', () => {
  it('answers the resource it moved the booking to, in the shape of its result', async () => {
    const biz = await setupBookable(ctx.app);
    const { view } = await placed(biz, biz.resources.T4!);
    const params = { ...moveTo(biz.resources.T6!), business_id: view.business_id, booking_id: view.id };
    const moved = await call('slotwise_move_booking', MoveBookingParamsSchema, params);
    assertOfSchema(MoveBookingResult, moved);
    assert.equal(moved, biz.resources.T6);
  });

  it('raises SWB09 when no candidate is active, unblocked and free', async () => {
    const biz = await setupBookable(ctx.app);
    const { view } = await placed(biz, biz.resources.T4!);
    await deactivate(biz.resources.T2!);
    await block(biz, biz.resources.T6!);
    const params = {
      ...moveTo(biz.resources.T2!),
      candidates: [[biz.resources.T2!], [biz.resources.T6!]],
      business_id: view.business_id,
      booking_id: view.id,
    };
    await assert.rejects(call('slotwise_move_booking', MoveBookingParamsSchema, params), {
      code: SQLSTATE.SLOT_TAKEN,
    });
  });

  it('refuses a parameter that lacks a required key', async () => {
    const biz = await setupBookable(ctx.app);
    const { view } = await placed(biz, biz.resources.T4!);
    const params = { ...moveTo(biz.resources.T6!), business_id: view.business_id, booking_id: view.id };
    await assertEachRequired('slotwise_move_booking', params, requiredPaths(MoveBookingParamsSchema, params));
  });
});

describe('slotwise_change_booking', () => {
  const change = (read: Awaited<ReturnType<typeof placed>>): ChangeBookingParams => ({
    business_id: read.view.business_id,
    booking_id: read.view.id,
    version: read.version,
    actor: 'contract test',
    events: ['booking.updated'],
  });

  it('answers the changed booking or a stale read in the shapes of its result', async () => {
    const biz = await setupBookable(ctx.app);
    const read = await placed(biz, biz.resources.T4!);
    const changed = await call('slotwise_change_booking', ChangeBookingParamsSchema, {
      ...change(read),
      place: { resource_id: biz.resources.T4!, capacity: 3, during: read.during },
      status: 'confirmed',
    });
    assertOfSchema(ChangeBookingResult, changed);
    assert.equal((changed as PlaceBookingResult).booking.capacity, 3);
    assert.deepEqual((changed as PlaceBookingResult).held_dates, [BOOKING_DAY]);
    const stale = await call('slotwise_change_booking', ChangeBookingParamsSchema, change(read));
    assertOfSchema(ChangeBookingResult, stale);
    assert.deepEqual(stale, { stale: true });
  });

  it('raises each refusal with its code, and keeps nothing of the change', async () => {
    const biz = await setupBookable(ctx.app);
    const read = await placed(biz, biz.resources.T4!);
    const other = await placed(biz, biz.resources.T2!);
    await deactivate(biz.resources.T6!);
    const refusals: [Partial<ChangeBookingParams>, object][] = [
      [
        { place: { resource_id: biz.resources.T6!, capacity: 2, during: read.during } },
        { code: SQLSTATE.RESOURCE_INACTIVE },
      ],
      [
        { place: { resource_id: other.view.resource_id, capacity: 2, during: read.during } },
        { code: SQLSTATE.SLOT_TAKEN },
      ],
      [{ move: moveTo(biz.resources.T6!) }, { code: SQLSTATE.SLOT_TAKEN }],
      [
        {
          place: { resource_id: biz.resources.T4!, capacity: 3, during: read.during },
          status_refused: 'a booking cannot move from pending to completed',
        },
        { code: SQLSTATE.STATUS_REFUSED, message: 'a booking cannot move from pending to completed' },
      ],
    ];
    for (const [params, refusal] of refusals) {
      await assert.rejects(
        call('slotwise_change_booking', ChangeBookingParamsSchema, { ...change(read), ...params }),
        refusal,
        JSON.stringify(params),
      );
    }
    const after = await findBookingToChange(ctx.database.db, biz.tenant.businessId, read.view.id);
    assert.deepEqual(after, read);
  });

  it('refuses a parameter that lacks a required key', async () => {
    const biz = await setupBookable(ctx.app);
    const read = await placed(biz, biz.resources.T4!);
    const params: ChangeBookingParams = {
      ...change(read),
      move: moveTo(biz.resources.T6!),
      place: { resource_id: biz.resources.T4!, capacity: 3, during: read.during },
    };
    await assertEachRequired(
      'slotwise_change_booking',
      params,
      requiredPaths(ChangeBookingParamsSchema, params),
    );
    const after = await findBookingToChange(ctx.database.db, biz.tenant.businessId, read.view.id);
    assert.equal(after!.version, read.version);
  });
});

describe('slotwise_take_turn', () => {
  const takeTurn = (biz: BookableBusiness, resourceId: string, unblocked: boolean) =>
    sql`SELECT slotwise_take_turn(${biz.tenant.businessId}::uuid, ${resourceId}::uuid,
      ${rangeLiteral(NOON, NOON + HOUR)}::tstzrange, ${unblocked})`.execute(ctx.database.db);

  it('raises SWB11 for a resource no longer active, and SWB09 for a blocked one when asked to', async () => {
    const biz = await setupBookable(ctx.app);
    await deactivate(biz.resources.T2!);
    await block(biz, biz.resources.T4!);
    await assert.rejects(takeTurn(biz, biz.resources.T2!, false), {
      code: SQLSTATE.RESOURCE_INACTIVE,
    });
    await assert.rejects(takeTurn(biz, biz.resources.T4!, true), { code: SQLSTATE.SLOT_TAKEN });
    await takeTurn(biz, biz.resources.T4!, false);
    await takeTurn(biz, biz.resources.T6!, true);
  });
});

describe('the statuses that hold a resource', () => {
  it('are HOLDING_STATUSES, exactly those whose bookings have holds under the exclusion constraint', async () => {
    const biz = await setupBookable(ctx.app);
    const placed = (await call(
      'slotwise_place_booking',
      PlaceBookingParamsSchema,
      staffPlacement(biz, [[biz.resources.T4!, biz.resources.T6!]], NOON),
    )) as { booking: { id: string } };
    const holding: string[] = [];
    const busyReads: string[] = [];
    for (const status of BOOKING_STATUSES) {
      await sql`UPDATE bookings SET status = ${status} WHERE id = ${placed.booking.id}`.execute(
        ctx.database.db,
      );
      const { rows } = await sql<{ held: number }>`
        SELECT count(*)::int AS held FROM booking_holds WHERE booking_id = ${placed.booking.id}`.execute(
        ctx.database.db,
      );
      if (rows[0]!.held > 0) {
        assert.equal(rows[0]!.held, 2, `a ${status} booking holds both its tables`);
        holding.push(status);
      }
      const { rows: busy } = await sql<{ read: number }>`
        SELECT count(*)::int AS read FROM bookings b,
          slotwise_busy(b.business_id, lower(b.during), upper(b.during)) s
        WHERE b.id = ${placed.booking.id} AND s.party_size IS NOT NULL AND s.resource_id = b.resource_id
          AND s.start_ms = date_part('epoch', lower(b.during)) * 1000`.execute(ctx.database.db);
      if (busy[0]!.read > 0) busyReads.push(status);
    }
    assert.deepEqual(holding.sort(), [...HOLDING_STATUSES].sort());
    assert.deepEqual(
      busyReads.sort(),
      holding,
      'the busy read (slotwise_busy) sees exactly the holding bookings',
    );
  });

  it('leave the busy read and the pacing count on the index partial on them, generic plans included', {
    skip: ENGINE !== 'postgres' && 'auto_explain is a module of the PostgreSQL server',
  }, async () => {
    const biz = await setupBookable(ctx.app);
    await call(
      'slotwise_place_booking',
      PlaceBookingParamsSchema,
      staffPlacement(biz, [biz.resources.T4!], NOON),
    );
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    const plans: string[] = [];
    client.on('notice', (notice) => plans.push(notice.message ?? ''));
    await client.connect();
    try {
      // auto_explain shows the plans of the functions' own statements, as they cached them. With
      // sequential scans off, a plan that could not prove the index's predicate shows another scan.
      await client.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0;
          SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice;
          SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan`);
      const business = biz.tenant.businessId;
      const from = new Date(NOON - HOUR).toISOString();
      const to = new Date(NOON + HOUR).toISOString();
      const { rows } = await client.query('SELECT count(*)::int AS n FROM slotwise_busy($1, $2, $3)', [
        business,
        from,
        to,
      ]);
      assert.equal(rows[0].n, 1);
      const pacing: PacingToCheck = {
        starts_at: new Date(NOON).toISOString(),
        booking_date: BOOKING_DAY,
        start_time: '12:00',
        max_covers: 1000,
        max_bookings: 500,
        override: false,
      };
      await client.query('SELECT slotwise_check_pacing($1, $2::jsonb, 2, NULL)', [
        business,
        JSON.stringify(pacing),
      ]);
    } finally {
      await client.end();
    }
    const bookingReads = plans.filter((plan) => /FROM bookings\b/.test(plan) && /during (&&|@>)/.test(plan));
    assert.equal(bookingReads.length, 2, plans.join('\n---\n'));
    for (const plan of bookingReads) {
      assert.match(plan, /Index Scan (using|on) bookings_during_idx/, plan);
      assert.doesNotMatch(plan.slice(plan.indexOf('Index Scan')), /status/, plan);
    }
  });
});
