import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import {
  BOOKING_DAY,
  type BookableBusiness,
  bookOk,
  guest,
  postBooking,
  send,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import {
  bearer,
  createKey,
  dashboardToken,
  itChecksAuth,
  RACE,
  type RouteUnderTest,
  useTestApp,
} from '../../test/helpers.ts';
import { defaultPublishableKey } from '../developers/api-keys.service.ts';
import { eraseGuestsPastRetention } from './retention.jobs.ts';

const ctx = useTestApp();

/** A guest booked once through the API: their customer id and booking. */
async function bookedGuest(biz: BookableBusiness, who: Record<string, unknown> = guest(), time = '12:00') {
  const booking = await bookOk(ctx.app, biz, { ...who, start_time: time });
  return { customerId: booking.customer_id as string, booking };
}

/** An auth check's set-up: a bookable business with one booked guest, and `route` to that guest. */
const onBookedGuest = (route: (customerId: string) => RouteUnderTest) => async () => {
  const biz = await setupBookable(ctx.app);
  const { customerId } = await bookedGuest(biz);
  return { tenant: biz.tenant, route: route(customerId) };
};

const patch = (biz: BookableBusiness, customerId: string, payload: object, headers = biz.tenant.headers) =>
  ctx.app.inject({ method: 'PATCH', url: `/v1/manage/customers/${customerId}`, headers, payload });

/** The audit rows about a customer with this action, newest first. */
async function auditOf(biz: BookableBusiness, customerId: string, action: string) {
  const page = await send(
    ctx.app,
    biz.tenant,
    'GET',
    `/v1/manage/audit-logs?entity_type=customer&entity_id=${customerId}`,
  );
  return page.items.filter((item: { action: string }) => item.action === action);
}

const setStatus = (bookingId: string, status: string) =>
  ctx.app.db
    .updateTable('bookings')
    .set({ status: status as 'completed' })
    .where('id', '=', bookingId)
    .execute();

describe('PATCH /v1/manage/customers/{customer_id}', () => {
  it('keeps tags, allergies, staff notes and a language, shown in the detail and the list, audited with what changed', async () => {
    const biz = await setupBookable(ctx.app);
    const { customerId } = await bookedGuest(biz);
    const response = await patch(biz, customerId, {
      tags: [' vip ', 'regular', 'vip'],
      allergies: 'peanuts',
      staff_notes: 'Likes the window table',
      preferred_language: 'de',
    });
    assert.equal(response.statusCode, 200, response.body);
    const answered = response.json();
    assert.deepEqual(answered.tags, ['vip', 'regular']);
    assert.equal(answered.allergies, 'peanuts');
    assert.equal(answered.staff_notes, 'Likes the window table');
    assert.equal(answered.preferred_language, 'de');
    assert.equal(answered.marketing_opt_in, false);

    const detail = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${customerId}`);
    assert.deepEqual(detail.tags, ['vip', 'regular']);
    assert.equal(detail.allergies, 'peanuts');

    const audit = await auditOf(biz, customerId, 'customer.updated');
    assert.equal(audit.length, 1);
    assert.deepEqual([...audit[0].meta.changed].sort(), [
      'allergies',
      'preferred_language',
      'staff_notes',
      'tags',
    ]);

    // A blank allergy is none; a patch equal to the profile writes nothing.
    assert.equal((await patch(biz, customerId, { allergies: '  ' })).json().allergies, null);
    const again = await patch(biz, customerId, { tags: ['vip', 'regular'] });
    assert.equal(again.statusCode, 200);
    assert.equal((await auditOf(biz, customerId, 'customer.updated')).length, 2);
  });

  it('lists by tag: only the guests that carry it', async () => {
    const biz = await setupBookable(ctx.app);
    const tagged = await bookedGuest(biz);
    await bookedGuest(biz, guest(), '13:00');
    assert.equal((await patch(biz, tagged.customerId, { tags: ['vip'] })).statusCode, 200);
    const listed = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers?tag=vip');
    assert.deepEqual(
      listed.items.map((item: { id: string }) => item.id),
      [tagged.customerId],
    );
    const all = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers');
    assert.equal(all.items.length, 2);
  });

  it("shows the guest's allergies and tags on their bookings to the host stand, and copies them into no audit row or answer to a change", async () => {
    const biz = await setupBookable(ctx.app);
    const who = guest();
    const { customerId } = await bookedGuest(biz, who);
    assert.equal((await patch(biz, customerId, { allergies: 'sesame-7q', tags: ['vip'] })).statusCode, 200);
    const later = await bookOk(ctx.app, biz, { ...who, start_time: '14:00' });
    assert.equal(later.customer.allergies, undefined, 'the answer to a booking carries no profile');

    const day = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/bookings?booking_date=${BOOKING_DAY}`);
    assert.equal(day.items.length, 2);
    for (const item of day.items) {
      assert.equal(item.customer.allergies, 'sesame-7q');
      assert.deepEqual(item.customer.tags, ['vip']);
    }
    const detail = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/bookings/${later.id}`);
    assert.equal(detail.customer.allergies, 'sesame-7q');

    const moved = await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${later.id}`, {
      capacity: 1,
    });
    assert.equal(moved.customer.allergies, undefined, 'the answer to a change carries no profile');
    const audit = await send(
      ctx.app,
      biz.tenant,
      'GET',
      `/v1/manage/audit-logs?entity_type=booking&entity_id=${later.id}`,
    );
    assert.ok(audit.items.length > 0);
    assert.doesNotMatch(JSON.stringify(audit.items), /sesame-7q/);
  });

  it('refuses what staff may not set: a consent given, a phone, 21 tags, an unknown language, an empty patch', async () => {
    const biz = await setupBookable(ctx.app);
    const { customerId } = await bookedGuest(biz);
    for (const payload of [
      { marketing_opt_in: true },
      { phone: '+49 30 1111111' },
      { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) },
      { preferred_language: 'xx' },
      { allergies: 'x'.repeat(501) },
      {},
    ]) {
      const response = await patch(biz, customerId, payload);
      assert.equal(response.statusCode, 422, `${JSON.stringify(payload).slice(0, 60)}: ${response.body}`);
    }
    const withdrawn = await patch(biz, customerId, { marketing_opt_in: false });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
  });

  it('lets a staff member edit a profile, and finds no customer of another business', async () => {
    const biz = await setupBookable(ctx.app);
    const { customerId } = await bookedGuest(biz);
    const staff = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
    const response = await patch(biz, customerId, { allergies: 'gluten' }, bearer(staff));
    assert.equal(response.statusCode, 200, response.body);
    const other = await setupBookable(ctx.app);
    const foreign = await patch(other, customerId, { allergies: 'none' });
    assert.equal(foreign.statusCode, 404, foreign.body);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      onBookedGuest((customerId) => ({
        method: 'PATCH',
        url: `/v1/manage/customers/${customerId}`,
        payload: { tags: ['vip'] },
        scope: 'write',
        staff: true,
      })),
    );
  });
});

describe('marketing_opt_in', () => {
  it("is given only by the guest's own tick on an online booking, audited with the booking, and withdrawn by staff", async () => {
    const biz = await setupBookable(ctx.app);
    const key = await defaultPublishableKey(ctx.app.db, biz.tenant.businessId);
    const who = guest({ email: 'consent@example.com' });
    const fromHostedPage = { ...bearer(key), origin: new URL(ctx.config.publicBaseUrl).origin };
    const first = await postBooking(ctx.app, biz, { ...who, start_time: '10:00' }, fromHostedPage);
    assert.equal(first.statusCode, 201, first.body);
    const customerId = (
      await send(ctx.app, biz.tenant, 'GET', `/v1/manage/bookings/${first.json().booking.id}`)
    ).customer_id;
    const profile = () => send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${customerId}`);
    assert.equal((await profile()).marketing_opt_in, false, 'no tick, no consent');

    const ticked = await postBooking(
      ctx.app,
      biz,
      { ...who, start_time: '12:00', marketing_opt_in: true },
      fromHostedPage,
    );
    assert.equal(ticked.statusCode, 201, ticked.body);
    assert.doesNotMatch(ticked.body, /marketing_opt_in/, 'the answer tells nothing of the profile');
    assert.equal((await profile()).marketing_opt_in, true);
    const audit = await auditOf(biz, customerId, 'customer.marketing_opted_in');
    assert.equal(audit.length, 1);
    assert.equal(audit[0].meta.booking_id, ticked.json().booking.id);

    // Booking again without the tick withdraws nothing; staff withdraw it at the guest's word.
    await bookOk(ctx.app, biz, { ...who, start_time: '14:00', marketing_opt_in: false });
    assert.equal((await profile()).marketing_opt_in, true);
    assert.equal((await patch(biz, customerId, { marketing_opt_in: false })).json().marketing_opt_in, false);
    assert.equal((await auditOf(biz, customerId, 'customer.marketing_opted_in')).length, 1);
  });
});

describe("a guest's counts", () => {
  it('counts visits (checked in, completed), no-shows, cancellations, the last visit and the covers of the visits', async () => {
    const biz = await setupBookable(ctx.app);
    const who = guest();
    const first = await bookedGuest(biz, who, '10:00');
    const second = await bookedGuest(biz, who, '12:00');
    const third = await bookedGuest(biz, who, '14:00');
    const fourth = await bookedGuest(biz, { ...who, capacity: 4 }, '16:00');
    await setStatus(first.booking.id, 'completed');
    await setStatus(second.booking.id, 'no_show');
    await setStatus(third.booking.id, 'cancelled');
    await setStatus(fourth.booking.id, 'checked_in');
    const detail = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${first.customerId}`);
    assert.deepEqual(
      {
        visits: detail.visits,
        no_shows: detail.no_shows,
        cancellations: detail.cancellations,
        last_visit: detail.last_visit,
        total_covers: detail.total_covers,
      },
      { visits: 2, no_shows: 1, cancellations: 1, last_visit: BOOKING_DAY, total_covers: 6 },
    );
    const listed = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers');
    assert.equal(listed.items[0].visits, 2);
  });
});

describe('POST /v1/manage/customers/{customer_id}/merge', () => {
  const merge = (biz: BookableBusiness, duplicate: string, into: string, headers = biz.tenant.headers) =>
    ctx.app.inject({
      method: 'POST',
      url: `/v1/manage/customers/${duplicate}/merge`,
      headers,
      payload: { into },
    });

  it('moves the bookings and joins the profiles; the duplicate is listed nowhere and its phone reaches the kept one', async () => {
    const biz = await setupBookable(ctx.app);
    const duplicateGuest = guest({ email: 'ada@example.com' });
    const kept = await bookedGuest(biz, guest({ email: 'ada@example.com' }), '10:00');
    const duplicate = await bookedGuest(biz, duplicateGuest, '12:00');
    await patch(biz, kept.customerId, { tags: ['vip'], allergies: 'peanuts' });
    await patch(biz, duplicate.customerId, { tags: ['regular', 'vip'], allergies: 'shellfish' });

    const response = await merge(biz, duplicate.customerId, kept.customerId);
    assert.equal(response.statusCode, 200, response.body);
    const merged = response.json();
    assert.deepEqual(merged.tags, ['vip', 'regular']);
    assert.equal(merged.allergies, 'peanuts; shellfish');

    const detail = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${kept.customerId}`);
    assert.equal(detail.stats.total_bookings, 2);
    const gone = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/customers/${duplicate.customerId}`,
      headers: biz.tenant.headers,
    });
    assert.equal(gone.statusCode, 404);
    const listed = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers');
    assert.deepEqual(
      listed.items.map((item: { id: string }) => item.id),
      [kept.customerId],
    );
    const later = await bookOk(ctx.app, biz, { ...duplicateGuest, start_time: '14:00' });
    assert.equal(later.customer_id, kept.customerId);

    const audit = await auditOf(biz, kept.customerId, 'customer.merged');
    assert.equal(audit[0].meta.merged, duplicate.customerId);
  });

  it('refuses a profile merged into itself (422), one of another business (404), one merged away (404)', async () => {
    const biz = await setupBookable(ctx.app);
    const a = await bookedGuest(biz, guest(), '10:00');
    const b = await bookedGuest(biz, guest(), '12:00');
    assert.equal((await merge(biz, a.customerId, a.customerId)).statusCode, 422);
    const other = await setupBookable(ctx.app);
    const foreign = await bookedGuest(other);
    assert.equal((await merge(biz, a.customerId, foreign.customerId)).statusCode, 404);
    assert.equal((await merge(biz, a.customerId, b.customerId)).statusCode, 200);
    assert.equal((await merge(biz, a.customerId, b.customerId)).statusCode, 404);
    assert.equal((await merge(biz, b.customerId, a.customerId)).statusCode, 404);
  });

  it('lands a booking made for the duplicate while a merge holds it on the kept profile', RACE, async () => {
    const biz = await setupBookable(ctx.app);
    const duplicateGuest = guest();
    const kept = await bookedGuest(biz, guest(), '10:00');
    const duplicate = await bookedGuest(biz, duplicateGuest, '11:00');
    const merging = new pg.Client({ connectionString: ctx.databaseUrl });
    await merging.connect();
    try {
      await merging.query('BEGIN');
      const { rows } = await merging.query('SELECT slotwise_merge_guests($1, $2, $3, $4) AS outcome', [
        biz.tenant.businessId,
        duplicate.customerId,
        kept.customerId,
        'test',
      ]);
      assert.equal(rows[0].outcome, 'merged');
      const booking = postBooking(ctx.app, biz, { ...duplicateGuest, start_time: '14:00' });
      const waited = await Promise.race([booking.then(() => 'answered'), sleep(300).then(() => 'waiting')]);
      assert.equal(waited, 'waiting', 'the booking waits for the merge holding the profile');
      await merging.query('COMMIT');
      const answered = await booking;
      assert.equal(answered.statusCode, 201, answered.body);
      assert.equal(answered.json().booking.customer_id, kept.customerId);
    } finally {
      await merging.end();
    }
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const biz = await setupBookable(ctx.app);
        const a = await bookedGuest(biz, guest(), '10:00');
        const b = await bookedGuest(biz, guest(), '12:00');
        return {
          tenant: biz.tenant,
          route: {
            method: 'POST',
            url: `/v1/manage/customers/${a.customerId}/merge`,
            payload: { into: b.customerId },
            scope: 'write',
            staff: true,
          },
        };
      },
    );
  });
});

/** Every text, array and JSON column of every table, with the rows in which `needle` appears. */
async function tracesOf(needle: string) {
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`.execute(ctx.app.db);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const { rows } = await sql<{ count: string }>`
      SELECT count(*) AS count FROM ${sql.table(table_name)}
      WHERE strpos(lower(${sql.ref(column_name)}::text), lower(${needle})) > 0`.execute(ctx.app.db);
    if (Number(rows[0]!.count) > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

describe('GET /v1/manage/customers/{customer_id}/duplicates', () => {
  const duplicatesOf = (biz: BookableBusiness, customerId: string) =>
    send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${customerId}/duplicates`);

  it('lists the profiles with the same email in any case or the same national phone, and none merged or erased', async () => {
    const biz = await setupBookable(ctx.app);
    const kept = await bookedGuest(
      biz,
      guest({ email: 'Ada@Example.com', phone: '+43 660 1234567' }),
      '10:00',
    );
    const byEmail = await bookedGuest(biz, guest({ email: 'ada@example.com' }), '11:00');
    const byPhone = await bookedGuest(
      biz,
      guest({ email: 'other@example.com', phone: '0660 1234567' }),
      '12:00',
    );
    await bookedGuest(biz, guest({ email: 'stranger@example.com' }), '13:00');
    const other = await setupBookable(ctx.app);
    await bookedGuest(other, guest({ email: 'ada@example.com' }));

    const found = await duplicatesOf(biz, kept.customerId);
    assert.deepEqual(
      found.items.map((item: { id: string; match: string[] }) => [item.id, item.match]),
      [
        [byEmail.customerId, ['email']],
        [byPhone.customerId, ['phone']],
      ],
    );
    assert.equal(found.items[0].visits, 0, 'each as the list shows a customer');

    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/customers/${byEmail.customerId}/merge`, {
      into: kept.customerId,
    });
    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/customers/${byPhone.customerId}/erase`);
    assert.deepEqual((await duplicatesOf(biz, kept.customerId)).items, []);
    const merged = await ctx.app.inject({
      method: 'GET',
      url: `/v1/manage/customers/${byEmail.customerId}/duplicates`,
      headers: biz.tenant.headers,
    });
    assert.equal(merged.statusCode, 404, merged.body);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      onBookedGuest((customerId) => ({
        method: 'GET',
        url: `/v1/manage/customers/${customerId}/duplicates`,
        scope: 'read',
        staff: true,
      })),
    );
  });
});

describe('POST /v1/manage/customers/{customer_id}/erase', () => {
  const erase = (biz: BookableBusiness, customerId: string, headers = biz.tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: `/v1/manage/customers/${customerId}/erase`, headers });

  it('leaves no trace of the name, email, phone or allergies in any table; the bookings still count', async () => {
    const biz = await setupBookable(ctx.app, { settings: { guest_emails_enabled: true } });
    await send(ctx.app, biz.tenant, 'POST', '/v1/manage/webhooks', {
      url: 'https://hooks.example.com/slotwise',
      events: ['booking.created', 'booking.cancelled'],
    });
    const secrets = {
      first_name: 'Quorvalda',
      last_name: 'Brixtonel',
      email: 'quorvalda.brix@example.org',
      phone: '+49 30 8765 4321',
    };
    const duplicateSecrets = { ...secrets, first_name: 'Quorvy', phone: '+49 30 8765 9999' };
    const { customerId, booking } = await bookedGuest(
      biz,
      { ...secrets, customer_notes: 'Zaffrelo birthday' },
      '10:00',
    );
    const duplicate = await bookedGuest(biz, duplicateSecrets, '12:00');
    await patch(biz, customerId, { allergies: 'Oldrelvin', staff_notes: 'Talks of Gartholm' });
    await patch(biz, customerId, { allergies: 'Vexmorin nuts', staff_notes: 'Talks of Plindor' });
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${booking.id}/notes`, {
      staff_notes: 'Gartholm early',
    });
    await send(ctx.app, biz.tenant, 'PATCH', `/v1/manage/bookings/${booking.id}/notes`, {
      staff_notes: 'Plindor again',
    });
    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/customers/${duplicate.customerId}/merge`, {
      into: customerId,
    });
    await setStatus(booking.id, 'completed');
    const needles = [
      secrets.first_name,
      secrets.last_name,
      secrets.email,
      secrets.phone,
      '87654321',
      'Quorvy',
      '87659999',
      'Zaffrelo',
      'Vexmorin',
      'Plindor',
      'Oldrelvin',
      'Gartholm',
    ];
    assert.ok((await tracesOf(secrets.last_name)).length > 2, 'the guest is held in several tables before');

    const response = await erase(biz, customerId);
    assert.equal(response.statusCode, 200, response.body);
    const erased = response.json();
    assert.equal(erased.first_name, '');
    assert.equal(erased.phone, '');
    assert.equal(erased.email, null);
    assert.equal(erased.allergies, null);
    assert.ok(erased.erased_at);
    assert.equal(erased.visits, 1);

    for (const needle of needles) assert.deepEqual(await tracesOf(needle), [], `"${needle}" is still held`);

    const detail = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${customerId}`);
    assert.equal(detail.stats.total_bookings, 2);
    const listed = await send(ctx.app, biz.tenant, 'GET', '/v1/manage/customers');
    assert.deepEqual(listed.items, []);
    assert.equal((await auditOf(biz, customerId, 'customer.erased')).length, 1);

    // Erasing again answers the same anonymous profile; the guest booking again starts a new one.
    assert.equal((await erase(biz, customerId)).statusCode, 200);
    const returning = await bookOk(ctx.app, biz, { ...secrets, start_time: '14:00' });
    assert.notEqual(returning.customer_id, customerId);
  });

  it('is for owners: a staff member is refused, and an erased guest cannot be edited', async () => {
    const biz = await setupBookable(ctx.app);
    const { customerId } = await bookedGuest(biz);
    const staff = await dashboardToken(ctx.app, biz.tenant, 'staff_member');
    assert.equal((await erase(biz, customerId, bearer(staff))).statusCode, 403);
    const writer = await createKey(ctx.app, biz.tenant, ['read', 'write']);
    assert.equal((await erase(biz, customerId, bearer(writer))).statusCode, 403);
    assert.equal((await erase(biz, customerId)).statusCode, 200);
    assert.equal((await patch(biz, customerId, { tags: ['vip'] })).statusCode, 409);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      onBookedGuest((customerId) => ({
        method: 'POST',
        url: `/v1/manage/customers/${customerId}/erase`,
        scope: 'admin',
        staff: false,
      })),
    );
  });
});

describe('GET /v1/manage/customers/{customer_id}/export', () => {
  it('answers everything held about the guest: profile, merged profiles, bookings, messages, audit; and audits the export', async () => {
    const biz = await setupBookable(ctx.app, { settings: { guest_emails_enabled: true } });
    const who = guest({ email: 'export.me@example.org' });
    const { customerId, booking } = await bookedGuest(biz, who, '10:00');
    const duplicate = await bookedGuest(biz, guest(), '12:00');
    await patch(biz, customerId, { allergies: 'sesame' });
    await send(ctx.app, biz.tenant, 'POST', `/v1/manage/customers/${duplicate.customerId}/merge`, {
      into: customerId,
    });
    const exported = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${customerId}/export`);
    assert.equal(exported.customer.allergies, 'sesame');
    assert.deepEqual(
      exported.merged_profiles.map((profile: { id: string }) => profile.id),
      [duplicate.customerId],
    );
    assert.deepEqual(
      exported.bookings.map((row: { id: string }) => row.id).sort(),
      [booking.id, duplicate.booking.id].sort(),
    );
    assert.ok(
      exported.messages.some(
        (message: { to_address: string }) => message.to_address === 'export.me@example.org',
      ),
    );
    assert.ok(exported.audit.some((row: { action: string }) => row.action === 'customer.updated'));
    const audit = await auditOf(biz, customerId, 'customer.exported');
    assert.equal(audit.length, 1);
    assert.equal(JSON.stringify(audit[0]).includes('sesame'), false);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      onBookedGuest((customerId) => ({
        method: 'GET',
        url: `/v1/manage/customers/${customerId}/export`,
        scope: 'admin',
        staff: false,
      })),
    );
  });
});

describe('guest_data_retention_months', () => {
  it('erases, by its job, the guests with no booking within the months kept, and only in a business that set it', async () => {
    const biz = await setupBookable(ctx.app);
    await send(ctx.app, biz.tenant, 'PATCH', '/v1/manage/settings', { guest_data_retention_months: 12 });
    const keeping = await setupBookable(ctx.app);
    const old = await bookedGuest(biz, guest(), '10:00');
    const recent = await bookedGuest(biz, guest(), '12:00');
    const kept = await bookedGuest(keeping, guest(), '10:00');
    const twoYearsAgo = new Date(Date.now() - 730 * 86_400_000);
    for (const { customerId, booking } of [old, kept]) {
      await ctx.app.db
        .updateTable('bookings')
        .set({ starts_at: twoYearsAgo })
        .where('id', '=', booking.id)
        .execute();
      await ctx.app.db
        .updateTable('customers')
        .set({ updated_at: twoYearsAgo })
        .where('id', '=', customerId)
        .execute();
    }
    assert.equal(await eraseGuestsPastRetention(ctx.app.db), 1);
    const erased = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${old.customerId}`);
    assert.ok(erased.erased_at);
    assert.equal(erased.last_name, '');
    const stays = await send(ctx.app, biz.tenant, 'GET', `/v1/manage/customers/${recent.customerId}`);
    assert.equal(stays.erased_at, null);
    const elsewhere = await send(ctx.app, keeping.tenant, 'GET', `/v1/manage/customers/${kept.customerId}`);
    assert.equal(elsewhere.erased_at, null);
    assert.equal(await eraseGuestsPastRetention(ctx.app.db), 0);
  });
});
