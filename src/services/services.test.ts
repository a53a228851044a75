import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import {
  assertNamesFields,
  collectionRoutes,
  createTenant,
  itChecksAuth,
  itRefusesEachAddition,
  type Tenant,
  useTestApp,
} from '../../test/helpers.ts';

const ctx = useTestApp();

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const massage = { name: 'Massage', duration_minutes: 60 };

const call = (tenant: Tenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

async function createService(tenant: Tenant, body: Record<string, unknown> = {}) {
  const response = await call(tenant, 'POST', '/v1/manage/services', { ...massage, ...body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const services = collectionRoutes('/v1/manage/services', createService);

async function createResource(tenant: Tenant) {
  const response = await call(tenant, 'POST', '/v1/manage/resources', {
    name: 'Room 1',
    capacity_min: 1,
    capacity_max: 2,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string };
}

async function latestAudit(tenant: Tenant) {
  const response = await call(tenant, 'GET', '/v1/manage/audit-logs?limit=1');
  return response.json().items[0] as {
    action: string;
    entity_id: string;
    before_state: Record<string, unknown> | null;
    after_state: Record<string, unknown> | null;
  };
}

const names = (response: { json(): { items: { name: string }[] } }) =>
  response.json().items.map((s) => s.name);

describe('GET /v1/manage/services', () => {
  describe('200', () => {
    it('lists active services by name, inactive ones only with include_inactive=true', async () => {
      const tenant = await createTenant(ctx.app);
      await createService(tenant, { name: 'Pedicure' });
      await createService(tenant, { name: 'Facial', is_active: false });
      await createService(tenant, { name: 'Haircut' });
      const gone = await createService(tenant, { name: 'Beard trim' });
      assert.equal((await call(tenant, 'DELETE', `/v1/manage/services/${gone.id}`)).statusCode, 204);
      const active = await call(tenant, 'GET', '/v1/manage/services');
      assert.equal(active.statusCode, 200, active.body);
      assert.deepEqual(names(active), ['Haircut', 'Pedicure']);
      assert.deepEqual(names(await call(tenant, 'GET', '/v1/manage/services?include_inactive=false')), [
        'Haircut',
        'Pedicure',
      ]);
      assert.deepEqual(names(await call(tenant, 'GET', '/v1/manage/services?include_inactive=true')), [
        'Facial',
        'Haircut',
        'Pedicure',
      ]);
    });

    it('pages by name then id', async () => {
      const tenant = await createTenant(ctx.app);
      for (const name of ['Delta', 'Alpha', 'Charlie', 'Alpha', 'Bravo'])
        await createService(tenant, { name });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const page = (await call(tenant, 'GET', `/v1/manage/services?limit=2${query}`)).json();
        seen.push(...page.items.map((s: { name: string }) => s.name));
        cursor = page.next_cursor;
        assert.equal(page.has_more, cursor !== null);
      } while (cursor);
      assert.deepEqual(seen, ['Alpha', 'Alpha', 'Bravo', 'Charlie', 'Delta']);
    });
  });

  describe('422', () => {
    it('rejects a bad include_inactive and a foreign cursor', async () => {
      const tenant = await createTenant(ctx.app);
      const flag = await call(tenant, 'GET', '/v1/manage/services?include_inactive=perhaps');
      assert.equal(flag.statusCode, 422, flag.body);
      assert.equal(flag.json().error.fields[0].field, 'include_inactive');
      const cursor = await call(tenant, 'GET', '/v1/manage/services?cursor=abc');
      assert.equal(cursor.statusCode, 422, cursor.body);
      assert.equal(cursor.json().error.fields[0].field, 'cursor');
    });

    it("refuses a cursor of another business's list, so it reveals nothing of that business", async () => {
      const owner = await createTenant(ctx.app);
      await createService(owner, { name: 'Alpha' });
      await createService(owner, { name: 'Bravo' });
      const cursor = (await call(owner, 'GET', '/v1/manage/services?limit=1')).json().next_cursor;
      assert.ok(cursor);
      const other = await createTenant(ctx.app);
      await createService(other, { name: 'Charlie' });
      const response = await call(other, 'GET', `/v1/manage/services?cursor=${cursor}`);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.fields[0].field, 'cursor');
    });
  });

  describe('tenant isolation', () => {
    it("never shows another business's services", async () => {
      await createService(await createTenant(ctx.app));
      const other = await createTenant(ctx.app);
      assert.deepEqual((await call(other, 'GET', '/v1/manage/services')).json().items, []);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, services.list);
  });
});

describe('POST /v1/manage/services', () => {
  describe('201', () => {
    it('creates a service with defaults and audits service.created', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      assert.deepEqual(
        { ...service, id: undefined, created_at: undefined },
        {
          id: undefined,
          name: 'Massage',
          description: null,
          duration_minutes: 60,
          buffer_before_minutes: 0,
          buffer_after_minutes: 0,
          price_cents: null,
          resource_ids: [],
          is_active: true,
          seats: null,
          requirements: [],
          created_at: undefined,
        },
      );
      assert.ok(!Number.isNaN(Date.parse(service.created_at)));
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'service.created');
      assert.equal(entry.entity_id, service.id);
      assert.equal(entry.after_state?.name, 'Massage');
    });

    it('takes every field, keeps each resource id once, and accepts range edges', async () => {
      const tenant = await createTenant(ctx.app);
      const room = await createResource(tenant);
      const service = await createService(tenant, {
        name: 'x'.repeat(200),
        description: 'd'.repeat(2000),
        duration_minutes: 480,
        buffer_before_minutes: 240,
        buffer_after_minutes: 0,
        price_cents: 0,
        resource_ids: [room.id, room.id],
        is_active: false,
      });
      assert.equal(service.duration_minutes, 480);
      assert.equal(service.price_cents, 0);
      assert.deepEqual(service.resource_ids, [room.id]);
      assert.equal(service.is_active, false);
      assert.equal(
        (await createService(tenant, { duration_minutes: 5, description: null })).duration_minutes,
        5,
      );
    });
  });

  describe('422', () => {
    itRefusesEachAddition(
      () => ctx,
      { url: '/v1/manage/services', body: massage, listUrl: '/v1/manage/services?include_inactive=true' },
      [
        ['missing name', { name: undefined }, 'name'],
        ['empty name', { name: '' }, 'name'],
        ['whitespace-only name', { name: ' \t\n ' }, 'name'],
        ['long name', { name: 'x'.repeat(201) }, 'name'],
        ['long description', { description: 'x'.repeat(2001) }, 'description'],
        ['missing duration', { duration_minutes: undefined }, 'duration_minutes'],
        ['short duration', { duration_minutes: 4 }, 'duration_minutes'],
        ['long duration', { duration_minutes: 481 }, 'duration_minutes'],
        ['large buffer', { buffer_after_minutes: 241 }, 'buffer_after_minutes'],
        ['negative buffer', { buffer_before_minutes: -1 }, 'buffer_before_minutes'],
        ['negative price', { price_cents: -1 }, 'price_cents'],
        ['text price', { price_cents: 'ten' }, 'price_cents'],
        ['resource ids not UUIDs', { resource_ids: ['table-1'] }, 'resource_ids[0]'],
        ['unknown resource', { resource_ids: [MISSING_ID] }, 'resource_ids'],
        ['unknown field', { colour: 'blue' }, 'colour'],
      ],
    );

    it("rejects another business's resource and a deleted one", async () => {
      const tenant = await createTenant(ctx.app);
      const foreign = await createResource(await createTenant(ctx.app));
      const deleted = await createResource(tenant);
      await call(tenant, 'DELETE', `/v1/manage/resources/${deleted.id}`);
      for (const id of [foreign.id, deleted.id]) {
        const response = await call(tenant, 'POST', '/v1/manage/services', {
          ...massage,
          resource_ids: [id],
        });
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.fields[0].field, 'resource_ids');
      }
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, services.add(massage));
  });
});

describe('PATCH /v1/manage/services/{service_id}', () => {
  describe('200', () => {
    it('changes only the fields sent and audits service.updated', async () => {
      const tenant = await createTenant(ctx.app);
      const room = await createResource(tenant);
      const service = await createService(tenant, { description: 'Relaxing', price_cents: 4500 });
      const response = await call(tenant, 'PATCH', `/v1/manage/services/${service.id}`, {
        duration_minutes: 90,
        resource_ids: [room.id],
        description: null,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        ...service,
        duration_minutes: 90,
        resource_ids: [room.id],
        description: null,
      });
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'service.updated');
      assert.equal(entry.before_state?.duration_minutes, 60);
      assert.equal(entry.after_state?.duration_minutes, 90);
    });

    it('deactivates a service, which hides it from the default list', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/services/${service.id}`, { is_active: false });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual((await call(tenant, 'GET', '/v1/manage/services')).json().items, []);
    });

    it('writes no audit entry when nothing changes', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      const response = await call(tenant, 'PATCH', `/v1/manage/services/${service.id}`, { name: 'Massage' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), service);
      assert.equal((await latestAudit(tenant)).action, 'service.created');
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a non-UUID, a deleted service and another business', async () => {
      const tenant = await createTenant(ctx.app);
      const deleted = await createService(tenant);
      await call(tenant, 'DELETE', `/v1/manage/services/${deleted.id}`);
      const foreign = await createService(await createTenant(ctx.app), { name: 'Theirs' });
      for (const id of [MISSING_ID, 'massage', deleted.id, foreign.id]) {
        const response = await call(tenant, 'PATCH', `/v1/manage/services/${id}`, { name: 'Mine' });
        assert.equal(response.statusCode, 404, `${id}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('422', () => {
    it('rejects bad fields and unknown resources and leaves the service as it was', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      await assertNamesFields(
        [
          [{ duration_minutes: 500 }, 'duration_minutes'],
          [{ name: null }, 'name'],
          [{ name: '   ' }, 'name'],
          [{ resource_ids: [MISSING_ID] }, 'resource_ids'],
          [{ created_at: '2026-01-01T00:00:00Z' }, 'created_at'],
        ],
        (body) => call(tenant, 'PATCH', `/v1/manage/services/${service.id}`, body),
      );
      assert.deepEqual((await call(tenant, 'GET', '/v1/manage/services')).json().items, [service]);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, services.update({ name: 'Deep tissue' }));
  });
});

describe('DELETE /v1/manage/services/{service_id}', () => {
  describe('204', () => {
    it('removes the service and audits service.deleted', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      const response = await call(tenant, 'DELETE', `/v1/manage/services/${service.id}`);
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      assert.deepEqual(
        (await call(tenant, 'GET', '/v1/manage/services?include_inactive=true')).json().items,
        [],
      );
      const entry = await latestAudit(tenant);
      assert.equal(entry.action, 'service.deleted');
      assert.equal(entry.before_state?.id, service.id);
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown id, a second delete and another business', async () => {
      const tenant = await createTenant(ctx.app);
      const service = await createService(tenant);
      await call(tenant, 'DELETE', `/v1/manage/services/${service.id}`);
      const foreignTenant = await createTenant(ctx.app);
      const foreign = await createService(foreignTenant);
      for (const id of [MISSING_ID, 'x', service.id, foreign.id]) {
        const response = await call(tenant, 'DELETE', `/v1/manage/services/${id}`);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().error.code, 'not_found');
      }
      assert.equal((await call(foreignTenant, 'GET', '/v1/manage/services')).json().items.length, 1);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, services.remove);
  });
});
