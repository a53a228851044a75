import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import {
  assertNamesFields,
  bearer,
  createKey,
  createTenant,
  dashboardToken,
  ENGINE,
  itChecksAuth,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';
import type { BookingStatus } from '../engine/status.ts';
import { upsertCustomer } from './customers.service.ts';

const ctx = useTestApp();

const db = () => ctx.database.db;

async function insertResource(businessId: string, name = 'Table 1') {
  const row = await db()
    .insertInto('resources')
    .values({ business_id: businessId, name, capacity_min: 1, capacity_max: 6, display_order: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

let codes = 0;

/** A booking row written directly: `date` and `start` are UTC wall-clock (the business's default zone). */
async function insertBooking(
  tenant: Tenant,
  resourceId: string,
  customerId: string,
  booking: { date: string; start: string; status?: BookingStatus; capacity?: number },
) {
  const [hour, minute] = booking.start.split(':').map(Number) as [number, number];
  const startsAt = new Date(`${booking.date}T${booking.start}:00Z`);
  const endsAt = new Date(startsAt.getTime() + 3_600_000);
  const end = `${String((hour + 1) % 24).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  const row = await db()
    .insertInto('bookings')
    .values({
      business_id: tenant.businessId,
      customer_id: customerId,
      resource_id: resourceId,
      booking_date: booking.date,
      start_time: booking.start,
      end_time: end,
      duration_minutes: 60,
      starts_at: startsAt,
      ends_at: endsAt,
      during: `[${startsAt.toISOString()},${endsAt.toISOString()})`,
      status: booking.status ?? 'confirmed',
      confirmation_code: `CODE${String(++codes).padStart(4, '0')}`,
      capacity: booking.capacity ?? 2,
      source: 'staff',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const addCustomer = (
  tenant: Tenant,
  first: string,
  last: string,
  phone: string,
  email: string | null = null,
) => upsertCustomer(db(), tenant.businessId, { first_name: first, last_name: last, phone, email }, true);

const list = (tenant: Tenant, query = '', headers = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/customers${query}`, headers });

/** The first names a search of the tenant's customers finds, in the list's order. */
async function firstNamesFound(tenant: Tenant, search: string): Promise<string[]> {
  const response = await list(tenant, `?search=${encodeURIComponent(search)}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().items.map((c: { first_name: string }) => c.first_name);
}

const detail = (tenant: Tenant, id: string, headers = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/customers/${id}`, headers });

describe('GET /v1/manage/customers', () => {
  describe('200', () => {
    it('lists the business’s customers by last name, first name and id', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await addCustomer(tenant, 'Zoe', 'Meyer', '+49 30 1111111', 'zoe@example.com');
      await addCustomer(tenant, 'Anna', 'Meyer', '+49 30 2222222');
      await addCustomer(tenant, 'Carl', 'Bauer', '+49 30 3333333');
      await addCustomer(other, 'Otto', 'Abel', '+49 30 4444444');

      const response = await list(tenant);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(
        body.items.map((c: { first_name: string; last_name: string }) => `${c.first_name} ${c.last_name}`),
        ['Carl Bauer', 'Anna Meyer', 'Zoe Meyer'],
      );
      assert.equal(body.has_more, false);
      assert.equal(body.next_cursor, null);
      const zoe = body.items[2];
      assert.deepEqual(Object.keys(zoe).sort(), [
        'allergies',
        'cancellations',
        'created_at',
        'email',
        'erased_at',
        'first_name',
        'id',
        'last_name',
        'last_visit',
        'marketing_opt_in',
        'no_shows',
        'phone',
        'preferred_language',
        'staff_notes',
        'tags',
        'total_covers',
        'updated_at',
        'visits',
      ]);
      assert.equal(zoe.phone, '+49 30 1111111');
      assert.equal(zoe.email, 'zoe@example.com');
      assert.equal(body.items[1].email, null);
      assert.match(zoe.created_at, /Z$/);
    });

    it('pages with the cursor without repeating or skipping anyone', async () => {
      const tenant = await createTenant(ctx.app);
      for (const [first, last, phone] of [
        ['Eve', 'Adams', '5550001'],
        ['Bob', 'Adams', '5550002'],
        ['Ann', 'Clark', '5550003'],
        ['Dan', 'Brown', '5550004'],
        ['Cid', 'Clark', '5550005'],
      ] as const) {
        await addCustomer(tenant, first, last, phone);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const response = await list(tenant, query);
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        seen.push(...page.items.map((c: { first_name: string }) => c.first_name));
        assert.equal(page.has_more, page.next_cursor !== null);
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, ['Bob', 'Eve', 'Dan', 'Ann', 'Cid']);
    });

    it('searches first name, last name, phone and email, case-insensitively and partially', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Johanna', 'Schmidt', '+49 30 1234 567', 'jo@mail.example');
      await addCustomer(tenant, 'Peter', 'Johnson', '0171 999 888', 'peter@corp.example');
      await addCustomer(tenant, 'Maria', 'Lopez', '+34 600 111 222', null);

      const names = (search: string) => firstNamesFound(tenant, search);
      assert.deepEqual(await names('JOH'), ['Peter', 'Johanna']);
      assert.deepEqual(await names('schMI'), ['Johanna']);
      assert.deepEqual(await names('corp.exam'), ['Peter']);
      assert.deepEqual(await names('lopez'), ['Maria']);
      assert.deepEqual(await names('nobody'), []);
      assert.deepEqual(await names('  maria  '), ['Maria']);
    });

    it('matches digits against the phone whatever its formatting', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Johanna', 'Schmidt', '+49 30 1234 567');
      await addCustomer(tenant, 'Peter', 'Johnson', '0171-999-888');

      const names = (search: string) => firstNamesFound(tenant, search);
      assert.deepEqual(await names('30 1234'), ['Johanna']);
      assert.deepEqual(await names('301234567'), ['Johanna']);
      assert.deepEqual(await names('+4930'), ['Johanna']);
      assert.deepEqual(await names('(0171) 999 888'), ['Peter']);
      assert.deepEqual(await names('999888'), ['Peter']);
      assert.deepEqual(await names('Peter 999'), []);
    });

    it('finds a name or email whatever its accents and case', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Jürgen', 'Müller', '+49 30 1111111');
      await addCustomer(tenant, 'Élodie', 'Dubois', '+33 1 22 33 44 55', 'élodie@café.example');
      await addCustomer(tenant, 'Grete', 'Weiß', '+43 1 555 0000');
      await addCustomer(tenant, 'Max', 'Muster', '+49 89 2222222');

      const names = (search: string) => firstNamesFound(tenant, search);
      assert.deepEqual(await names('mul'), ['Jürgen']);
      assert.deepEqual(await names('Muller'), ['Jürgen']);
      assert.deepEqual(await names('MÜLLER'), ['Jürgen']);
      assert.deepEqual(await names('jurg'), ['Jürgen']);
      assert.deepEqual(await names('ÉLO'), ['Élodie']);
      assert.deepEqual(await names('elodie'), ['Élodie']);
      assert.deepEqual(await names('cafe.ex'), ['Élodie']);
      assert.deepEqual(await names('weiss'), ['Grete']);
      assert.deepEqual((await names('mu')).sort(), ['Jürgen', 'Max']);
    });

    it('finds a phone typed in its national or international form', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Intl', 'Berlin', '+49 30 123 4567');
      await addCustomer(tenant, 'National', 'Berlin', '030 1239876');
      await addCustomer(tenant, 'Zeros', 'Berlin', '0049 (30) 1237777');
      await addCustomer(tenant, 'Rome', 'Roma', '+39 06 1234 5678');
      await addCustomer(tenant, 'Munich', 'Other', '+49 89 1230000');

      const names = async (search: string) => (await firstNamesFound(tenant, search)).sort();
      const berlin = ['Intl', 'National', 'Zeros'];
      assert.deepEqual(await names('030 123'), berlin);
      assert.deepEqual(await names('+49 30 123'), berlin);
      assert.deepEqual(await names('0049 30 123'), berlin);
      assert.deepEqual(await names('(030) 123-4'), ['Intl']);
      assert.deepEqual(await names('+49 30 123 9876'), ['National']);
      assert.deepEqual(await names('06 1234'), ['Rome']);
      assert.deepEqual(await names('+39 06 1234'), ['Rome']);
      assert.deepEqual(await names('+49 89'), ['Munich']);
    });

    it('searches the name and phone a customer has now', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Anna', 'Müller', '+49 30 5550000');
      await addCustomer(tenant, 'Anna', 'Schäfer', '+49 30 5550000');
      await db().updateTable('customers').set({ phone: '+49 40 7770000' }).execute();

      const names = async (search: string) =>
        (await list(tenant, `?search=${encodeURIComponent(search)}`))
          .json()
          .items.map((c: { last_name: string }) => c.last_name);
      assert.deepEqual(await names('muller'), []);
      assert.deepEqual(await names('schafer'), ['Schäfer']);
      assert.deepEqual(await names('040 777'), ['Schäfer']);
    });

    it('writes a returning customer again only when a trusted caller sends something new', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Anna', 'Müller', '+49 30 5550000', 'anna@example.com');
      const version = async () =>
        (
          await sql<{ version: string; search_text: string }>`
            SELECT xmin::text AS version, search_text FROM customers`.execute(db())
        ).rows[0]!;
      const first = await version();

      await addCustomer(tenant, 'Anna', 'Müller', '+49 30 5550000', 'anna@example.com');
      // Without an email the stored one stays, so nothing differs either.
      await addCustomer(tenant, 'Anna', 'Müller', '+49 30 5550000', null);
      assert.deepEqual(await version(), first);

      const returned = await addCustomer(tenant, 'Anna', 'Müller', '+49 30 5550000', 'anna@example.org');
      assert.equal(returned.email, 'anna@example.org');
      const second = await version();
      assert.notEqual(second.version, first.version);
      assert.match(second.search_text, /anna@example\.org/);
    });

    it('finds customers stored before the search keys existed once the trigger is defined', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Jürgen', 'Müller', '+49 30 1234567');
      await sql`ALTER TABLE customers DISABLE TRIGGER customers_search`.execute(db());
      await db().updateTable('customers').set({ search_text: null, phone_national: null }).execute();
      await sql`ALTER TABLE customers ENABLE TRIGGER customers_search`.execute(db());
      assert.equal((await list(tenant, '?search=mul')).json().items.length, 0);

      await ctx.database.runScript(
        readFileSync(new URL('../../db/triggers/customers_search.sql', import.meta.url), 'utf8'),
      );
      for (const search of ['mul', '030 123']) {
        assert.equal(
          (await list(tenant, `?search=${encodeURIComponent(search)}`)).json().items.length,
          1,
          search,
        );
      }
    });

    it('searches only the business’s own customers', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await addCustomer(tenant, 'Jürgen', 'Müller', '+49 30 1234567');
      await addCustomer(other, 'Jürgen', 'Müller', '+49 30 1234567');

      for (const search of ['mul', '030 123']) {
        const response = await list(tenant, `?search=${encodeURIComponent(search)}`);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().items.length, 1, search);
      }
      const theirs = (await list(other, '?search=mul')).json().items;
      const ours = (await list(tenant, '?search=mul')).json().items;
      assert.notEqual(theirs[0].id, ours[0].id);
    });

    it('treats % and _ in a search as plain characters', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Ann_a', 'Percent', '5551111', '100%@example.com');
      await addCustomer(tenant, 'Annxa', 'Other', '5552222');

      const names = (search: string) => firstNamesFound(tenant, search);
      assert.deepEqual(await names('ann_a'), ['Ann_a']);
      assert.deepEqual(await names('100%'), ['Ann_a']);
      assert.deepEqual(await names('0%'), ['Ann_a']);
      assert.deepEqual(await names('%@'), ['Ann_a']);
    });

    it('treats fullwidth ％, ＿ and ＼ as the plain characters they fold to, never as wildcards', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Plain', 'Person', '5551111', 'plain@example.com');
      await addCustomer(tenant, 'Other', 'Person', '5552222', 'other@example.com');
      await addCustomer(tenant, 'Per%_cent', 'Sign', '5553333');
      await addCustomer(tenant, 'Fullwidth', 'Wide％＿', '5554444');
      await addCustomer(tenant, 'Back\\slash', 'Person', '5555555');

      const names = async (search: string) => (await firstNamesFound(tenant, search)).sort();
      assert.deepEqual(await names('％＿'), ['Fullwidth', 'Per%_cent']);
      assert.deepEqual(await names('%_'), ['Fullwidth', 'Per%_cent']);
      assert.deepEqual(await names('＿＿'), []);
      assert.deepEqual(await names('％％'), []);
      assert.deepEqual(await names('＼s'), ['Back\\slash']);
      assert.deepEqual(await names('k＼'), ['Back\\slash']);
      assert.deepEqual(await names('＼＼'), []);
    });

    it('pages through search results', async () => {
      const tenant = await createTenant(ctx.app);
      for (let i = 1; i <= 3; i++) await addCustomer(tenant, `Kim${i}`, 'Lee', `555000${i}`);
      await addCustomer(tenant, 'Someone', 'Else', '5559999');
      const first = (await list(tenant, '?search=kim&limit=2')).json();
      assert.equal(first.items.length, 2);
      assert.equal(first.has_more, true);
      const second = (await list(tenant, `?search=kim&limit=2&cursor=${first.next_cursor}`)).json();
      assert.deepEqual(
        second.items.map((c: { first_name: string }) => c.first_name),
        ['Kim3'],
      );
      assert.equal(second.has_more, false);
    });

    it('lets a staff member read', async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Anna', 'Meyer', '5551234');
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await list(tenant, '', bearer(token));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().items.length, 1);
    });

    it('accepts a read-only key', async () => {
      const tenant = await createTenant(ctx.app);
      const key = await createKey(ctx.app, tenant, ['read']);
      const response = await list(tenant, '', bearer(key));
      assert.equal(response.statusCode, 200, response.body);
    });
  });

  describe('503', () => {
    it('stops a search still running after 1 s, apart from the stalls of the database', {
      skip: ENGINE === 'pglite' && 'PGlite has no statement timer',
    }, async () => {
      const tenant = await createTenant(ctx.app);
      await addCustomer(tenant, 'Anna', 'Meyer', '5551234');
      // A lock the search queues for, far longer than the search may run: the test app's own lock
      // and statement timeouts are 30 s, so only the search's 1 s can end it.
      const holder = new pg.Client({ connectionString: ctx.databaseUrl });
      await holder.connect();
      const outages: string[] = [];
      const stopWatching = ctx.database.outages.watch({
        began: (outage) => outages.push(outage),
        ended: () => {},
      });
      try {
        await holder.query('BEGIN; LOCK TABLE customers IN ACCESS EXCLUSIVE MODE');
        const response = await list(tenant, '?search=meyer');
        assert.equal(response.statusCode, 503, response.body);
        assert.equal(response.json().error.code, 'search_timeout');
        assert.equal(response.headers['retry-after'], '1');
        // The plain list is no search: it waits for the lock as any read does, and gets it.
        const listed = list(tenant);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await holder.query('ROLLBACK');
        assert.equal((await listed).statusCode, 200);
      } finally {
        stopWatching();
        await holder.end();
      }
      assert.deepEqual(outages, []);
      assert.equal((await list(tenant, '?search=meyer')).json().items.length, 1);
    });
  });

  describe('422', () => {
    it('rejects a bad search, limit, cursor or unknown parameter', async () => {
      const tenant = await createTenant(ctx.app);
      await assertNamesFields(
        [
          [`?search=${'a'.repeat(101)}`, 'search'],
          ['?search=', 'search'],
          ['?search=a', 'search'],
          [`?search=${encodeURIComponent(' a ')}`, 'search'],
          [`?search=${encodeURIComponent('   ')}`, 'search'],
          [`?search=${'é'.repeat(101)}`, 'search'],
          ['?limit=0', 'limit'],
          ['?limit=201', 'limit'],
          ['?cursor=garbage', 'cursor'],
          [
            `?cursor=${Buffer.from(JSON.stringify(['a', 'b', 'not-a-uuid'])).toString('base64url')}`,
            'cursor',
          ],
          ['?sort=name', 'sort'],
        ],
        (query) => list(tenant, query),
      );
    });
  });

  describe('401 and 403', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/customers', scope: 'read', staff: true }),
    });
  });
});

describe('GET /v1/manage/customers/{customer_id}', () => {
  describe('200', () => {
    it('returns the customer, their last 20 bookings newest first, and their stats', async () => {
      const tenant = await createTenant(ctx.app);
      const resourceId = await insertResource(tenant.businessId);
      const customer = await addCustomer(tenant, 'Anna', 'Meyer', '+49 171 555', 'anna@example.com');
      const someoneElse = await addCustomer(tenant, 'Bert', 'Other', '+49 171 666');
      await insertBooking(tenant, resourceId, someoneElse.id, { date: '2031-01-01', start: '12:00' });

      // 18 completed visits in the past, one per day of 2024-03.
      for (let day = 1; day <= 18; day++) {
        const date = `2024-03-${String(day).padStart(2, '0')}`;
        await insertBooking(tenant, resourceId, customer.id, { date, start: '19:00', status: 'completed' });
      }
      await insertBooking(tenant, resourceId, customer.id, {
        date: '2024-02-10',
        start: '18:00',
        status: 'no_show',
        capacity: 4,
      });
      await insertBooking(tenant, resourceId, customer.id, {
        date: '2030-05-01',
        start: '18:00',
        status: 'cancelled',
        capacity: 6,
      });
      await insertBooking(tenant, resourceId, customer.id, { date: '2030-05-02', start: '18:00' });
      await insertBooking(tenant, resourceId, customer.id, { date: '2030-05-02', start: '20:30' });
      await insertBooking(tenant, resourceId, customer.id, {
        date: '2030-06-01',
        start: '12:00',
        status: 'pending',
        capacity: 3,
      });
      // Not yet closed but in the past: not upcoming.
      await insertBooking(tenant, resourceId, customer.id, { date: '2024-01-05', start: '12:00' });

      const response = await detail(tenant, customer.id);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.id, customer.id);
      assert.equal(body.first_name, 'Anna');
      assert.equal(body.last_name, 'Meyer');
      assert.equal(body.phone, '+49 171 555');
      assert.equal(body.email, 'anna@example.com');
      assert.equal(body.bookings.length, 20);
      assert.deepEqual(
        body.bookings.slice(0, 5).map((b: { booking_date: string; start_time: string }) => {
          return `${b.booking_date} ${b.start_time}`;
        }),
        ['2030-06-01 12:00', '2030-05-02 20:30', '2030-05-02 18:00', '2030-05-01 18:00', '2024-03-18 19:00'],
      );
      assert.equal(body.bookings.at(-1).booking_date, '2024-03-03');
      const first = body.bookings[0];
      assert.equal(first.status, 'pending');
      assert.equal(first.capacity, 3);
      assert.equal(first.end_time, '13:00');
      assert.equal(first.customer.id, customer.id);
      assert.equal(first.resource.id, resourceId);
      assert.equal(first.resource.name, 'Table 1');
      assert.equal(first.starts_at, '2030-06-01T12:00:00.000Z');
      assert.deepEqual(body.stats, {
        total_bookings: 24,
        completed: 18,
        cancelled: 1,
        no_shows: 1,
        upcoming: 3,
        total_covers: 18 * 2 + 4 + 2 + 2 + 3 + 2,
        first_booking_date: '2024-01-05',
        last_booking_date: '2030-06-01',
      });
    });

    it('returns empty bookings, zero counts and null dates for a customer without bookings', async () => {
      const tenant = await createTenant(ctx.app);
      const customer = await addCustomer(tenant, 'New', 'Comer', '5550000');
      const response = await detail(tenant, customer.id);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(body.bookings, []);
      assert.deepEqual(body.stats, {
        total_bookings: 0,
        completed: 0,
        cancelled: 0,
        no_shows: 0,
        upcoming: 0,
        total_covers: 0,
        first_booking_date: null,
        last_booking_date: null,
      });
    });

    it('lets a staff member read', async () => {
      const tenant = await createTenant(ctx.app);
      const customer = await addCustomer(tenant, 'Anna', 'Meyer', '5551234');
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await detail(tenant, customer.id, bearer(token));
      assert.equal(response.statusCode, 200, response.body);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a non-UUID and another business’s customer', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const theirs = await addCustomer(other, 'Their', 'Customer', '5551234');
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', theirs.id]) {
        const response = await detail(tenant, id);
        assert.equal(response.statusCode, 404, `${id} -> ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('401 and 403', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => addCustomer(tenant, 'Anna', 'Meyer', '5551234'),
      route: (customer) => ({
        method: 'GET',
        url: `/v1/manage/customers/${customer.id}`,
        scope: 'read',
        staff: true,
      }),
    });
  });
});
