import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { createTenant, eventually, feedCaughtUp, SECOND_CONNECTION, useTestApp } from '../../test/helpers.ts';
import { ChangeHints, HINT_CHANNEL, pruneChangeLog } from './change-log.ts';

const ctx = useTestApp();

const DB_DIR = new URL('../../db/', import.meta.url);

/** The rows logged since `from` (an id), oldest first. */
async function loggedSince(from: number) {
  const { rows } = await sql<{ cache: string | null; live: string | null }>`
    SELECT cache, live FROM change_log WHERE id > ${from} ORDER BY id`.execute(ctx.database.db);
  return rows;
}

async function lastId(): Promise<number> {
  const { rows } = await sql<{ id: string | null }>`SELECT max(id)::text AS id FROM change_log`.execute(
    ctx.database.db,
  );
  return Number(rows[0]!.id ?? 0);
}

describe('the change log', () => {
  it('is written by triggers, never announced by pg_notify inside a change (every file of db/)', () => {
    const files = readdirSync(DB_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.sql'),
    );
    assert.ok(files.length > 20, 'the definitions were found');
    const notifying = files.filter((file) =>
      /pg_notify|\bNOTIFY\b/i.test(readFileSync(new URL(file, DB_DIR), 'utf8')),
    );
    assert.deepEqual(notifying, []);
  });

  it('has one trigger on bookings, whatever the event', async () => {
    const { rows } = await sql<{ tgname: string }>`
      SELECT tgname FROM pg_trigger WHERE tgrelid = 'bookings'::regclass AND NOT tgisinternal`.execute(
      ctx.database.db,
    );
    assert.deepEqual(
      rows.map((row) => row.tgname),
      ['bookings_written'],
    );
  });

  it("logs a booking's UTC days and its event in one row; a notes-only edit logs the event and no day", async () => {
    const biz = await setupBookable(ctx.app);
    const from = await lastId();
    const booking = await bookOk(ctx.app, biz);
    const businessId = biz.tenant.businessId;
    const created = await loggedSince(from);
    assert.equal(created.length, 1, JSON.stringify(created));
    assert.match(
      created[0]!.cache!,
      new RegExp(`^busy:${businessId}:\\d{4}-\\d{2}-\\d{2}(,\\d{4}-\\d{2}-\\d{2})*$`),
    );
    assert.equal(created[0]!.live, `${businessId}:booking.created:${booking.id}:${booking.booking_date}:`);

    const edited = await lastId();
    await ctx.database.db
      .updateTable('bookings')
      .set({ staff_notes: 'window seat', customer_notes: 'birthday' })
      .where('id', '=', booking.id)
      .execute();
    assert.deepEqual(await loggedSince(edited), [
      { cache: null, live: `${businessId}:booking.updated:${booking.id}:${booking.booking_date}:` },
    ]);

    const cancelled = await lastId();
    await ctx.database.db
      .updateTable('bookings')
      .set({ status: 'cancelled' })
      .where('id', '=', booking.id)
      .execute();
    assert.deepEqual(await loggedSince(cancelled), [
      {
        cache: created[0]!.cache,
        live: `${businessId}:booking.cancelled:${booking.id}:${booking.booking_date}:`,
      },
    ]);
  });

  it('logs one row for a move that changes the status too: one UPDATE of the booking, not two', async () => {
    const biz = await setupBookable(ctx.app, { settings: { auto_confirm_bookings: false } });
    const booking = await bookOk(ctx.app, biz);
    assert.equal(booking.status, 'pending');
    const from = await lastId();
    const response = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/manage/bookings/${booking.id}`,
      headers: biz.tenant.headers,
      payload: { start_time: '14:00', status: 'confirmed' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().start_time, '14:00');
    assert.equal(response.json().status, 'confirmed');
    const logged = await loggedSince(from);
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.equal(
      logged[0]!.live,
      `${biz.tenant.businessId}:booking.confirmed:${booking.id}:${booking.booking_date}:`,
    );
  });

  it('deletes the rows older than an hour, and only those', async () => {
    await sql`INSERT INTO change_log (at, cache) VALUES (now() - interval '61 minutes', 'keys:old'),
      (now() - interval '59 minutes', 'keys:recent')`.execute(ctx.database.db);
    assert.equal(await pruneChangeLog(ctx.database.db), 1);
    const { rows } = await sql<{ cache: string }>`SELECT cache FROM change_log ORDER BY id`.execute(
      ctx.database.db,
    );
    assert.deepEqual(
      rows.map((row) => row.cache),
      ['keys:recent'],
    );
  });
});

describe('the change log reader', SECOND_CONNECTION, () => {
  it('applies rows committed out of id order: the later id first, the earlier after it was polled past', async () => {
    const a = await createTenant(ctx.app, { name: 'First In' });
    const b = await createTenant(ctx.app, { name: 'First Out' });
    await feedCaughtUp(ctx.app);
    const feed = ctx.app.changes;
    const [ruleA, ruleB] = [feed.rulesVersion(a.businessId), feed.rulesVersion(b.businessId)];
    const earlier = new pg.Client({ connectionString: ctx.databaseUrl });
    const later = new pg.Client({ connectionString: ctx.databaseUrl });
    await Promise.all([earlier.connect(), later.connect()]);
    try {
      const rename = (client: pg.Client, id: string) =>
        client.query("UPDATE businesses SET name = name || ' (renamed)' WHERE id = $1", [id]);
      await earlier.query('BEGIN');
      await rename(earlier, a.businessId);
      await later.query('BEGIN');
      await rename(later, b.businessId);
      const { rows } = await later.query<{ id: string }>('SELECT max(id)::text AS id FROM change_log');
      await later.query('COMMIT');
      await feedCaughtUp(ctx.app);
      assert.notEqual(feed.rulesVersion(b.businessId), ruleB, 'the later id, committed first, is applied');
      assert.equal(feed.rulesVersion(a.businessId), ruleA, 'the earlier one is not committed yet');

      await earlier.query('COMMIT');
      const { rows: logged } = await sql<{ id: string }>`
        SELECT id::text AS id FROM change_log WHERE cache = ${`rules:${a.businessId}`}`.execute(
        ctx.database.db,
      );
      assert.ok(BigInt(logged[0]!.id) < BigInt(rows[0]!.id), 'its id is below one already read');
      await feedCaughtUp(ctx.app);
      assert.notEqual(
        feed.rulesVersion(a.businessId),
        ruleA,
        'the earlier id, committed last, is applied too',
      );
    } finally {
      await Promise.all([earlier.end(), later.end()]);
    }
  });

  it('sends at most one wake-up hint per 10 ms however many writes, the last write of a burst included', async () => {
    const listener = new pg.Client({ connectionString: ctx.databaseUrl });
    await listener.connect();
    let heard = 0;
    listener.on('notification', () => heard++);
    await listener.query(`LISTEN ${HINT_CHANNEL}`);
    const hints = new ChangeHints(ctx.app.changeLog, ctx.database.db);
    try {
      for (let i = 0; i < 50; i++) hints.written();
      await eventually(() => heard === 2, 'the first hint and the one after the burst');
      for (let i = 0; i < 50; i++) hints.written();
      await eventually(() => heard >= 3, 'a hint for the next burst');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(heard <= 4, `${heard} hints for two bursts`);
    } finally {
      hints.stop();
      await listener.end();
    }
  });
});
