import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { createTenant, itChecksAuth, type Tenant, useTestApp } from '../../test/helpers.ts';
import { loadHours } from './hours.queries.ts';

const ctx = useTestApp();

interface Row {
  day_of_week: number;
  is_open: boolean;
  open_time?: string | null;
  close_time?: string | null;
  last_booking_time?: string | null;
}

const closed = (day: number) => ({
  day_of_week: day,
  is_open: false,
  open_time: null,
  close_time: null,
  last_booking_time: null,
});
const open = (
  day: number,
  open_time: string,
  close_time: string,
  last_booking_time: string | null = null,
) => ({
  day_of_week: day,
  is_open: true,
  open_time,
  close_time,
  last_booking_time,
});
const CLOSED_WEEK = [0, 1, 2, 3, 4, 5, 6].map(closed);
/** Closed Monday, late on Friday and Saturday. */
const WEEK: Row[] = [
  open(0, '12:00', '22:00'),
  closed(1),
  open(2, '17:00', '23:00', '21:30'),
  open(3, '17:00', '23:00'),
  open(4, '17:00', '23:00'),
  open(5, '17:00', '00:30', '23:00'),
  open(6, '17:00', '00:30'),
];

const call = (tenant: Tenant, method: InjectOptions['method'], payload?: unknown) =>
  ctx.app.inject({
    method,
    url: '/v1/manage/hours',
    headers: tenant.headers,
    payload: payload as InjectOptions['payload'],
  });

const withRow = (index: number, row: Record<string, unknown>) =>
  WEEK.map((r, i) => (i === index ? { ...r, ...row } : r));

describe('GET /v1/manage/hours', () => {
  describe('200', () => {
    it('answers seven closed days for a new business', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'GET');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), CLOSED_WEEK);
    });

    it('fills days without a stored row as closed, in day order', async () => {
      const tenant = await createTenant(ctx.app);
      await ctx.database.db
        .insertInto('operating_hours')
        .values({
          business_id: tenant.businessId,
          day_of_week: 3,
          is_open: true,
          open_time: '09:00:00',
          close_time: '17:00:00',
          last_booking_time: null,
        })
        .execute();
      const expected = CLOSED_WEEK.map((row) => (row.day_of_week === 3 ? open(3, '09:00', '17:00') : row));
      assert.deepEqual((await call(tenant, 'GET')).json(), expected);
    });
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'GET', url: '/v1/manage/hours', scope: 'read', staff: true }),
    });
  });
});

describe('PUT /v1/manage/hours', () => {
  describe('200', () => {
    it('replaces the week from a bare array, answers the seven rows and audits settings.hours_updated', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await call(tenant, 'PUT', WEEK);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), WEEK);
      assert.deepEqual((await call(tenant, 'GET')).json(), WEEK);
      const audit = await ctx.app.inject({
        method: 'GET',
        url: '/v1/manage/audit-logs',
        headers: tenant.headers,
      });
      const [entry] = audit.json().items;
      assert.equal(entry.action, 'settings.hours_updated');
      assert.deepEqual(entry.before_state, { hours: CLOSED_WEEK });
      assert.deepEqual(entry.after_state, { hours: WEEK });
    });

    it('takes {hours:[...]}, rows in any order, seconds, and drops times of closed days', async () => {
      const tenant = await createTenant(ctx.app);
      await call(tenant, 'PUT', WEEK);
      const shuffled = [...CLOSED_WEEK]
        .reverse()
        .map((row) =>
          row.day_of_week === 2
            ? open(2, '08:00:00', '12:00:00', '11:00:00')
            : { ...row, open_time: '10:00', close_time: '11:00' },
        );
      const response = await call(tenant, 'PUT', { hours: shuffled });
      assert.equal(response.statusCode, 200, response.body);
      const expected = CLOSED_WEEK.map((row) =>
        row.day_of_week === 2 ? open(2, '08:00', '12:00', '11:00') : row,
      );
      assert.deepEqual(response.json(), expected);
      const stored = await loadHours(ctx.database.db, tenant.businessId);
      assert.equal(stored.length, 7);
      assert.deepEqual(
        stored.map((row) => row.day_of_week),
        [0, 1, 2, 3, 4, 5, 6],
      );
    });

    it('allows a window past midnight with the last start on either side of it, and a full day', async () => {
      const tenant = await createTenant(ctx.app);
      for (const last of ['23:59', '00:00', '00:30', '18:00']) {
        const response = await call(tenant, 'PUT', withRow(6, { last_booking_time: last }));
        assert.equal(response.statusCode, 200, `${last}: ${response.body}`);
      }
      const fullDay = await call(tenant, 'PUT', withRow(3, { open_time: '00:00', close_time: '00:00' }));
      assert.equal(fullDay.statusCode, 200, fullDay.body);
    });

    it("keeps each business's hours apart", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      await call(tenant, 'PUT', WEEK);
      assert.deepEqual((await call(other, 'GET')).json(), CLOSED_WEEK);
    });
  });

  describe('422', () => {
    const cases: [string, unknown, string][] = [
      ['six rows', WEEK.slice(0, 6), 'hours'],
      ['eight rows', [...WEEK, closed(0)], 'hours'],
      ['a day twice', withRow(1, { day_of_week: 0 }), 'hours[1].day_of_week'],
      ['day 7', withRow(1, { day_of_week: 7 }), 'hours[1].day_of_week'],
      ['an open day without open_time', withRow(2, { open_time: null }), 'hours[2].open_time'],
      ['an open day without close_time', withRow(2, { close_time: undefined }), 'hours[2].close_time'],
      ['a malformed time', withRow(2, { open_time: '25:00' }), 'hours[2].open_time'],
      ['a time without minutes', withRow(2, { close_time: '23' }), 'hours[2].close_time'],
      [
        'a last booking before opening',
        withRow(2, { last_booking_time: '16:00' }),
        'hours[2].last_booking_time',
      ],
      [
        'a last booking after closing',
        withRow(2, { last_booking_time: '23:30' }),
        'hours[2].last_booking_time',
      ],
      [
        'a last booking outside an overnight window',
        withRow(5, { last_booking_time: '01:00' }),
        'hours[5].last_booking_time',
      ],
      ['a missing is_open', withRow(0, { is_open: undefined }), 'hours[0].is_open'],
      ['a text is_open', withRow(0, { is_open: 'yes' }), 'hours[0].is_open'],
      ['an unknown row field', withRow(0, { note: 'x' }), 'hours[0].note'],
      ['an unknown wrapper field', { hours: WEEK, timezone: 'UTC' }, 'timezone'],
      ['a wrapper without hours', { days: WEEK }, 'hours'],
      ['rows that are not objects', [1, 2, 3, 4, 5, 6, 7], 'hours[0]'],
    ];
    for (const [label, body, field] of cases) {
      it(`rejects ${label}, naming ${field}, and keeps the stored week`, async () => {
        const tenant = await createTenant(ctx.app);
        await call(tenant, 'PUT', WEEK);
        const response = await call(tenant, 'PUT', body);
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.code, 'validation_error');
        assert.ok(
          response.json().error.fields.some((f: { field: string }) => f.field === field),
          response.body,
        );
        assert.deepEqual((await call(tenant, 'GET')).json(), WEEK);
      });
    }
  });

  describe('auth', () => {
    itChecksAuth(() => ctx, {
      route: () => ({ method: 'PUT', url: '/v1/manage/hours', payload: WEEK, scope: 'write', staff: false }),
    });
  });
});
