import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  assertNamesFields,
  bearer,
  createKey,
  createTenant,
  dashboardToken,
  itChecksAuth,
  RACE,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const db = () => ctx.database.db;

const DATE = '2030-07-14';
const OTHER_DATE = '2030-07-15';

const customer = (overrides: Record<string, unknown> = {}) => ({
  first_name: 'Anna',
  last_name: 'Meyer',
  phone: '+49 30 1234 567',
  email: 'anna@example.com',
  ...overrides,
});

const join = (businessId: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/v1/waitlist/${businessId}`, payload: payload as object, headers });

async function joined(businessId: string, payload: unknown) {
  const response = await join(businessId, payload);
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { waitlist_id: string; position: number };
}

const listWaitlist = (tenant: Tenant, query = '', headers = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url: `/v1/manage/waitlist${query}`, headers });

const removeEntry = (tenant: Tenant, id: string, headers = tenant.headers) =>
  ctx.app.inject({ method: 'DELETE', url: `/v1/manage/waitlist/${id}`, headers });

async function insertService(businessId: string, values: { is_active?: boolean; deleted?: boolean } = {}) {
  const row = await db()
    .insertInto('services')
    .values({
      business_id: businessId,
      name: 'Massage',
      duration_minutes: 60,
      is_active: values.is_active ?? true,
      deleted_at: values.deleted ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const countRows = async (table: 'customers' | 'waitlist_entries') =>
  Number(
    (
      await db()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/waitlist/{business_id}', () => {
  describe('201', () => {
    it('adds an entry without credentials and answers its position among that date’s entries', async () => {
      const tenant = await createTenant(ctx.app);
      const first = await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      assert.deepEqual(Object.keys(first).sort(), ['position', 'waitlist_id']);
      assert.equal(first.position, 1);
      const second = await joined(tenant.businessId, {
        customer: customer({ phone: '0171 555 0101', first_name: 'Bert' }),
        preferred_date: DATE,
      });
      assert.equal(second.position, 2);
      const otherDay = await joined(tenant.businessId, {
        customer: customer({ phone: '0171 555 0102' }),
        preferred_date: OTHER_DATE,
      });
      assert.equal(otherDay.position, 1);
      const anyDay = await joined(tenant.businessId, {
        customer: customer({ phone: '0171 555 0103' }),
        preferred_date: null,
      });
      assert.equal(anyDay.position, 1);
      const third = await joined(tenant.businessId, {
        customer: customer({ phone: '0171 555 0104' }),
        preferred_date: DATE,
      });
      assert.equal(third.position, 3);
    });

    it('stores the entry with its customer, defaults and optional fields', async () => {
      const tenant = await createTenant(ctx.app);
      const serviceId = await insertService(tenant.businessId);
      const withAll = await joined(tenant.businessId, {
        customer: customer(),
        preferred_date: DATE,
        service_id: serviceId,
        capacity: 4,
        notes: 'window seat if possible',
      });
      const minimal = await joined(tenant.businessId, {
        customer: { first_name: 'Bert', last_name: 'Bauer', phone: '5551234' },
        preferred_date: DATE,
      });

      const items = (await listWaitlist(tenant)).json().items;
      const full = items.find((item: { id: string }) => item.id === withAll.waitlist_id);
      assert.equal(full.preferred_date, DATE);
      assert.equal(full.service_id, serviceId);
      assert.equal(full.capacity, 4);
      assert.equal(full.notes, 'window seat if possible');
      assert.equal(full.customer.first_name, 'Anna');
      assert.equal(full.customer.phone, '+49 30 1234 567');
      assert.equal(full.customer.email, 'anna@example.com');
      const bare = items.find((item: { id: string }) => item.id === minimal.waitlist_id);
      assert.equal(bare.capacity, 1);
      assert.equal(bare.notes, null);
      assert.equal(bare.service_id, null);
      assert.equal(bare.customer.email, null);
    });

    it('matches a returning customer by normalised phone; a trusted caller updates the name', async () => {
      const tenant = await createTenant(ctx.app);
      await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      const again = await join(
        tenant.businessId,
        {
          customer: customer({ phone: '+49 (30) 1234-567', first_name: 'Anne', email: null }),
          preferred_date: OTHER_DATE,
        },
        tenant.headers,
      );
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(await countRows('customers'), 1);
      const stored = await db().selectFrom('customers').selectAll().executeTakeFirstOrThrow();
      assert.equal(stored.first_name, 'Anne');
      assert.equal(stored.phone, '+49 (30) 1234-567');
      assert.equal(stored.email, 'anna@example.com');
      assert.equal(stored.business_id, tenant.businessId);
    });

    it('never lets a caller without a credential rewrite a known customer: the entry keeps the name given', async () => {
      const tenant = await createTenant(ctx.app);
      const own = await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      const stranger = await joined(tenant.businessId, {
        customer: customer({
          phone: '+49 30 1234567',
          first_name: 'Mallory',
          last_name: 'Stranger',
          email: 'mallory@example.com',
        }),
        preferred_date: OTHER_DATE,
      });
      assert.equal(await countRows('customers'), 1);
      const stored = await db().selectFrom('customers').selectAll().executeTakeFirstOrThrow();
      assert.equal(stored.first_name, 'Anna');
      assert.equal(stored.last_name, 'Meyer');
      assert.equal(stored.email, 'anna@example.com');
      assert.equal(stored.phone, '+49 30 1234 567');

      const items = (await listWaitlist(tenant)).json().items;
      const entry = items.find((item: { id: string }) => item.id === stranger.waitlist_id);
      assert.equal(entry.customer.id, stored.id);
      assert.equal(entry.customer.first_name, 'Anna');
      assert.deepEqual(entry.guest, {
        first_name: 'Mallory',
        last_name: 'Stranger',
        email: 'mallory@example.com',
      });
      const first = items.find((item: { id: string }) => item.id === own.waitlist_id);
      assert.deepEqual(first.guest, { first_name: 'Anna', last_name: 'Meyer', email: 'anna@example.com' });
    });

    it("never lets another business's credential, or a read-only key, rewrite a known customer", async () => {
      const tenant = await createTenant(ctx.app);
      await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      const other = await createTenant(ctx.app);
      const otherReadKey = await createKey(ctx.app, other, ['read']);
      const ownReadKey = await createKey(ctx.app, tenant, ['read']);
      const otherOwner = await dashboardToken(ctx.app, other, 'business_owner');
      for (const headers of [other.headers, bearer(otherReadKey), bearer(ownReadKey), bearer(otherOwner)]) {
        const response = await join(
          tenant.businessId,
          {
            customer: customer({ first_name: 'Mallory', last_name: 'Evil', email: 'mallory@evil.test' }),
            preferred_date: OTHER_DATE,
          },
          headers,
        );
        assert.equal(response.statusCode, 201, response.body);
      }
      const stored = await db()
        .selectFrom('customers')
        .selectAll()
        .where('business_id', '=', tenant.businessId)
        .executeTakeFirstOrThrow();
      assert.equal(stored.first_name, 'Anna');
      assert.equal(stored.email, 'anna@example.com');
    });

    it('takes the customer flat as well as nested', async () => {
      const tenant = await createTenant(ctx.app);
      const flat = await joined(tenant.businessId, { ...customer(), preferred_date: DATE, capacity: 3 });
      const [entry] = (await listWaitlist(tenant)).json().items;
      assert.equal(entry.id, flat.waitlist_id);
      assert.equal(entry.capacity, 3);
      assert.deepEqual({ ...entry.customer, id: undefined }, { ...customer(), id: undefined });
    });

    it('keeps customers of different businesses apart', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      const theirs = await joined(other.businessId, { customer: customer(), preferred_date: DATE });
      assert.equal(theirs.position, 1);
      assert.equal(await countRows('customers'), 2);
    });

    it('accepts a valid credential, also one of another business, as the endpoint is public', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const readKey = await createKey(ctx.app, tenant, ['read']);
      for (const headers of [tenant.headers, other.headers, bearer(readKey)]) {
        const response = await join(
          tenant.businessId,
          { customer: customer(), preferred_date: DATE },
          headers,
        );
        assert.equal(response.statusCode, 201, response.body);
      }
      assert.equal((await listWaitlist(tenant)).json().items.length, 3);
      assert.equal((await listWaitlist(other)).json().items.length, 0);
    });

    it('accepts today in the business’s time zone', async () => {
      const tenant = await createTenant(ctx.app);
      const zone = 'Pacific/Kiritimati';
      await db()
        .updateTable('businesses')
        .set({ timezone: zone })
        .where('id', '=', tenant.businessId)
        .execute();
      const { today } = await sql<{ today: string }>`SELECT (now() AT TIME ZONE ${zone})::date AS today`
        .execute(db())
        .then((result) => result.rows[0]!);
      const { position } = await joined(tenant.businessId, { customer: customer(), preferred_date: today });
      assert.equal(position, 1);
    });

    it('works out today without the database, so a zone it does not know cannot fail the join', async () => {
      const tenant = await createTenant(ctx.app);
      await db()
        .updateTable('businesses')
        .set({ timezone: 'US/Pacific-New' })
        .where('id', '=', tenant.businessId)
        .execute();
      const { position } = await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      assert.equal(position, 1);
      const past = await join(tenant.businessId, { customer: customer(), preferred_date: '2020-01-01' });
      assert.equal(past.statusCode, 422, past.body);
      assert.equal(past.json().error.fields[0].field, 'preferred_date');
    });

    it(
      'answers every one of simultaneous entries for one date a position of its own, as listed',
      RACE,
      async () => {
        const tenant = await createTenant(ctx.app);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            joined(tenant.businessId, {
              customer: customer({ phone: `555${String(i).padStart(4, '0')}` }),
              preferred_date: DATE,
            }),
          ),
        );
        assert.deepEqual(
          answers.map((a) => a.position).sort((a, b) => a - b),
          Array.from({ length: 12 }, (_, i) => i + 1),
        );
        const listed = (await listWaitlist(tenant)).json().items;
        assert.deepEqual(
          listed.map((item: { id: string; position: number }) => [item.id, item.position]),
          answers.map((a) => [a.waitlist_id, a.position]).sort((a, b) => Number(a[1]) - Number(b[1])),
        );
      },
    );
  });

  describe('401', () => {
    it('rejects a credential that is sent and not valid', async () => {
      const tenant = await createTenant(ctx.app);
      for (const headers of [bearer('svc_live_notakey'), bearer('not.a.jwt'), { authorization: 'Basic x' }]) {
        const response = await join(
          tenant.businessId,
          { customer: customer(), preferred_date: DATE },
          headers,
        );
        assert.equal(response.statusCode, 401, response.body);
        assert.equal(response.json().error.code, 'invalid_token');
      }
      assert.equal(await countRows('waitlist_entries'), 0);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown business or a business id that is not a UUID', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'chez-test']) {
        const response = await join(id, { customer: customer(), preferred_date: DATE });
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal(await countRows('customers'), 0);
    });
  });

  describe('422', () => {
    it('names each invalid field and writes nothing', async () => {
      const tenant = await createTenant(ctx.app);
      const cases: [unknown, string][] = [
        [{ customer: customer() }, 'preferred_date'],
        [{ preferred_date: DATE }, 'customer'],
        [{ customer: customer(), preferred_date: '14.07.2030' }, 'preferred_date'],
        [{ customer: customer(), preferred_date: '2030-02-30' }, 'preferred_date'],
        [{ customer: customer({ first_name: '' }), preferred_date: DATE }, 'customer.first_name'],
        [{ customer: customer({ last_name: 'x'.repeat(101) }), preferred_date: DATE }, 'customer.last_name'],
        [{ customer: customer({ phone: '123456' }), preferred_date: DATE }, 'customer.phone'],
        [{ customer: customer({ phone: '1'.repeat(21) }), preferred_date: DATE }, 'customer.phone'],
        [{ customer: customer({ email: 'not-an-email' }), preferred_date: DATE }, 'customer.email'],
        [{ customer: customer({ nickname: 'Annie' }), preferred_date: DATE }, 'customer.nickname'],
        [{ customer: customer(), preferred_date: DATE, capacity: 0 }, 'capacity'],
        [{ customer: customer(), preferred_date: DATE, capacity: 51 }, 'capacity'],
        [{ customer: customer(), preferred_date: DATE, notes: 'x'.repeat(1001) }, 'notes'],
        [{ customer: customer(), preferred_date: DATE, service_id: 'massage' }, 'service_id'],
        [{ customer: customer(), preferred_date: DATE, party: 2 }, 'party'],
        [{ customer: customer(), first_name: 'Bea', preferred_date: DATE }, 'first_name'],
        [{ ...customer({ phone: '123' }), preferred_date: DATE }, 'customer.phone'],
        [{ customer: customer(), preferred_date: '2020-01-01' }, 'preferred_date'],
      ];
      for (const [payload, field] of cases) {
        const response = await join(tenant.businessId, payload);
        assert.equal(response.statusCode, 422, `${JSON.stringify(payload)} -> ${response.body}`);
        const { error } = response.json();
        assert.equal(error.code, 'validation_error');
        assert.ok(
          error.fields.some((f: { field: string }) => f.field === field),
          `${field} not in ${JSON.stringify(error.fields)}`,
        );
      }
      assert.equal(await countRows('customers'), 0);
      assert.equal(await countRows('waitlist_entries'), 0);
    });

    it('rejects a service that is not an active service of the business', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const services = [
        await insertService(other.businessId),
        await insertService(tenant.businessId, { is_active: false }),
        await insertService(tenant.businessId, { deleted: true }),
        '00000000-0000-4000-8000-000000000000',
      ];
      for (const serviceId of services) {
        const response = await join(tenant.businessId, {
          customer: customer(),
          preferred_date: DATE,
          service_id: serviceId,
        });
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.fields[0].field, 'service_id');
      }
      assert.equal(await countRows('customers'), 0);
    });
  });
});

describe('GET /v1/manage/waitlist', () => {
  async function seed(tenant: Tenant) {
    const entries = [
      { phone: '5550001', preferred_date: DATE },
      { phone: '5550002', preferred_date: OTHER_DATE },
      { phone: '5550003', preferred_date: null },
      { phone: '5550004', preferred_date: DATE },
      { phone: '5550005', preferred_date: OTHER_DATE },
      { phone: '5550006', preferred_date: DATE },
    ];
    const ids: string[] = [];
    for (const { phone, preferred_date } of entries) {
      ids.push(
        (
          await joined(tenant.businessId, {
            customer: customer({ phone, first_name: phone }),
            preferred_date,
          })
        ).waitlist_id,
      );
    }
    return ids;
  }

  describe('200', () => {
    it('lists entries in the order they were added, each with its position for its date', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const ids = await seed(tenant);
      await joined(other.businessId, { customer: customer(), preferred_date: DATE });

      const response = await listWaitlist(tenant);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(
        body.items.map((item: { id: string }) => item.id),
        ids,
      );
      assert.deepEqual(
        body.items.map((item: { position: number }) => item.position),
        [1, 1, 1, 2, 2, 3],
      );
      assert.equal(body.has_more, false);
      assert.equal(body.next_cursor, null);
      const item = body.items[0];
      assert.deepEqual(Object.keys(item).sort(), [
        'booked_booking_id',
        'capacity',
        'created_at',
        'customer',
        'guest',
        'id',
        'notes',
        'offered_at',
        'position',
        'preferred_date',
        'preferred_time_from',
        'preferred_time_to',
        'service_id',
      ]);
      assert.deepEqual(Object.keys(item.customer).sort(), [
        'email',
        'first_name',
        'id',
        'last_name',
        'phone',
      ]);
      assert.equal(item.customer.first_name, '5550001');
      assert.match(item.created_at, /Z$/);
    });

    it('filters by preferred_date, keeping the undated entries and the positions', async () => {
      const tenant = await createTenant(ctx.app);
      const ids = await seed(tenant);
      const response = await listWaitlist(tenant, `?preferred_date=${DATE}`);
      assert.equal(response.statusCode, 200, response.body);
      const items = response.json().items;
      assert.deepEqual(
        items.map((item: { id: string }) => item.id),
        [ids[0], ids[2], ids[3], ids[5]],
      );
      assert.deepEqual(
        items.map((item: { preferred_date: string | null; position: number }) => [
          item.preferred_date,
          item.position,
        ]),
        [
          [DATE, 1],
          [null, 1],
          [DATE, 2],
          [DATE, 3],
        ],
      );
      const empty = await listWaitlist(tenant, '?preferred_date=2030-12-24');
      assert.deepEqual(
        empty.json().items.map((item: { id: string }) => item.id),
        [ids[2]],
      );
    });

    it('pages with the cursor, positions unchanged by the page cut, also past a removed entry', async () => {
      const tenant = await createTenant(ctx.app);
      const ids = await seed(tenant);
      const first = (await listWaitlist(tenant, '?limit=2')).json();
      assert.deepEqual(
        first.items.map((item: { id: string }) => item.id),
        ids.slice(0, 2),
      );
      assert.equal(first.has_more, true);
      // The last entry served disappears before the next page is asked for.
      assert.equal((await removeEntry(tenant, ids[1]!)).statusCode, 204);
      const second = (await listWaitlist(tenant, `?limit=2&cursor=${first.next_cursor}`)).json();
      assert.deepEqual(
        second.items.map((item: { id: string; position: number }) => [item.id, item.position]),
        [
          [ids[2], 1],
          [ids[3], 2],
        ],
      );
      const third = (await listWaitlist(tenant, `?limit=2&cursor=${second.next_cursor}`)).json();
      assert.deepEqual(
        third.items.map((item: { id: string; position: number }) => [item.id, item.position]),
        [
          [ids[4], 1],
          [ids[5], 3],
        ],
      );
      assert.equal(third.has_more, false);
      assert.equal(third.next_cursor, null);
    });

    it('lets a staff member read', async () => {
      const tenant = await createTenant(ctx.app);
      await seed(tenant);
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await listWaitlist(tenant, '', bearer(token));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().items.length, 6);
    });
  });

  describe('422', () => {
    it('rejects a bad date, limit, cursor or unknown parameter', async () => {
      const tenant = await createTenant(ctx.app);
      const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
      await assertNamesFields(
        [
          ['?preferred_date=tomorrow', 'preferred_date'],
          ['?limit=0', 'limit'],
          ['?limit=201', 'limit'],
          ['?cursor=garbage', 'cursor'],
          [`?cursor=${cursor(['yesterday', '00000000-0000-4000-8000-000000000000'])}`, 'cursor'],
          [`?cursor=${cursor(['2030-01-01T00:00:00.000000Z', 'x'])}`, 'cursor'],
          ...[
            '2026-13-45T99:99:99.000000Z',
            '2026-02-30T10:00:00.000000Z',
            '2026-01-01T10:60:00.000000Z',
            '0000-01-01T00:00:00.000000Z',
            '9999-12-31T23:59:59.999999Z',
          ].map((createdAt): [string, string] => [
            `?cursor=${cursor([createdAt, '00000000-0000-4000-8000-000000000000'])}`,
            'cursor',
          ]),
          ['?date=2030-01-01', 'date'],
        ],
        (query: string) => listWaitlist(tenant, query),
      );
    });
  });

  describe('401 and 403', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/waitlist', scope: 'read', staff: true }),
    });
  });
});

describe('DELETE /v1/manage/waitlist/{entry_id}', () => {
  describe('204', () => {
    it('removes the entry, moves later entries of that date up and records waitlist.removed', async () => {
      const tenant = await createTenant(ctx.app);
      const first = await joined(tenant.businessId, {
        customer: customer(),
        preferred_date: DATE,
        capacity: 2,
      });
      const second = await joined(tenant.businessId, {
        customer: customer({ phone: '5550002' }),
        preferred_date: DATE,
      });

      const response = await removeEntry(tenant, first.waitlist_id);
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');

      const items = (await listWaitlist(tenant)).json().items;
      assert.deepEqual(
        items.map((item: { id: string; position: number }) => [item.id, item.position]),
        [[second.waitlist_id, 1]],
      );
      assert.equal(await countRows('customers'), 2);

      const audit = (
        await ctx.app.inject({ method: 'GET', url: '/v1/manage/audit-logs', headers: tenant.headers })
      )
        .json()
        .items.find((entry: { action: string }) => entry.action === 'waitlist.removed');
      assert.ok(audit, 'audit entry written');
      assert.equal(audit.entity_type, 'waitlist_entry');
      assert.equal(audit.entity_id, first.waitlist_id);
      assert.equal(audit.before_state.preferred_date, DATE);
      assert.equal(audit.before_state.capacity, 2);
      assert.equal(audit.after_state, null);
    });

    it('lets a staff member remove an entry', async () => {
      const tenant = await createTenant(ctx.app);
      const entry = await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await removeEntry(tenant, entry.waitlist_id, bearer(token));
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(await countRows('waitlist_entries'), 0);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown, a non-UUID, a removed and another business’s entry', async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const theirs = await joined(other.businessId, { customer: customer(), preferred_date: DATE });
      const mine = await joined(tenant.businessId, { customer: customer(), preferred_date: DATE });
      assert.equal((await removeEntry(tenant, mine.waitlist_id)).statusCode, 204);
      for (const id of [
        '00000000-0000-4000-8000-000000000000',
        'not-a-uuid',
        mine.waitlist_id,
        theirs.waitlist_id,
      ]) {
        const response = await removeEntry(tenant, id);
        assert.equal(response.statusCode, 404, `${id} -> ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal((await listWaitlist(other)).json().items.length, 1);
    });
  });

  describe('401 and 403', () => {
    itChecksAuth(() => ctx, {
      given: (tenant) => joined(tenant.businessId, { customer: customer(), preferred_date: DATE }),
      route: (entry) => ({
        method: 'DELETE',
        url: `/v1/manage/waitlist/${entry.waitlist_id}`,
        scope: 'write',
        staff: true,
      }),
    });
  });
});
