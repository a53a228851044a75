import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import ical, { type VEvent } from 'node-ical';
import { guest, setupBookable } from '../../test/booking-fixtures.ts';
import { createTenant, itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();
beforeEach(() => {
  ctx.app.clock.now = () => Date.now();
});

const NOW = Date.parse('2026-10-10T12:00:00Z');

async function venue(timezone: string) {
  ctx.app.clock.now = () => NOW;
  const biz = await setupBookable(ctx.app, { settings: { timezone }, open: '12:00', close: '23:00' });
  const send = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const response = await ctx.app.inject({ method, url, headers: biz.tenant.headers, payload });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const staff = async (date: string, time: string, extra: object = {}) =>
    (await send('POST', '/v1/manage/bookings/staff', { date, time, capacity: 2, ...guest(), ...extra }))
      .booking;
  return { biz, send, staff };
}

async function feedOf(headers: Record<string, string>, body: object = {}) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/calendar-feeds',
    headers,
    payload: body,
  });
  assert.equal(response.statusCode, 201, response.body);
  const created = response.json();
  return { ...created, path: new URL(created.url).pathname };
}

const read = (path: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: path, headers });

function eventsOf(body: string): VEvent[] {
  return Object.values(ical.sync.parseICS(body)).filter((c): c is VEvent => c?.type === 'VEVENT');
}

describe('calendar feeds', () => {
  it('lists bookings at their instants on both sides of a DST change, in Berlin and New York', async () => {
    for (const [zone, dates] of [
      ['Europe/Berlin', ['2026-10-24', '2026-10-26']],
      ['America/New_York', ['2026-10-31', '2026-11-02']],
    ] as const) {
      await ctx.reset();
      const { biz, staff } = await venue(zone);
      const bookings = [await staff(dates[0], '19:00'), await staff(dates[1], '19:00')];
      const feed = await feedOf(biz.tenant.headers);
      const response = await read(feed.path);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'text/calendar; charset=utf-8');
      assert.match(String(response.headers['cache-control']), /private/);
      assert.doesNotMatch(response.body, /TZID|X-WR-TIMEZONE/);
      const events = eventsOf(response.body);
      assert.equal(events.length, 2);
      for (const booking of bookings) {
        const event = events.find((e) => e.uid === `booking-${booking.id}@127.0.0.1`);
        assert.ok(event, `${zone}: ${booking.id} in the feed`);
        assert.equal(event.start.toISOString(), new Date(booking.starts_at).toISOString());
        assert.equal(event.end?.toISOString(), new Date(booking.ends_at).toISOString());
        assert.equal(event.summary, 'party of 2 - Grace Hopper');
        assert.match(String(event.description), new RegExp(booking.confirmation_code));
        assert.equal(event.status, 'CONFIRMED');
      }
      // The wall clock said 19:00 both days: the offsets differ by the hour the clocks moved.
      const [first, second] = bookings.map((b) => Date.parse(b.starts_at));
      assert.equal(second! - first!, 2 * 86_400_000 + 3_600_000);
    }
  });

  it('maps statuses, keeps a cancellation 30 days and raises SEQUENCE with each change', async () => {
    const { biz, send, staff } = await venue('Europe/Berlin');
    await send('PATCH', '/v1/manage/settings', { auto_confirm_bookings: false });
    const cancelled = await staff('2026-10-20', '19:00');
    const confirmed = await staff('2026-10-21', '19:00');
    const pending = (
      await send('POST', '/v1/bookings', {
        business_id: biz.tenant.businessId,
        booking_date: '2026-10-22',
        start_time: '19:00',
        capacity: 3,
        ...guest({ first_name: 'Ada', last_name: 'Lovelace' }),
      })
    ).booking;
    assert.equal(pending.status, 'pending');
    const feed = await feedOf(biz.tenant.headers);
    await send('PATCH', `/v1/manage/bookings/${cancelled.id}`, { status: 'cancelled' });
    const events = eventsOf((await read(feed.path)).body);
    const statusOf = (id: string) => events.find((e) => e.uid.includes(id))?.status;
    assert.equal(statusOf(cancelled.id), 'CANCELLED');
    assert.equal(statusOf(confirmed.id), 'CONFIRMED');
    assert.equal(statusOf(pending.id), 'TENTATIVE');
    assert.equal(events.find((e) => e.uid.includes(pending.id))!.summary, 'party of 3 - Ada Lovelace');
    const sequenceOf = async (id: string) =>
      Number(eventsOf((await read(feed.path)).body).find((e) => e.uid.includes(id))!.sequence);
    const { created_at } = await ctx.database.db
      .selectFrom('bookings')
      .select('created_at')
      .where('id', '=', confirmed.id)
      .executeTakeFirstOrThrow();
    for (const seconds of [90, 3600]) {
      await ctx.database.db
        .updateTable('bookings')
        .set({ updated_at: new Date(new Date(created_at).getTime() + seconds * 1000) })
        .where('id', '=', confirmed.id)
        .execute();
      assert.equal(await sequenceOf(confirmed.id), seconds);
    }
    // 31 days after its cancellation, a cancelled booking has left the feed; the others stay while recent.
    await ctx.database.db
      .updateTable('bookings')
      .set({ updated_at: new Date(NOW - 31 * 86_400_000) })
      .where('id', '=', cancelled.id)
      .execute();
    const later = eventsOf((await read(feed.path)).body);
    assert.equal(
      later.find((e) => e.uid.includes(cancelled.id)),
      undefined,
    );
    assert.equal(later.length, 2);
  });

  it("carries the staff's notes and the guest's allergies only in a feed made private", async () => {
    const { biz, send, staff } = await venue('Europe/Berlin');
    const booking = await staff('2026-10-20', '19:00');
    await send('PATCH', `/v1/manage/bookings/${booking.id}/notes`, { staff_notes: 'tips well' });
    await send('PATCH', `/v1/manage/customers/${booking.customer_id}`, { allergies: 'walnuts' });
    const open = await feedOf(biz.tenant.headers);
    assert.equal(open.private_notes, false);
    const openBody = (await read(open.path)).body;
    assert.doesNotMatch(openBody, /tips well|walnuts/);
    const closed = await feedOf(biz.tenant.headers, { private_notes: true });
    assert.equal(closed.private_notes, true);
    const closedBody = (await read(closed.path)).body;
    assert.match(closedBody, /tips well/);
    assert.match(closedBody, /Allergies: walnuts/);
  });

  it('answers 304 to the current ETag and a new ETag after a change', async () => {
    const { biz, send, staff } = await venue('Europe/Berlin');
    const booking = await staff('2026-10-20', '19:00');
    const feed = await feedOf(biz.tenant.headers, { private_notes: true });
    const first = await read(feed.path);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const unchanged = await read(feed.path, { 'if-none-match': etag });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.body, '');
    await send('PATCH', `/v1/manage/bookings/${booking.id}/notes`, { staff_notes: 'window seat' });
    const changed = await read(feed.path, { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.match(changed.body, /window seat/);
  });

  it("lists one resource's bookings in its feed, combined ones too, and never another business's", async () => {
    const { biz, send, staff } = await venue('Europe/Berlin');
    const onT2 = await staff('2026-10-20', '19:00', { resource_id: biz.resources.T2 });
    const onT6 = await staff('2026-10-20', '19:00', { resource_id: biz.resources.T6 });
    const other = await venue('Europe/Berlin');
    const foreign = await other.staff('2026-10-20', '19:00');
    await send('POST', '/v1/manage/combinations', {
      name: '4 + 6',
      resource_ids: [biz.resources.T4, biz.resources.T6],
      capacity_min: 7,
      capacity_max: 10,
    });
    const combined = await staff('2026-10-21', '19:00', { capacity: 9 });
    assert.deepEqual(combined.resource_ids, [biz.resources.T4, biz.resources.T6]);
    const t6 = eventsOf(
      (await read((await feedOf(biz.tenant.headers, { resource_id: biz.resources.T6 })).path)).body,
    );
    assert.deepEqual(
      t6.map((e) => e.uid).sort(),
      [onT6.id, combined.id].map((id) => `booking-${id}@127.0.0.1`).sort(),
    );
    assert.equal(t6.find((e) => e.uid.includes(combined.id))!.location, 'T4, T6');
    const resourceFeed = await feedOf(biz.tenant.headers, { resource_id: biz.resources.T2 });
    assert.equal(resourceFeed.resource_id, biz.resources.T2);
    const events = eventsOf((await read(resourceFeed.path)).body);
    assert.deepEqual(
      events.map((e) => e.uid),
      [`booking-${onT2.id}@127.0.0.1`],
    );
    assert.equal(events[0]!.location, 'T2');
    const whole = (await read((await feedOf(biz.tenant.headers)).path)).body;
    assert.match(whole, new RegExp(onT6.id));
    assert.doesNotMatch(whole, new RegExp(foreign.id));
    assert.match(whole, /X-WR-CALNAME:Bistro Race/);
    const foreignResource = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/calendar-feeds',
      headers: biz.tenant.headers,
      payload: { resource_id: other.biz.resources.T2 },
    });
    assert.equal(foreignResource.statusCode, 422);
    assert.equal(foreignResource.json().error.fields[0].field, 'resource_id');
  });

  it('lists feeds without their URLs; a revoked or unknown URL answers 404', async () => {
    const tenant = await createTenant(ctx.app);
    const feed = await feedOf(tenant.headers);
    const listed = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/calendar-feeds',
      headers: tenant.headers,
    });
    assert.deepEqual(
      listed.json().items.map((f: object) => Object.keys(f).sort()),
      [['created_at', 'id', 'private_notes', 'resource_id']],
    );
    const other = await createTenant(ctx.app, { name: 'Other' });
    const foreign = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/calendar-feeds/${feed.id}`,
      headers: other.headers,
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await read(feed.path)).statusCode, 200);
    const revoked = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/manage/calendar-feeds/${feed.id}`,
      headers: tenant.headers,
    });
    assert.equal(revoked.statusCode, 204);
    const gone = await read(feed.path);
    assert.equal(gone.statusCode, 404);
    assert.match(String(gone.headers['content-type']), /^text\/plain/);
    assert.equal((await read(`/calendar/${'A'.repeat(43)}.ics`)).statusCode, 404);
    assert.equal((await read('/calendar/nothing')).statusCode, 404);
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({
        method: 'POST',
        url: '/v1/manage/calendar-feeds',
        payload: {},
        scope: 'write',
        staff: false,
      }),
    });
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/calendar-feeds', scope: 'read', staff: true }),
    });
    itChecksAuth(() => ctx, {
      given: (tenant) => feedOf(tenant.headers),
      route: (feed) => ({
        method: 'DELETE',
        url: `/v1/manage/calendar-feeds/${feed.id}`,
        scope: 'write',
        staff: false,
      }),
    });
  });
});
