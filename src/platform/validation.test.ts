import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { type BookableBusiness, daysFromNow, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { createTenant, type Tenant, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const table = { name: 'Table 1', capacity_min: 2, capacity_max: 4 };

const call = (tenant: Tenant, method: InjectOptions['method'], url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as InjectOptions['payload'] });

/** Answers 422 `validation_error` naming exactly `fields`. */
async function assertRefused(response: Awaited<ReturnType<typeof call>>, fields: string[]) {
  assert.equal(response.statusCode, 422, response.body);
  const { error } = response.json();
  assert.equal(error.code, 'validation_error');
  assert.deepEqual(error.fields.map((f: { field: string }) => f.field).sort(), [...fields].sort());
}

async function resourceCount(tenant: Tenant): Promise<number> {
  const response = await call(tenant, 'GET', '/v1/manage/resources');
  assert.equal(response.statusCode, 200, response.body);
  return response.json().items.length;
}

async function book(biz: BookableBusiness, body: Record<string, unknown> = {}) {
  return call(biz.tenant, 'POST', '/v1/bookings', {
    business_id: biz.tenant.businessId,
    booking_date: daysFromNow(7),
    start_time: '12:00',
    capacity: 2,
    ...guest(),
    ...body,
  });
}

describe('JSON request bodies', () => {
  describe('422', () => {
    it('refuses a number for a string field instead of storing it as text', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(await call(tenant, 'POST', '/v1/manage/resources', { ...table, name: 123 }), [
        'name',
      ]);
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/resources', { ...table, resource_type: 42, section: 7 }),
        ['resource_type', 'section'],
      );
      assert.equal(await resourceCount(tenant), 0);
    });

    it('refuses a numeric string for an integer field', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/resources', {
          ...table,
          capacity_min: '5',
          capacity_max: '6',
        }),
        ['capacity_min', 'capacity_max'],
      );
      const biz = await setupBookable(ctx.app);
      await assertRefused(await book(biz, { capacity: '2' }), ['capacity']);
    });

    it('refuses "true" and 1 for a boolean field', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/resources', { ...table, is_active: 'true' }),
        ['is_active'],
      );
      await assertRefused(await call(tenant, 'POST', '/v1/manage/resources', { ...table, is_active: 1 }), [
        'is_active',
      ]);
      assert.equal(await resourceCount(tenant), 0);
    });

    it('refuses a single value where a list is expected', async () => {
      const tenant = await createTenant(ctx.app);
      const resourceId = (await call(tenant, 'POST', '/v1/manage/resources', table)).json().id;
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/services', {
          name: 'Dinner',
          duration_minutes: 90,
          resource_ids: resourceId,
        }),
        ['resource_ids'],
      );
    });

    it('refuses null where a field is not nullable', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/resources', { ...table, name: null, capacity_min: null }),
        ['name', 'capacity_min'],
      );
    });

    it('refuses unknown fields', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(await call(tenant, 'POST', '/v1/manage/resources', { ...table, colour: 'red' }), [
        'colour',
      ]);
      assert.equal(await resourceCount(tenant), 0);
    });

    it('checks formats: dates that do not exist, malformed emails', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(
        await call(tenant, 'POST', '/v1/manage/blackout-dates', {
          start_date: '2030-02-30',
          end_date: '2030-03-01',
        }),
        ['start_date'],
      );
      const biz = await setupBookable(ctx.app);
      await assertRefused(await book(biz, { email: 'not-an-email' }), ['email']);
    });
  });

  describe('201', () => {
    it('accepts JSON null where a field is nullable, and the right types everywhere', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'POST', '/v1/manage/resources', {
        ...table,
        resource_type: null,
        section: null,
        is_active: false,
        display_order: 3,
      });
      assert.equal(response.statusCode, 201, response.body);
      const created = response.json();
      assert.equal(created.resource_type, null);
      assert.equal(created.section, null);
      assert.equal(created.is_active, false);
      assert.equal(created.display_order, 3);
      assert.equal(created.capacity_min, 2);
    });

    it('fills in body defaults', async () => {
      const biz = await setupBookable(ctx.app);
      const { capacity: _omitted, ...withoutCapacity } = {
        business_id: biz.tenant.businessId,
        booking_date: daysFromNow(7),
        start_time: '12:00',
        capacity: 2,
        ...guest(),
      };
      const response = await call(biz.tenant, 'POST', '/v1/bookings', withoutCapacity);
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().booking.capacity, 1);
    });
  });
});

describe('query strings', () => {
  describe('200', () => {
    it('reads ?limit=5 as a number', async () => {
      const tenant = await createTenant(ctx.app);
      for (let n = 1; n <= 6; n++) {
        const response = await call(tenant, 'POST', '/v1/manage/resources', { ...table, name: `Table ${n}` });
        assert.equal(response.statusCode, 201, response.body);
      }
      const page = await call(tenant, 'GET', '/v1/manage/resources?limit=5');
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.json().items.length, 5);
      assert.equal(page.json().has_more, true);
    });

    it('reads ?latest=true as a boolean', async () => {
      const biz = await setupBookable(ctx.app);
      // Booked second for a later day: newest-created first is the reverse of date order.
      const first = await book(biz, { booking_date: daysFromNow(7) });
      const second = await book(biz, { booking_date: daysFromNow(8) });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(second.statusCode, 201, second.body);
      const ids = async (query: string) => {
        const response = await call(biz.tenant, 'GET', `/v1/manage/bookings${query}`);
        assert.equal(response.statusCode, 200, response.body);
        return response.json().items.map((b: { id: string }) => b.id);
      };
      assert.deepEqual(await ids('?latest=true&limit=5'), [
        second.json().booking.id,
        first.json().booking.id,
      ]);
      assert.deepEqual(
        await ids('?latest=false'),
        [second.json().booking.id, first.json().booking.id].reverse(),
      );
    });
  });

  describe('422', () => {
    it('refuses values that are not of the type, and unknown parameters', async () => {
      const tenant = await createTenant(ctx.app);
      await assertRefused(await call(tenant, 'GET', '/v1/manage/resources?limit=five'), ['limit']);
      await assertRefused(await call(tenant, 'GET', '/v1/manage/bookings?latest=maybe'), ['latest']);
      await assertRefused(await call(tenant, 'GET', '/v1/manage/bookings?from_date=2030-02-30'), [
        'from_date',
      ]);
      await assertRefused(await call(tenant, 'GET', '/v1/manage/resources?colour=red'), ['colour']);
    });
  });
});
