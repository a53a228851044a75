import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { createTenant, itChecksAuth, type Tenant, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const call = (tenant: Tenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

async function createResource(tenant: Tenant, name: string, capacityMax: number, isActive = true) {
  const response = await call(tenant, 'POST', '/v1/manage/resources', {
    name,
    capacity_min: 1,
    capacity_max: capacityMax,
    is_active: isActive,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id as string;
}

/** A business with tables 4 (up to 4) and 5 (up to 6), and the combination of both for 7 to 10. */
async function joinedTables() {
  const tenant = await createTenant(ctx.app);
  const t4 = await createResource(tenant, 'Table 4', 4);
  const t5 = await createResource(tenant, 'Table 5', 6);
  const body = { name: 'Tables 4 + 5', resource_ids: [t4, t5], capacity_min: 7, capacity_max: 10 };
  const response = await call(tenant, 'POST', '/v1/manage/combinations', body);
  assert.equal(response.statusCode, 201, response.body);
  return { tenant, t4, t5, body, combination: response.json() };
}

async function auditActions(tenant: Tenant) {
  const response = await call(tenant, 'GET', '/v1/manage/audit-logs');
  return (response.json().items as { action: string; entity_id: string }[]).map((entry) => entry.action);
}

describe('combinations', () => {
  it('are created, listed, changed and deleted, each audited', async () => {
    const { tenant, t4, t5, combination } = await joinedTables();
    assert.deepEqual(
      { ...combination, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        name: 'Tables 4 + 5',
        resource_ids: [t4, t5],
        capacity_min: 7,
        capacity_max: 10,
        is_active: true,
      },
    );
    const listed = await call(tenant, 'GET', '/v1/manage/combinations');
    assert.deepEqual(listed.json().items, [combination]);
    const changed = await call(tenant, 'PATCH', `/v1/manage/combinations/${combination.id}`, {
      capacity_max: 9,
      is_active: false,
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().capacity_max, 9);
    assert.equal(changed.json().is_active, false);
    const deleted = await call(tenant, 'DELETE', `/v1/manage/combinations/${combination.id}`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.deepEqual((await call(tenant, 'GET', '/v1/manage/combinations')).json().items, []);
    assert.deepEqual((await auditActions(tenant)).slice(0, 3).sort(), [
      'combination.created',
      'combination.deleted',
      'combination.updated',
    ]);
  });

  it('refuses (422) unknown, inactive, foreign and repeated resources, too few or too many, and a reversed range', async () => {
    const { tenant, t4, t5, body } = await joinedTables();
    const inactive = await createResource(tenant, 'Table 9', 4, false);
    const other = await createTenant(ctx.app, { name: 'Other Business' });
    const foreign = await createResource(other, 'Their table', 4);
    const extra = await Promise.all([1, 2, 3, 4, 5].map((n) => createResource(tenant, `Bar ${n}`, 2)));
    for (const [why, change, field] of [
      ['unknown', { resource_ids: [t4, '00000000-0000-4000-8000-000000000000'] }, 'resource_ids'],
      ['inactive', { resource_ids: [t4, inactive] }, 'resource_ids'],
      ['foreign', { resource_ids: [t4, foreign] }, 'resource_ids'],
      ['repeated', { resource_ids: [t4, t4] }, 'resource_ids'],
      ['one', { resource_ids: [t4] }, 'resource_ids'],
      ['seven', { resource_ids: [t4, t5, ...extra] }, 'resource_ids'],
      ['reversed', { capacity_min: 11, capacity_max: 10 }, 'capacity_min'],
    ] as const) {
      const response = await call(tenant, 'POST', '/v1/manage/combinations', { ...body, ...change });
      assert.equal(response.statusCode, 422, `${why}: ${response.body}`);
      assert.equal(response.json().error.fields[0].field, field, why);
    }
    const { combination } = await joinedTables();
    const patched = await call(tenant, 'PATCH', `/v1/manage/combinations/${combination.id}`, {
      capacity_max: 1,
    });
    // Another business's combination is not found, whatever the change.
    assert.equal(patched.statusCode, 404, patched.body);
  });

  it("never shows or changes another business's combinations", async () => {
    const { combination } = await joinedTables();
    const other = await createTenant(ctx.app, { name: 'Other Business' });
    assert.deepEqual((await call(other, 'GET', '/v1/manage/combinations')).json().items, []);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const response = await call(other, method, `/v1/manage/combinations/${combination.id}`, {
        name: 'Taken',
      });
      assert.equal(response.statusCode, 404, `${method}: ${response.body}`);
    }
  });

  describe('auth of GET', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/combinations', scope: 'read', staff: true }),
    });
  });
  describe('auth of POST', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const { tenant, body } = await joinedTables();
        return {
          tenant,
          route: {
            method: 'POST',
            url: '/v1/manage/combinations',
            payload: body,
            scope: 'write',
            staff: false,
          },
        };
      },
    );
  });
  describe('auth of PATCH and DELETE', () => {
    itChecksAuth(
      () => ctx,
      async () => {
        const { tenant, combination } = await joinedTables();
        return {
          tenant,
          route: {
            method: 'PATCH',
            url: `/v1/manage/combinations/${combination.id}`,
            payload: { name: 'Joined' },
            scope: 'write',
            staff: false,
          },
        };
      },
    );
    itChecksAuth(
      () => ctx,
      async () => {
        const { tenant, combination } = await joinedTables();
        return {
          tenant,
          route: {
            method: 'DELETE',
            url: `/v1/manage/combinations/${combination.id}`,
            scope: 'write',
            staff: false,
          },
        };
      },
    );
  });
});
