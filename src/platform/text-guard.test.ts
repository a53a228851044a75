import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createTenant, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp({}, (app) => {
  app.post('/test/echo', async (request) => ({ echoed: request.body ?? null }));
});

const NUL = '\u0000';
const MESSAGE = 'must not contain NUL characters';

function assertRefused(response: LightMyRequestResponse, fields: string[]): void {
  assert.equal(response.statusCode, 422, response.body);
  const { error } = response.json();
  assert.equal(error.code, 'validation_error');
  assert.deepEqual(
    error.fields.map((f: { field: string }) => f.field),
    fields,
  );
  for (const row of error.fields) assert.equal(row.message, MESSAGE);
}

async function count(table: 'customers' | 'resources' | 'waitlist_entries'): Promise<number> {
  const row = await ctx.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('NUL characters', () => {
  describe('422', () => {
    it('refuses one in a JSON body field, naming it by its path, and writes nothing', async () => {
      const tenant = await createTenant(ctx.app);
      const waitlisted = await ctx.app.inject({
        method: 'POST',
        url: `/v1/waitlist/${tenant.businessId}`,
        payload: {
          customer: { first_name: `An${NUL}na`, last_name: 'Meyer', phone: '+49 30 1234 567' },
          preferred_date: null,
        },
      });
      assertRefused(waitlisted, ['customer.first_name']);
      const resource = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/resources',
        headers: tenant.headers,
        payload: { name: `Table${NUL}`, capacity_min: 1, capacity_max: 4 },
      });
      assertRefused(resource, ['name']);
      assert.equal(await count('customers'), 0);
      assert.equal(await count('waitlist_entries'), 0);
      assert.equal(await count('resources'), 0);
    });

    it('names every field that holds one, in arrays and object keys too, at any depth', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        payload: {
          hours: [{ open_time: '09:00' }, {}, { open_time: `09${NUL}00`, close: ['x', NUL] }],
          deep: { er: { still: [[`a${NUL}`]] } },
          [`key${NUL}`]: 'value',
        },
      });
      assertRefused(response, [
        'hours[2].open_time',
        'hours[2].close[1]',
        'deep.er.still[0][0]',
        `key${NUL}`,
      ]);
    });

    it('refuses one in a body that is a bare array or a bare string', async () => {
      assertRefused(
        await ctx.app.inject({ method: 'POST', url: '/test/echo', payload: [{ a: 'ok' }, { a: NUL }] }),
        ['[1].a'],
      );
      assertRefused(
        await ctx.app.inject({
          method: 'POST',
          url: '/test/echo',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(NUL),
        }),
        ['body'],
      );
    });

    it('refuses %00 in a query string', async () => {
      const tenant = await createTenant(ctx.app);
      const calls: [InjectOptions, string][] = [
        [{ method: 'GET', url: '/v1/manage/customers?search=Ann%00a', headers: tenant.headers }, 'search'],
        [{ method: 'GET', url: '/v1/manage/bookings?code=AB%00', headers: tenant.headers }, 'code'],
        [{ method: 'GET', url: `/v1/availability/${tenant.businessId}?view=slots%00` }, 'view'],
      ];
      for (const [request, field] of calls) assertRefused(await ctx.app.inject(request), [field]);
    });
  });

  describe('404', () => {
    it('answers a path parameter holding one like any path that names nothing', async () => {
      const tenant = await createTenant(ctx.app);
      for (const url of ['/v1/public/business/chez%00test', `/v1/manage/resources/${tenant.businessId}%00`]) {
        const response = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
        assert.equal(response.statusCode, 404, `${url}: ${response.body}`);
        assert.equal(response.json().error.code, 'not_found');
      }
    });
  });

  describe('2xx', () => {
    it('lets other text through untouched, control characters and escapes included', async () => {
      const body = { name: 'Tab\there, line\nbreak, \\0 and \u0001', list: ['é', '😀'], n: 1, ok: true };
      const response = await ctx.app.inject({ method: 'POST', url: '/test/echo', payload: body });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { echoed: body });
    });
  });
});
