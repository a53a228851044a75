import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { type BookableBusiness, setupBookable } from '../../test/booking-fixtures.ts';
import { itChecksAuth, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
/** A well-formed id no business has. */
const ID = '00000000-0000-4000-8000-000000000001';
const LUNCH = {
  name: 'Lunch',
  days_of_week: EVERY_DAY,
  start_time: '12:00',
  end_time: '14:30',
  slot_interval_minutes: 15,
};
const DINNER = { name: 'Dinner', days_of_week: EVERY_DAY, start_time: '18:00', end_time: '22:30' };

/** Open 11:00-23:00 every day, tables T2, T4, T6. */
const setup = () => setupBookable(ctx.app, { open: '11:00', close: '23:00' });

const call = (biz: BookableBusiness, method: InjectOptions['method'], payload?: unknown) =>
  ctx.app.inject({
    method,
    url: '/v1/manage/service-periods',
    headers: biz.tenant.headers,
    payload: payload as InjectOptions['payload'],
  });

const answered = (period: Record<string, unknown>) => ({
  last_start_time: null,
  slot_interval_minutes: null,
  turn_times: null,
  resource_ids: [],
  max_covers_per_slot: null,
  max_bookings_per_slot: null,
  ...period,
});

/** The answer's periods with their generated ids checked and dropped. */
function withoutIds(list: { id: string }[]) {
  for (const period of list) assert.match(period.id, /^[0-9a-f-]{36}$/);
  return list.map(({ id: _, ...rest }) => rest);
}

describe('GET /v1/manage/service-periods', () => {
  it('answers none for a new business', async () => {
    const biz = await setup();
    const response = await call(biz, 'GET');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), []);
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => ({
        tenant: (await setup()).tenant,
        route: { method: 'GET', url: '/v1/manage/service-periods', scope: 'read', staff: true },
      }),
    );
  });
});

describe('PUT /v1/manage/service-periods', () => {
  it('replaces every period from a bare array, answers them in order and audits settings.periods_updated', async () => {
    const biz = await setup();
    const response = await call(biz, 'PUT', [DINNER, LUNCH]);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(withoutIds(response.json()), [answered(DINNER), answered(LUNCH)]);
    assert.deepEqual((await call(biz, 'GET')).json(), response.json());
    const audit = await ctx.app.inject({
      method: 'GET',
      url: '/v1/manage/audit-logs',
      headers: biz.tenant.headers,
    });
    const [entry] = audit.json().items;
    assert.equal(entry.action, 'settings.periods_updated');
    assert.deepEqual(entry.before_state, { periods: [] });
    assert.deepEqual(entry.after_state, { periods: response.json() });
  });

  it('keeps ids it is given, takes {periods:[...]}, every optional field, and replaces what was there', async () => {
    const biz = await setup();
    const first = (await call(biz, 'PUT', [LUNCH, DINNER])).json();
    const terrace = {
      ...DINNER,
      id: first[1].id,
      days_of_week: [6, 5],
      end_time: '23:00',
      last_start_time: '21:00',
      slot_interval_minutes: 45,
      turn_times: [
        { min_party: 5, max_party: 6, duration_minutes: 150 },
        { min_party: 1, max_party: 4, duration_minutes: 90 },
      ],
      resource_ids: [biz.resources.T6, biz.resources.T4!.toUpperCase()],
      max_covers_per_slot: 1000,
      max_bookings_per_slot: 500,
    };
    const response = await call(biz, 'PUT', { periods: [terrace] });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), [
      {
        ...terrace,
        days_of_week: [5, 6],
        turn_times: [terrace.turn_times[1], terrace.turn_times[0]],
        resource_ids: [biz.resources.T6, biz.resources.T4],
      },
    ]);
    assert.deepEqual((await call(biz, 'PUT', [])).json(), []);
  });

  it('allows a period past midnight inside an overnight day, and one after its midnight', async () => {
    const biz = await setupBookable(ctx.app, { open: '18:00', close: '03:00' });
    const response = await call(biz, 'PUT', [
      { name: 'Late', days_of_week: [5], start_time: '22:00', end_time: '01:00' },
      { name: 'Night', days_of_week: [5], start_time: '01:00', end_time: '03:00' },
    ]);
    assert.equal(response.statusCode, 200, response.body);
  });

  it("keeps each business's periods apart", async () => {
    const biz = await setup();
    const other = await setup();
    await call(biz, 'PUT', [LUNCH]);
    assert.deepEqual((await call(other, 'GET')).json(), []);
    const foreign = await call(other, 'PUT', [{ ...LUNCH, resource_ids: [biz.resources.T2] }]);
    assert.equal(foreign.statusCode, 422, foreign.body);
    assert.equal((await call(biz, 'GET')).json().length, 1);
  });

  describe('422', () => {
    const cases: [
      label: string,
      body: (biz: BookableBusiness) => unknown,
      field: string,
      message?: RegExp,
    ][] = [
      ['an empty name', () => [{ ...LUNCH, name: '' }], 'periods[0].name'],
      ['a name of 61 characters', () => [{ ...LUNCH, name: 'x'.repeat(61) }], 'periods[0].name'],
      ['no weekday', () => [{ ...LUNCH, days_of_week: [] }], 'periods[0].days_of_week'],
      ['weekday 7', () => [{ ...LUNCH, days_of_week: [7] }], 'periods[0].days_of_week[0]'],
      ['a malformed time', () => [{ ...LUNCH, start_time: '12h' }], 'periods[0].start_time'],
      [
        'an interval of 10',
        () => [{ ...LUNCH, slot_interval_minutes: 10 }],
        'periods[0].slot_interval_minutes',
      ],
      ['an unknown field', () => [{ ...LUNCH, covers: 20 }], 'periods[0].covers'],
      ['a covers cap of 0', () => [{ ...LUNCH, max_covers_per_slot: 0 }], 'periods[0].max_covers_per_slot'],
      [
        'a covers cap of 1001',
        () => [{ ...LUNCH, max_covers_per_slot: 1001 }],
        'periods[0].max_covers_per_slot',
      ],
      [
        'a bookings cap of 0',
        () => [{ ...LUNCH, max_bookings_per_slot: 0 }],
        'periods[0].max_bookings_per_slot',
      ],
      [
        'a bookings cap of 501',
        () => [{ ...LUNCH, max_bookings_per_slot: 501 }],
        'periods[0].max_bookings_per_slot',
      ],
      [
        'a period outside the hours',
        () => [LUNCH, { ...DINNER, end_time: '23:30' }],
        'periods[1]',
        /"Dinner" lies outside the operating hours of Sunday/,
      ],
      [
        'a period starting before opening',
        () => [{ ...LUNCH, start_time: '10:30' }],
        'periods[0]',
        /"Lunch" lies outside the operating hours/,
      ],
      [
        'a period past midnight of a day closing at 23:00',
        () => [{ ...DINNER, end_time: '00:30' }],
        'periods[0]',
        /outside the operating hours/,
      ],
      [
        'two periods overlapping on one weekday',
        () => [LUNCH, { ...DINNER, days_of_week: [3], start_time: '14:00' }],
        'periods[1]',
        /"Dinner" overlaps "Lunch" \(periods\[0\]\) on Wednesday/,
      ],
      [
        'the same id twice',
        () => [
          { ...LUNCH, id: ID },
          { ...DINNER, id: ID },
        ],
        'periods[1].id',
      ],
      [
        'a last start outside the period',
        () => [{ ...LUNCH, last_start_time: '15:00' }],
        'periods[0].last_start_time',
      ],
      [
        'overlapping turn times',
        () => [
          {
            ...LUNCH,
            turn_times: [
              { min_party: 1, max_party: 4, duration_minutes: 60 },
              { min_party: 4, max_party: 6, duration_minutes: 90 },
            ],
          },
        ],
        'periods[0].turn_times[1]',
      ],
      ['an unknown resource', () => [{ ...LUNCH, resource_ids: [ID] }], 'periods[0].resource_ids'],
      [
        'an inactive resource',
        (biz) => [{ ...LUNCH, resource_ids: [biz.resources.INACTIVE] }],
        'periods[0].resource_ids',
      ],
    ];
    for (const [label, body, field, message] of cases) {
      it(`rejects ${label}, naming ${field}, and keeps the stored periods`, async () => {
        const biz = await setup();
        const inactive = await ctx.app.inject({
          method: 'POST',
          url: '/v1/manage/resources',
          headers: biz.tenant.headers,
          payload: { name: 'Old', capacity_min: 1, capacity_max: 2, is_active: false },
        });
        assert.equal(inactive.statusCode, 201, inactive.body);
        biz.resources.INACTIVE = inactive.json().id;
        await call(biz, 'PUT', [LUNCH]);
        const stored = (await call(biz, 'GET')).json();
        const response = await call(biz, 'PUT', body(biz));
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(response.json().error.code, 'validation_error');
        const named = response.json().error.fields.find((f: { field: string }) => f.field === field);
        assert.ok(named, response.body);
        if (message) assert.match(named.message, message);
        assert.deepEqual((await call(biz, 'GET')).json(), stored);
      });
    }

    it('rejects a period on a closed weekday', async () => {
      const biz = await setup();
      const week = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        is_open: day !== 1,
        open_time: '11:00',
        close_time: '23:00',
      }));
      await ctx.app.inject({
        method: 'PUT',
        url: '/v1/manage/hours',
        headers: biz.tenant.headers,
        payload: week,
      });
      const response = await call(biz, 'PUT', [LUNCH]);
      assert.equal(response.statusCode, 422, response.body);
      assert.match(
        response.json().error.fields[0].message,
        /"Lunch" falls on Monday, when the business is closed/,
      );
    });
  });

  describe('auth', () => {
    itChecksAuth(
      () => ctx,
      async () => ({
        tenant: (await setup()).tenant,
        route: {
          method: 'PUT',
          url: '/v1/manage/service-periods',
          payload: [LUNCH],
          scope: 'write',
          staff: false,
        },
      }),
    );
  });
});
