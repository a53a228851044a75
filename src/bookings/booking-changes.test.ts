import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import {
  type BookableBusiness,
  bookOk,
  daysFromNow,
  setupBookable,
  withoutGuestProfile,
} from '../../test/booking-fixtures.ts';
import {
  createTenant,
  itChecksAuth,
  RACE,
  SECOND_CONNECTION,
  untilALockWait,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp({ webhookAllowPrivateUrls: true });

const DAY = daysFromNow(7);

const book = (biz: BookableBusiness, body: Record<string, unknown> = {}) => bookOk(ctx.app, biz, body);

const patch = (biz: BookableBusiness, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/v1/manage/bookings/${id}`, headers: biz.tenant.headers, payload });

const list = (biz: BookableBusiness, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/bookings${query}`, headers: biz.tenant.headers });

/**
 * Runs `statements` in a transaction of a second session, starts `request`, and commits once the
 * request waits for that transaction (PostgreSQL only).
 */
async function whileUncommitted<T>(statements: [string, unknown[]][], request: () => Promise<T>): Promise<T> {
  const other = new pg.Client({ connectionString: ctx.databaseUrl });
  await other.connect();
  try {
    await other.query('BEGIN');
    for (const [text, values] of statements) await other.query(text, values);
    const pending = request();
    await untilALockWait(ctx.database);
    await other.query('COMMIT');
    return await pending;
  } finally {
    await other.end();
  }
}

async function auditActions(id: string) {
  const rows = await ctx.database.db
    .selectFrom('audit_logs')
    .select('action')
    .where('entity_id', '=', id)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.action);
}

describe('GET /v1/manage/bookings', () => {
  describe('200', () => {
    it('lists by date and time with customer and resource, filters, and pages with a cursor', async () => {
      const biz = await setupBookable(ctx.app);
      const late = await book(biz, { start_time: '15:00' });
      const early = await book(biz, { start_time: '10:00' });
      const otherDay = await book(biz, { booking_date: daysFromNow(8) });
      const all = await list(biz);
      assert.equal(all.statusCode, 200);
      assert.deepEqual(
        all.json().items.map((b: { id: string }) => b.id),
        [early.id, late.id, otherDay.id],
      );
      assert.equal(all.json().items[0].customer.first_name, 'Grace');
      assert.equal(all.json().items[0].resource.name, 'T2');
      const byDate = await list(biz, `?res_date=${DAY}`);
      assert.equal(byDate.json().items.length, 2);
      const byAlias = await list(biz, `?booking_date=${DAY}`);
      assert.equal(byAlias.json().items.length, 2);
      const page1 = await list(biz, '?limit=2');
      assert.equal(page1.json().has_more, true);
      const page2 = await list(biz, `?limit=2&cursor=${page1.json().next_cursor}`);
      assert.deepEqual(
        page2.json().items.map((b: { id: string }) => b.id),
        [otherDay.id],
      );
      assert.equal(page2.json().has_more, false);
      const latest = await list(biz, '?latest=true&limit=1');
      assert.equal(latest.json().items[0].id, otherDay.id);
      const latest2 = await list(biz, `?latest=true&limit=1&cursor=${latest.json().next_cursor}`);
      assert.equal(latest2.json().items[0].id, early.id);
    });

    it('finds by partial, case-insensitive code, by status, resource and customer', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      await book(biz, { start_time: '14:00' });
      const part = booking.confirmation_code.slice(2, 6).toLowerCase();
      const byCode = await list(biz, `?code=${part}`);
      assert.ok(byCode.json().items.some((b: { id: string }) => b.id === booking.id));
      await patch(biz, booking.id, { status: 'cancelled' });
      assert.equal((await list(biz, '?status=cancelled')).json().items.length, 1);
      assert.equal((await list(biz, '?status=confirmed,cancelled')).json().items.length, 2);
      assert.equal((await list(biz, `?resource_id=${booking.resource_id}`)).json().items.length, 2);
      assert.equal((await list(biz, `?customer_id=${booking.customer_id}`)).json().items.length, 1);
    });

    it("never shows another business's bookings", async () => {
      const biz = await setupBookable(ctx.app);
      await book(biz);
      const other = await createTenant(ctx.app);
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/bookings',
        headers: other.headers,
      });
      assert.deepEqual(response.json().items, []);
    });
  });

  describe('422', () => {
    it('refuses a bad status, date and cursor', async () => {
      const biz = await setupBookable(ctx.app);
      const forged = Buffer.from(JSON.stringify(['x', 'y', '00000000-0000-4000-8000-000000000000'])).toString(
        'base64url',
      );
      const yearZero = Buffer.from(
        JSON.stringify(['0000-01-01', '10:00:00', '00000000-0000-4000-8000-000000000000']),
      ).toString('base64url');
      for (const query of [
        '?status=lost',
        '?res_date=2026-13-01',
        '?cursor=garbage',
        '?limit=201',
        `?cursor=${forged}`,
        `?cursor=${yearZero}`,
      ]) {
        const response = await list(biz, query);
        assert.equal(response.statusCode, 422, query);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        return {
          tenant: biz.tenant,
          route: { method: 'GET', url: '/v1/manage/bookings', scope: 'read', staff: true },
        };
      },
    );
  });
});

describe('PATCH /v1/manage/bookings/{id}', () => {
  describe('200', () => {
    it('walks the status machine and audits each move', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      for (const status of ['checked_in', 'completed']) {
        const response = await patch(biz, booking.id, { status });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().status, status);
      }
      assert.deepEqual(await auditActions(booking.id), [
        'booking.created',
        'booking.status_changed',
        'booking.status_changed',
      ]);
    });

    it('frees the slot when a booking is cancelled', async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
      });
      const booking = await book(biz);
      await patch(biz, booking.id, { status: 'cancelled' });
      await book(biz);
    });

    it('moves a booking to a free resource that fits, and changes the party size within its range', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const moved = await patch(biz, booking.id, { resource_id: biz.resources.T6 });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(moved.json().resource_id, biz.resources.T6);
      const bigger = await patch(biz, booking.id, { capacity: 5 });
      assert.equal(bigger.json().capacity, 5);
      assert.deepEqual(await auditActions(booking.id), [
        'booking.created',
        'booking.resource_moved',
        'booking.capacity_changed',
      ]);
    });

    it('reschedules with the rules of a new booking', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const response = await patch(biz, booking.id, { booking_date: daysFromNow(9), start_time: '09:30' });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().booking_date, daysFromNow(9));
      assert.equal(response.json().start_time, '09:30');
      assert.equal(response.json().end_time, '10:30');
      assert.deepEqual(await auditActions(booking.id), ['booking.created', 'booking.rescheduled']);
      const later = await patch(biz, booking.id, { start_time: '10:00' });
      assert.equal(later.statusCode, 200, 'overlapping its own old time is fine');
    });
    it('answers each change with the booking as it is then stored', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const stored = async () =>
        withoutGuestProfile(
          (
            await ctx.app.inject({
              method: 'GET',
              url: `/v1/manage/bookings/${booking.id}`,
              headers: biz.tenant.headers,
            })
          ).json(),
        );
      for (const change of [
        { booking_date: daysFromNow(9), start_time: '14:00', resource_id: biz.resources.T6 },
        { resource_id: biz.resources.T4, capacity: 3 },
        { status: 'checked_in' },
      ]) {
        const response = await patch(biz, booking.id, change);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), await stored(), JSON.stringify(change));
      }
      const rescheduled = await ctx.database.db
        .selectFrom('audit_logs')
        .select(['before_state', 'after_state'])
        .where('entity_id', '=', booking.id)
        .where('action', '=', 'booking.rescheduled')
        .executeTakeFirstOrThrow();
      assert.deepEqual(rescheduled, {
        before_state: { booking_date: DAY, start_time: '12:00', resource_id: biz.resources.T2, capacity: 2 },
        after_state: {
          booking_date: daysFromNow(9),
          start_time: '14:00',
          resource_id: biz.resources.T6,
          capacity: 2,
        },
      });
    });
  });

  describe('409', () => {
    it('refuses moves the status machine does not allow', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      await patch(biz, booking.id, { status: 'cancelled' });
      for (const status of ['confirmed', 'checked_in', 'completed']) {
        const response = await patch(biz, booking.id, { status });
        assert.equal(response.statusCode, 409, status);
        assert.equal(response.json().error.code, 'conflict');
      }
      const again = await patch(biz, booking.id, { status: 'cancelled' });
      assert.equal(again.statusCode, 409, 'a closed booking is not cancelled twice');
      const fresh = await book(biz);
      const skip = await patch(biz, fresh.id, { status: 'completed' });
      assert.equal(skip.statusCode, 409);
      const terminal = await patch(biz, booking.id, { capacity: 3 });
      assert.equal(terminal.statusCode, 409);
    });

    it('refuses a move onto a resource that is taken or blocked', async () => {
      const biz = await setupBookable(ctx.app);
      const first = await book(biz);
      const second = await book(biz);
      const clash = await patch(biz, first.id, { resource_id: second.resource_id });
      assert.equal(clash.statusCode, 409);
      assert.equal(clash.json().error.code, 'slot_unavailable');
      await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/resources/${biz.resources.T6}/blocks`,
        headers: biz.tenant.headers,
        payload: { start_at: `${DAY}T11:30:00Z`, end_at: `${DAY}T12:30:00Z`, reason: 'repair' },
      });
      const blocked = await patch(biz, first.id, { resource_id: biz.resources.T6 });
      assert.equal(blocked.statusCode, 409);
    });

    it("answers a placement's refusal before the status machine's, and keeps no part of either", async () => {
      const biz = await setupBookable(ctx.app);
      const first = await book(biz);
      const second = await book(biz);
      const clash = await patch(biz, first.id, { resource_id: second.resource_id, status: 'completed' });
      assert.equal(clash.statusCode, 409);
      assert.equal(clash.json().error.code, 'slot_unavailable');
      // The move alone would be made: the status machine refuses it, and the move is taken back.
      const refused = await patch(biz, first.id, { resource_id: biz.resources.T6, status: 'completed' });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json().error.code, 'conflict');
      assert.match(refused.json().error.message, /cannot move from confirmed to completed/);
      const rescheduled = await patch(biz, first.id, { start_time: '14:00', status: 'completed' });
      assert.equal(rescheduled.statusCode, 409);
      assert.equal(rescheduled.json().error.code, 'conflict');
      const stored = await ctx.database.db
        .selectFrom('bookings')
        .select(['resource_id', 'status', sql<string>`to_char(start_time, 'HH24:MI')`.as('start')])
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { resource_id: first.resource_id, status: 'confirmed', start: '12:00' });
      assert.deepEqual(await auditActions(first.id), ['booking.created']);
    });

    it('refuses a reschedule onto a taken slot', async () => {
      const biz = await setupBookable(ctx.app, {
        resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }],
      });
      const first = await book(biz, { start_time: '10:00' });
      await book(biz, { start_time: '12:00' });
      const response = await patch(biz, first.id, { start_time: '11:30' });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'slot_unavailable');
    });
  });

  describe('422', () => {
    it('refuses a party size outside the resource range, an unknown status and an empty body', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const tooBig = await patch(biz, booking.id, { capacity: 3 });
      assert.equal(tooBig.statusCode, 422);
      assert.equal(tooBig.json().error.fields[0].field, 'capacity');
      assert.equal((await patch(biz, booking.id, { status: 'lost' })).statusCode, 422);
      assert.equal((await patch(biz, booking.id, {})).statusCode, 422);
      assert.equal((await patch(biz, booking.id, { capacity: 51 })).statusCode, 422);
      const offGrid = await patch(biz, booking.id, { start_time: '12:05' });
      assert.equal(offGrid.json().error.code, 'validation_error');
      const closed = await patch(biz, booking.id, { start_time: '20:00' });
      assert.equal(closed.json().error.code, 'outside_operating_hours');
    });
    it('answers a party size or resource the placement refuses before a status move it refuses', async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const tooBig = await patch(biz, booking.id, { capacity: 3, status: 'completed' });
      assert.equal(tooBig.statusCode, 422, tooBig.body);
      assert.equal(tooBig.json().error.fields[0].field, 'capacity');
      await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/resources/${biz.resources.T4}`,
        headers: biz.tenant.headers,
        payload: { is_active: false },
      });
      const inactive = await patch(biz, booking.id, { resource_id: biz.resources.T4, status: 'completed' });
      assert.equal(inactive.statusCode, 422, inactive.body);
      assert.equal(inactive.json().error.fields[0].field, 'resource_id');
    });
  });

  describe('422 (rules of the business and the service)', () => {
    it("keeps a rescheduled party inside the business's limits, and audits a party size it changes", async () => {
      const biz = await setupBookable(ctx.app, { settings: { max_capacity: 4 } });
      const booking = await book(biz);
      const tooBig = await patch(biz, booking.id, { start_time: '14:00', capacity: 6 });
      assert.equal(tooBig.statusCode, 422);
      assert.equal(tooBig.json().error.fields[0].field, 'capacity');
      const moved = await patch(biz, booking.id, { start_time: '14:00', capacity: 3 });
      assert.equal(moved.statusCode, 200, moved.body);
      const audit = await ctx.database.db
        .selectFrom('audit_logs')
        .select(['before_state', 'after_state'])
        .where('entity_id', '=', booking.id)
        .where('action', '=', 'booking.rescheduled')
        .executeTakeFirstOrThrow();
      assert.equal((audit.before_state as { capacity: number }).capacity, 2);
      assert.equal((audit.after_state as { capacity: number }).capacity, 3);
      assert.ok((await auditActions(booking.id)).includes('booking.capacity_changed'));
    });

    it("keeps a party size changed on its own inside the business's limits", async () => {
      const biz = await setupBookable(ctx.app, { settings: { min_capacity: 2, max_capacity: 4 } });
      const booking = await book(biz, { capacity: 3 });
      assert.equal(booking.resource_id, biz.resources.T4);
      const onT6 = await patch(biz, booking.id, { resource_id: biz.resources.T6 });
      assert.equal(onT6.statusCode, 200, onT6.body);
      const tooBig = await patch(biz, booking.id, { capacity: 5 });
      assert.equal(tooBig.statusCode, 422, tooBig.body);
      assert.equal(tooBig.json().error.code, 'validation_error');
      assert.equal(tooBig.json().error.fields[0].field, 'capacity');
      const backOnT4 = await patch(biz, booking.id, { resource_id: biz.resources.T4 });
      assert.equal(backOnT4.statusCode, 200, backOnT4.body);
      const tooSmall = await patch(biz, booking.id, { capacity: 1 });
      assert.equal(tooSmall.statusCode, 422, tooSmall.body);
      assert.equal(tooSmall.json().error.fields[0].field, 'capacity');
      const fits = await patch(biz, booking.id, { capacity: 4 });
      assert.equal(fits.statusCode, 200, fits.body);
      assert.equal(fits.json().capacity, 4);
    });

    it("refuses to move a service's booking onto a resource that does not perform it", async () => {
      const biz = await setupBookable(ctx.app);
      const service = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/services',
        headers: biz.tenant.headers,
        payload: { name: 'Chef table', duration_minutes: 60, resource_ids: [biz.resources.T4] },
      });
      const booking = await book(biz, { service_id: service.json().id });
      assert.equal(booking.resource_id, biz.resources.T4);
      const response = await patch(biz, booking.id, { resource_id: biz.resources.T6 });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'resource_id');
    });
  });

  describe('404', () => {
    it("answers not_found for another business's booking and a malformed id", async () => {
      const biz = await setupBookable(ctx.app);
      const booking = await book(biz);
      const other = await createTenant(ctx.app);
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: other.headers,
        payload: { status: 'cancelled' },
      });
      assert.equal(response.statusCode, 404);
      assert.equal((await patch(biz, 'nope', { status: 'cancelled' })).statusCode, 404);
      const unchanged = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
      });
      assert.equal(unchanged.json().status, 'confirmed');
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        const booking = await book(biz);
        return {
          tenant: biz.tenant,
          route: {
            method: 'PATCH',
            url: `/v1/manage/bookings/${booking.id}`,
            payload: { status: 'checked_in' },
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});

describe('PATCH /v1/manage/bookings/{id}/notes', () => {
  it('200: saves staff notes, kept after the booking closes, audited', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    await patch(biz, booking.id, { status: 'cancelled' });
    const response = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}/notes`,
      headers: biz.tenant.headers,
      payload: { staff_notes: 'called to cancel, rebook next week' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().staff_notes, 'called to cancel, rebook next week');
    assert.ok((await auditActions(booking.id)).includes('booking.notes_saved'));
  });

  it('422: refuses notes over 2000 characters and a missing field', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    for (const payload of [{ staff_notes: 'x'.repeat(2001) }, {}]) {
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/manage/bookings/${booking.id}/notes`,
        headers: biz.tenant.headers,
        payload,
      });
      assert.equal(response.statusCode, 422);
    }
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        const booking = await book(biz);
        return {
          tenant: biz.tenant,
          route: {
            method: 'PATCH',
            url: `/v1/manage/bookings/${booking.id}/notes`,
            payload: { staff_notes: 'hi' },
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});

describe('GET /v1/manage/bookings/{id}/available-resources', () => {
  it('200: lists free fitting resources except the current one', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz, { capacity: 2 });
    await book(biz, { capacity: 2 });
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/bookings/${booking.id}/available-resources`,
      headers: biz.tenant.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response.json().map((r: { name: string }) => r.name),
      ['T6'],
    );
  });

  it("404: another business's booking", async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    const other = await createTenant(ctx.app);
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/bookings/${booking.id}/available-resources`,
      headers: other.headers,
    });
    assert.equal(response.statusCode, 404);
  });
});

describe('a move racing a resource delete', () => {
  it('never lands a booking on a resource deleted in the same moment', SECOND_CONNECTION, async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    // What the delete route does: lock the row, find no bookings, mark it deleted; then hold the commit.
    const response = await whileUncommitted(
      [
        ['SELECT id FROM resources WHERE id = $1 FOR UPDATE', [biz.resources.T6]],
        ['UPDATE resources SET deleted_at = now() WHERE id = $1', [biz.resources.T6]],
      ],
      () => patch(biz, booking.id, { resource_id: biz.resources.T6 }),
    );
    assert.equal(response.statusCode, 422, response.body);
    const stored = await ctx.database.db
      .selectFrom('bookings')
      .select('resource_id')
      .where('id', '=', booking.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.resource_id, booking.resource_id);
  });
});

describe('simultaneous changes of one booking', () => {
  it('lets exactly one of many simultaneous cancellations through, audited once', RACE, async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => patch(biz, booking.id, { status: 'cancelled' })),
    );
    const codes = responses.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, ...Array(11).fill(409)], responses.map((r) => r.body).join('\n'));
    assert.deepEqual(await auditActions(booking.id), ['booking.created', 'booking.status_changed']);
  });

  it('makes every one of many simultaneous reschedules, one after another', RACE, async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    const times = ['09:00', '10:00', '11:00', '13:00', '14:00', '15:00'];
    const responses = await Promise.all(times.map((start_time) => patch(biz, booking.id, { start_time })));
    for (const response of responses) assert.equal(response.statusCode, 200, response.body);
    const audits = await ctx.database.db
      .selectFrom('audit_logs')
      .select('after_state')
      .where('entity_id', '=', booking.id)
      .where('action', '=', 'booking.rescheduled')
      .orderBy('seq')
      .execute();
    const audited = audits.map((a) => (a.after_state as { start_time: string }).start_time);
    assert.deepEqual([...audited].sort(), times);
    const stored = await ctx.database.db
      .selectFrom('bookings')
      .select(sql<string>`to_char(start_time, 'HH24:MI')`.as('start'))
      .where('id', '=', booking.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.start, audited.at(-1), 'the last change audited is the one stored');
  });

  it('makes a change on the booking as another request left it meanwhile', SECOND_CONNECTION, async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    // Another request has changed the booking and not committed: the change reads it as it was.
    const response = await whileUncommitted(
      [[`UPDATE bookings SET staff_notes = 'window seat', status = 'confirmed' WHERE id = $1`, [booking.id]]],
      () => patch(biz, booking.id, { status: 'checked_in', capacity: 1 }),
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().staff_notes, 'window seat');
    assert.equal(response.json().status, 'checked_in');
    assert.equal(response.json().capacity, 1);
  });

  it(
    'answers and announces the customer and resource as they are when the change is made',
    SECOND_CONNECTION,
    async () => {
      const biz = await setupBookable(ctx.app);
      const hook = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/webhooks',
        headers: biz.tenant.headers,
        payload: { url: 'http://127.0.0.1:1024/hook', events: ['booking.updated'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const booking = await book(biz);
      // Renamed by other requests after the change read the booking, committed while it waits for
      // the resource it moves to: the booking's own row, whose version it checks, is unchanged.
      const response = await whileUncommitted(
        [
          [`UPDATE customers SET first_name = 'Ada' WHERE id = $1`, [booking.customer_id]],
          [`UPDATE resources SET name = 'Window' WHERE id = $1`, [biz.resources.T4]],
        ],
        () => patch(biz, booking.id, { resource_id: biz.resources.T4 }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const stored = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings/${booking.id}`,
        headers: biz.tenant.headers,
      });
      assert.deepEqual(response.json(), withoutGuestProfile(stored.json()));
      assert.equal(response.json().customer.first_name, 'Ada');
      assert.equal(response.json().resource.name, 'Window');
      const event = await ctx.database.db
        .selectFrom('webhook_events')
        .select('data')
        .where('type', '=', 'booking.updated')
        .executeTakeFirstOrThrow();
      assert.deepEqual(event.data, withoutGuestProfile(stored.json()));
    },
  );
});

describe('DELETE /v1/manage/resources/{id} with bookings', () => {
  it('409 while the resource has upcoming bookings, 204 once they are cancelled', async () => {
    const biz = await setupBookable(ctx.app);
    const booking = await book(biz);
    const del = () =>
      ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/resources/${booking.resource_id}`,
        headers: biz.tenant.headers,
      });
    const refused = await del();
    assert.equal(refused.statusCode, 409);
    await patch(biz, booking.id, { status: 'cancelled' });
    assert.equal((await del()).statusCode, 204);
  });
});
