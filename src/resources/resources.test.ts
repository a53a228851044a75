import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import {
  assertNamesFields,
  bearer,
  collectionRoutes,
  createKey,
  createTenant,
  dashboardToken,
  itChecksAuth,
  itRefusesEachAddition,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const table = {
  name: 'Table 1',
  resource_type: 'table',
  capacity_min: 2,
  capacity_max: 4,
  section: 'Terrace',
};

const call = (tenant: Tenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

async function createResource(tenant: Tenant, body: Record<string, unknown> = {}) {
  const response = await call(tenant, 'POST', '/v1/manage/resources', { ...table, ...body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const resources = collectionRoutes('/v1/manage/resources', createResource);

async function auditActions(tenant: Tenant) {
  const response = await call(tenant, 'GET', '/v1/manage/audit-logs');
  assert.equal(response.statusCode, 200, response.body);
  return response.json().items as {
    action: string;
    entity_id: string;
    before_state: Record<string, unknown>;
    after_state: Record<string, unknown>;
  }[];
}

/** A booking row written directly: bookings are not this area's, only their hold on a resource is. */
async function insertBooking(
  tenant: Tenant,
  resourceId: string,
  startsInHours: number,
  status = 'confirmed',
) {
  const db = ctx.database.db;
  const phone = `+4930${Math.floor(Math.random() * 1e8)}`;
  const customer = await db
    .insertInto('customers')
    .values({
      business_id: tenant.businessId,
      first_name: 'Grace',
      last_name: 'Hopper',
      phone,
      phone_normalized: phone,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const startsAt = new Date(Date.now() + startsInHours * 3_600_000);
  const endsAt = new Date(startsAt.getTime() + 3_600_000);
  await db
    .insertInto('bookings')
    .values({
      business_id: tenant.businessId,
      customer_id: customer.id,
      resource_id: resourceId,
      booking_date: startsAt.toISOString().slice(0, 10),
      start_time: startsAt.toISOString().slice(11, 16),
      end_time: endsAt.toISOString().slice(11, 16),
      duration_minutes: 60,
      starts_at: startsAt,
      ends_at: endsAt,
      during: sql<string>`tstzrange(${startsAt}::timestamptz, ${endsAt}::timestamptz)`,
      status: status as 'confirmed',
      confirmation_code: Math.random().toString(36).slice(2, 10).toUpperCase(),
      capacity: 2,
      source: 'staff',
    })
    .execute();
}

describe('GET /v1/manage/resources', () => {
  describe('200', () => {
    it('lists live resources by display_order then id, inactive ones included', async () => {
      const tenant = await createTenant(ctx.app);
      const c = await createResource(tenant, { name: 'C', display_order: 5 });
      const a = await createResource(tenant, { name: 'A', display_order: 1, is_active: false });
      const b = await createResource(tenant, { name: 'B', display_order: 3 });
      const gone = await createResource(tenant, { name: 'Gone', display_order: 2 });
      assert.equal((await call(tenant, 'DELETE', `/v1/manage/resources/${gone.id}`)).statusCode, 204);
      const response = await call(tenant, 'GET', '/v1/manage/resources');
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      assert.deepEqual(
        page.items.map((r: { id: string }) => r.id),
        [a.id, b.id, c.id],
      );
      assert.equal(page.has_more, false);
      assert.equal(page.next_cursor, null);
      assert.deepEqual(Object.keys(page.items[0]).sort(), [
        'capacity_max',
        'capacity_min',
        'created_at',
        'display_order',
        'id',
        'is_active',
        'name',
        'resource_type',
        'section',
      ]);
    });

    it('pages with the cursor, ties on display_order broken by id', async () => {
      const tenant = await createTenant(ctx.app);
      const made = [];
      for (const order of [2, 1, 2, 1, 3]) made.push(await createResource(tenant, { display_order: order }));
      const expected = [...made]
        .sort((x, y) => x.display_order - y.display_order || (x.id < y.id ? -1 : 1))
        .map((r) => r.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const response = await call(tenant, 'GET', `/v1/manage/resources?limit=2${query}`);
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.ok(page.items.length <= 2);
        seen.push(...page.items.map((r: { id: string }) => r.id));
        cursor = page.next_cursor;
        assert.equal(page.has_more, cursor !== null);
      } while (cursor);
      assert.deepEqual(seen, expected);
    });

    it('lets a staff member read', async () => {
      const tenant = await createTenant(ctx.app);
      await createResource(tenant);
      const token = await dashboardToken(ctx.app, tenant, 'staff_member');
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/resources',
        headers: bearer(token),
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().items.length, 1);
    });
  });

  describe('422', () => {
    it('rejects a cursor it did not make and an out-of-range limit', async () => {
      const tenant = await createTenant(ctx.app);
      const huge = Buffer.from('[1e12,"00000000-0000-4000-8000-000000000000"]').toString('base64url');
      for (const query of [
        'cursor=nonsense',
        `cursor=${Buffer.from('["x","y"]').toString('base64url')}`,
        `cursor=${huge}`,
      ]) {
        const response = await call(tenant, 'GET', `/v1/manage/resources?${query}`);
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.fields[0].field, 'cursor');
      }
      const response = await call(tenant, 'GET', '/v1/manage/resources?limit=201');
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.fields[0].field, 'limit');
    });

    it("refuses a cursor of another business's list, so it reveals nothing of that business", async () => {
      const owner = await createTenant(ctx.app);
      await createResource(owner);
      await createResource(owner);
      const page = await call(owner, 'GET', '/v1/manage/resources?limit=1');
      const cursor = page.json().next_cursor;
      assert.ok(cursor);
      const other = await createTenant(ctx.app);
      const response = await call(other, 'GET', `/v1/manage/resources?cursor=${cursor}`);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, 'cursor');
    });
  });

  describe('tenant isolation', () => {
    it("never shows another business's resources", async () => {
      const owner = await createTenant(ctx.app);
      await createResource(owner);
      const other = await createTenant(ctx.app);
      const response = await call(other, 'GET', '/v1/manage/resources');
      assert.deepEqual(response.json().items, []);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, resources.list);
  });
});

describe('POST /v1/manage/resources', () => {
  describe('201', () => {
    it('creates a resource, numbers it after the last one, and audits resource.created', async () => {
      const tenant = await createTenant(ctx.app);
      const first = await createResource(tenant, { section: null, resource_type: null });
      assert.equal(first.name, 'Table 1');
      assert.equal(first.capacity_min, 2);
      assert.equal(first.capacity_max, 4);
      assert.equal(first.section, null);
      assert.equal(first.resource_type, null);
      assert.equal(first.is_active, true);
      assert.equal(first.display_order, 1);
      assert.ok(!Number.isNaN(Date.parse(first.created_at)));
      await createResource(tenant, { display_order: 10 });
      const third = await createResource(tenant, { name: 'Bar seat', capacity_min: 1, capacity_max: 1 });
      assert.equal(third.display_order, 11);
      const [entry] = await auditActions(tenant);
      assert.equal(entry!.action, 'resource.created');
      assert.equal(entry!.entity_id, third.id);
      assert.equal(entry!.after_state.name, 'Bar seat');
    });

    it('accepts the edges of every range', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant, {
        name: 'x'.repeat(100),
        resource_type: 'y'.repeat(50),
        section: '',
        capacity_min: 50,
        capacity_max: 50,
        display_order: 0,
      });
      assert.equal(resource.section, '');
      assert.equal(resource.display_order, 0);
    });
  });

  describe('422', () => {
    itRefusesEachAddition(() => ctx, { url: '/v1/manage/resources', body: table }, [
      ['missing name', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['whitespace-only name', { name: ' \t\n ' }, 'name'],
      ['long name', { name: 'x'.repeat(101) }, 'name'],
      ['missing capacity_min', { capacity_min: undefined }, 'capacity_min'],
      ['missing capacity_max', { capacity_max: undefined }, 'capacity_max'],
      ['capacity_min 0', { capacity_min: 0 }, 'capacity_min'],
      ['capacity_max 51', { capacity_max: 51 }, 'capacity_max'],
      ['capacity_min above capacity_max', { capacity_min: 6, capacity_max: 4 }, 'capacity_min'],
      ['fractional capacity', { capacity_max: 2.5 }, 'capacity_max'],
      ['text capacity', { capacity_max: 'four' }, 'capacity_max'],
      ['long section', { section: 'x'.repeat(101) }, 'section'],
      ['long resource_type', { resource_type: 'x'.repeat(51) }, 'resource_type'],
      ['negative display_order', { display_order: -1 }, 'display_order'],
      ['text is_active', { is_active: 'maybe' }, 'is_active'],
      ['unknown field', { colour: 'red' }, 'colour'],
    ]);

    it('rejects a body that is not an object', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'POST', '/v1/manage/resources', [table]);
      assert.equal(response.statusCode, 422, response.body);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, resources.add(table));
  });
});

describe('PATCH /v1/manage/resources/{resource_id}', () => {
  describe('200', () => {
    it('changes the given fields and audits resource.updated with before and after', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, {
        name: 'Window table',
        section: null,
        capacity_max: 6,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        ...resource,
        name: 'Window table',
        section: null,
        capacity_max: 6,
      });
      const [entry] = await auditActions(tenant);
      assert.equal(entry!.action, 'resource.updated');
      assert.equal(entry!.before_state.name, 'Table 1');
      assert.equal(entry!.after_state.name, 'Window table');
    });

    it('audits resource.toggled when is_active changes, even alongside other fields', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, {
        is_active: false,
        name: 'Resting table',
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().is_active, false);
      const [entry] = await auditActions(tenant);
      assert.equal(entry!.action, 'resource.toggled');
      assert.equal(entry!.before_state.is_active, true);
      assert.equal(entry!.after_state.is_active, false);
    });

    it('answers an unchanged resource to an empty patch without auditing', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, {});
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), resource);
      assert.deepEqual(
        (await auditActions(tenant)).map((e) => e.action),
        ['resource.created'],
      );
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a non-UUID and a deleted resource', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      await call(tenant, 'DELETE', `/v1/manage/resources/${resource.id}`);
      for (const id of [MISSING_ID, 'not-a-uuid', resource.id]) {
        const response = await call(tenant, 'PATCH', `/v1/manage/resources/${id}`, { name: 'X' });
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
    });

    it("answers not_found for another business's resource and leaves it alone", async () => {
      const owner = await createTenant(ctx.app);
      const resource = await createResource(owner);
      const other = await createTenant(ctx.app);
      const response = await call(other, 'PATCH', `/v1/manage/resources/${resource.id}`, { name: 'Mine' });
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
      const list = await call(owner, 'GET', '/v1/manage/resources');
      assert.equal(list.json().items[0].name, 'Table 1');
    });
  });

  describe('422', () => {
    it('checks capacity_min against the stored capacity_max and the other way round', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      const raise = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, { capacity_min: 5 });
      assert.equal(raise.statusCode, 422, raise.body);
      assert.equal(raise.json().error.fields[0].field, 'capacity_min');
      const lower = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, { capacity_max: 1 });
      assert.equal(lower.statusCode, 422, lower.body);
      assert.equal(lower.json().error.fields[0].field, 'capacity_max');
      const both = await call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, {
        capacity_min: 6,
        capacity_max: 8,
      });
      assert.equal(both.statusCode, 200, both.body);
    });

    it('rejects out-of-range, mistyped and unknown fields', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      await assertNamesFields(
        [
          [{ name: '' }, 'name'],
          [{ capacity_max: 51 }, 'capacity_max'],
          [{ is_active: 'no' }, 'is_active'],
          [{ display_order: 1.5 }, 'display_order'],
          [{ id: MISSING_ID }, 'id'],
        ],
        (body) => call(tenant, 'PATCH', `/v1/manage/resources/${resource.id}`, body),
      );
      const list = await call(tenant, 'GET', '/v1/manage/resources');
      assert.deepEqual(list.json().items, [resource]);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, resources.update({ name: 'Renamed' }));
  });
});

describe('DELETE /v1/manage/resources/{resource_id}', () => {
  describe('204', () => {
    it('removes the resource from the list and audits resource.deleted', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      const response = await call(tenant, 'DELETE', `/v1/manage/resources/${resource.id}`);
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      assert.deepEqual((await call(tenant, 'GET', '/v1/manage/resources')).json().items, []);
      const [entry] = await auditActions(tenant);
      assert.equal(entry!.action, 'resource.deleted');
      assert.equal(entry!.before_state.id, resource.id);
    });

    it('keeps the row for past bookings, and ignores finished or cancelled ones', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      await insertBooking(tenant, resource.id, -48, 'completed');
      await insertBooking(tenant, resource.id, -24, 'confirmed');
      await insertBooking(tenant, resource.id, 24, 'cancelled');
      await insertBooking(tenant, resource.id, 48, 'no_show');
      const response = await call(tenant, 'DELETE', `/v1/manage/resources/${resource.id}`);
      assert.equal(response.statusCode, 204, response.body);
      const row = await ctx.database.db
        .selectFrom('resources')
        .select('deleted_at')
        .where('id', '=', resource.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.deleted_at instanceof Date);
    });
  });

  describe('409', () => {
    for (const status of ['pending', 'confirmed', 'checked_in']) {
      it(`refuses while a ${status} booking is still to come`, async () => {
        const tenant = await createTenant(ctx.app);
        const resource = await createResource(tenant);
        await insertBooking(tenant, resource.id, 24, status);
        const response = await call(tenant, 'DELETE', `/v1/manage/resources/${resource.id}`);
        assert.equal(response.statusCode, 409, response.body);
        assert.equal(response.json().error.code, 'conflict');
        assert.equal((await call(tenant, 'GET', '/v1/manage/resources')).json().items.length, 1);
        assert.equal((await auditActions(tenant))[0]!.action, 'resource.created');
      });
    }
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a non-UUID and a second delete', async () => {
      const tenant = await createTenant(ctx.app);
      const resource = await createResource(tenant);
      assert.equal((await call(tenant, 'DELETE', `/v1/manage/resources/${resource.id}`)).statusCode, 204);
      for (const id of [MISSING_ID, 'nope', resource.id]) {
        const response = await call(tenant, 'DELETE', `/v1/manage/resources/${id}`);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
    });

    it("answers not_found for another business's resource and keeps it", async () => {
      const owner = await createTenant(ctx.app);
      const resource = await createResource(owner);
      const other = await createTenant(ctx.app);
      const response = await call(other, 'DELETE', `/v1/manage/resources/${resource.id}`);
      assert.equal(response.statusCode, 404);
      assert.equal((await call(owner, 'GET', '/v1/manage/resources')).json().items.length, 1);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, resources.remove);
  });
});

describe('write scope', () => {
  it('is enough to create a resource', async () => {
    const tenant = await createTenant(ctx.app);
    const writeKey = await createKey(ctx.app, tenant, ['write']);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/manage/resources',
      headers: bearer(writeKey),
      payload: table,
    });
    assert.equal(created.statusCode, 201, created.body);
  });
});
