import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { setSubscription } from '../src/billing/subscription.service.ts';
import {
  type BookableBusiness,
  type BookableOptions,
  daysFromNow,
  guest,
  setupBookable,
} from './booking-fixtures.ts';
import { createTenant, eventually } from './helpers.ts';

/** The next last Sunday of March (Europe's spring-forward night) at least two days ahead. */
export function nextSpringForward(): string {
  const year = new Date().getUTCFullYear();
  for (const y of [year, year + 1]) {
    const last = new Date(Date.UTC(y, 2, 31));
    last.setUTCDate(31 - last.getUTCDay());
    if (last.getTime() > Date.now() + 2 * 86_400_000) return last.toISOString().slice(0, 10);
  }
  throw new Error('no spring-forward date ahead');
}

/** The day the dynamic tests book on. */
export const DAY = daysFromNow(7);

export const ONE_TABLE = { resources: [{ name: 'Only', capacity_min: 1, capacity_max: 4 }] };

export type Query = Record<string, string | number | undefined>;

/**
 * What the tests of dynamic mode (the point check and its bookings) call, on the app `app` gives
 * (a test file's, made in its \`before\`).
 */
export function dynamicFixtures(app: () => FastifyInstance) {
  /** A business open 09:00-17:00 every day with tables T2, T4, T6, booking in dynamic mode. */
  const setupDynamic = (options: BookableOptions = {}) =>
    setupBookable(app(), { ...options, settings: { booking_mode: 'dynamic', ...options.settings } });

  /** `GET /v1/dynamic/availability` for 10:07 on DAY; `query` overrides, `undefined` leaves a field out. */
  const startCheck = (biz: BookableBusiness, query: Query = {}, headers = biz.tenant.headers) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries({ booking_date: DAY, start_time: '10:07', ...query })) {
      if (value !== undefined) params.set(name, String(value));
    }
    return app().inject({
      method: 'GET',
      url: `/v1/dynamic/availability/${biz.tenant.businessId}?${params}`,
      headers,
    });
  };

  /** The answer of a start check that must succeed. */
  async function checkOk(biz: BookableBusiness, query: Query = {}) {
    const response = await startCheck(biz, query);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  const book = (biz: BookableBusiness, body: Record<string, unknown> = {}, headers = biz.tenant.headers) =>
    app().inject({
      method: 'POST',
      url: '/v1/dynamic/bookings',
      headers,
      payload: {
        business_id: biz.tenant.businessId,
        booking_date: DAY,
        start_time: '10:07',
        capacity: 2,
        ...guest(),
        ...body,
      },
    });

  async function bookOk(biz: BookableBusiness, body: Record<string, unknown> = {}) {
    const response = await book(biz, body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json().booking;
  }

  async function call(
    biz: BookableBusiness,
    method: 'POST' | 'PATCH' | 'PUT',
    url: string,
    payload: unknown,
  ) {
    const response = await app().inject({
      method,
      url,
      headers: biz.tenant.headers,
      payload: payload as object,
    });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  }

  const blackOut = (biz: BookableBusiness, date: string) =>
    call(biz, 'POST', '/v1/manage/blackout-dates', {
      start_date: date,
      end_date: date,
      reason: 'Private event',
    });

  /** The business's developer moves to the pro plan (no dynamic mode). */
  async function moveToPro(biz: BookableBusiness) {
    await setSubscription(app().db, app().changes, biz.tenant.developer.id, {
      status: 'active',
      planId: 'pro',
    });
    // A key verified before learns of the change from the change feed, a moment after the commit.
    await eventually(
      async () => (await startCheck(biz)).statusCode === 402,
      'the plan change to reach the key',
    );
  }

  /** A sandbox (`is_dev`) business in dynamic mode with one table, its developer on the free plan. */
  async function setupSandbox(): Promise<BookableBusiness> {
    const tenant = await createTenant(app(), { name: 'Sandbox Bistro', is_dev: true });
    await setSubscription(app().db, app().changes, tenant.developer.id, {
      status: 'active',
      planId: 'free',
    });
    const biz: BookableBusiness = { tenant, resources: {} };
    await call(biz, 'PATCH', '/v1/manage/settings', { booking_mode: 'dynamic' });
    await call(
      biz,
      'PUT',
      '/v1/manage/hours',
      [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        day_of_week: day,
        is_open: true,
        open_time: '09:00',
        close_time: '17:00',
      })),
    );
    biz.resources.Only = (
      await call(biz, 'POST', '/v1/manage/resources', { name: 'Only', capacity_min: 1, capacity_max: 4 })
    ).id;
    return biz;
  }

  return { setupDynamic, startCheck, checkOk, book, bookOk, call, blackOut, moveToPro, setupSandbox };
}
