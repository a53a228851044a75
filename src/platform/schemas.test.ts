import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { type BookableBusiness, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

/** Years the database refuses (0), or that its time-zone arithmetic fails on, and the first years outside 1900-2999. */
const OUT_OF_RANGE_DATES = ['0000-01-01', '0001-01-01', '1899-12-31', '3000-01-01', '9999-12-31'];

function assertNamesField(response: LightMyRequestResponse, field: string, what: string): void {
  assert.equal(response.statusCode, 422, `${what}: ${response.body}`);
  const { error } = response.json();
  assert.equal(error.code, 'validation_error', what);
  assert.deepEqual(new Set(error.fields.map((f: { field: string }) => f.field)), new Set([field]), what);
  assert.ok(
    error.fields.some((f: { message: string }) => f.message === 'must be in the years 1900-2999'),
    `${what}: ${response.body}`,
  );
}

/** Every way a date reaches the service: JSON bodies and query strings, public and managed. */
function dateInputs(biz: BookableBusiness, date: string) {
  const { businessId } = biz.tenant;
  const calls: { field: string; request: InjectOptions }[] = [
    {
      field: 'preferred_date',
      request: {
        method: 'POST',
        url: `/v1/waitlist/${businessId}`,
        payload: {
          customer: { first_name: 'Anna', last_name: 'Meyer', phone: '+49 30 1234 567' },
          preferred_date: date,
        },
      },
    },
    {
      field: 'preferred_date',
      request: {
        method: 'GET',
        url: `/v1/manage/waitlist?preferred_date=${date}`,
        headers: biz.tenant.headers,
      },
    },
    {
      field: 'start_date',
      request: {
        method: 'POST',
        url: '/v1/manage/blackout-dates',
        headers: biz.tenant.headers,
        payload: { start_date: date, end_date: '2030-01-02' },
      },
    },
    { field: 'date', request: { method: 'GET', url: `/v1/availability/${businessId}?date=${date}` } },
    {
      field: 'booking_date',
      request: {
        method: 'GET',
        url: `/v1/manage/availability?booking_date=${date}&capacity=2`,
        headers: biz.tenant.headers,
      },
    },
    {
      field: 'booking_date',
      request: {
        method: 'POST',
        url: '/v1/bookings',
        headers: biz.tenant.headers,
        payload: {
          business_id: businessId,
          booking_date: date,
          start_time: '12:00',
          capacity: 2,
          ...guest(),
        },
      },
    },
    {
      field: 'from_date',
      request: { method: 'GET', url: `/v1/manage/bookings?from_date=${date}`, headers: biz.tenant.headers },
    },
  ];
  return calls;
}

describe('dates (DateString)', () => {
  describe('422', () => {
    it('refuses years outside 1900-2999 in every body and query string, naming the field', async () => {
      const biz = await setupBookable(ctx.app);
      for (const date of OUT_OF_RANGE_DATES) {
        for (const { field, request } of dateInputs(biz, date)) {
          const response = await ctx.app.inject(request);
          assertNamesField(response, field, `${request.method} ${request.url} with ${date}`);
        }
      }
    });
  });

  describe('2xx', () => {
    it('accepts the first and the last year of the range', async () => {
      const biz = await setupBookable(ctx.app);
      for (const date of ['1900-01-01', '2999-12-31']) {
        for (const { request } of dateInputs(biz, date)) {
          const response = await ctx.app.inject(request);
          const refusedFields =
            response.statusCode === 422 && response.json().error.code === 'validation_error'
              ? response.json().error.fields
              : [];
          assert.ok(
            response.statusCode < 500,
            `${request.method} ${request.url} with ${date}: ${response.statusCode} ${response.body}`,
          );
          for (const row of refusedFields) {
            assert.doesNotMatch(row.message, /1900-2999/, `${request.url} refused ${date} by its year`);
          }
        }
      }
    });
  });
});

describe('timestamps (Timestamp)', () => {
  describe('422', () => {
    it('refuses a block starting in year 0000 or 9999, naming the field', async () => {
      const biz = await setupBookable(ctx.app);
      for (const start of ['0000-01-01T10:00:00Z', '9999-12-31T10:00:00Z']) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: `/v1/manage/resources/${biz.resources.T2}/blocks`,
          headers: biz.tenant.headers,
          payload: { start_at: start, end_at: '2030-01-01T12:00:00Z' },
        });
        assertNamesField(response, 'start_at', start);
      }
    });
  });
});
