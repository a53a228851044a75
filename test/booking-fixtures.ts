import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { confirmationCode } from '../src/bookings/bookings.service.ts';
import type { PlaceBookingParams } from '../src/bookings/statements.model.ts';
import { rangeLiteral } from '../src/platform/sql.ts';
import { createTenant, type Tenant } from './helpers.ts';

/** `YYYY-MM-DD` a number of days from today (UTC). */
export function daysFromNow(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The next day, two days ahead at least, on which Central Europe's clocks change (the last Sunday
 * of March or October, at 01:00 UTC), and the zone's offset from UTC on its evening.
 */
export function nextCentralEuropeanClockChange(): { date: string; utcOffsetHours: number } {
  const earliest = Date.now() + 2 * 86_400_000;
  for (let year = new Date().getUTCFullYear(); ; year++) {
    for (const [month, utcOffsetHours] of [
      [2, 2],
      [9, 1],
    ] as const) {
      const last = new Date(Date.UTC(year, month + 1, 0));
      last.setUTCDate(last.getUTCDate() - last.getUTCDay());
      if (last.getTime() >= earliest) return { date: last.toISOString().slice(0, 10), utcOffsetHours };
    }
  }
}

export interface BookableBusiness {
  tenant: Tenant;
  /** Resource ids by name. */
  resources: Record<string, string>;
}

export interface BookableOptions {
  /** The business's name; `Bistro Race` when not given. */
  name?: string;
  settings?: Record<string, unknown>;
  /** A sandbox (`is_dev`) business. */
  sandbox?: boolean;
  /** What kind of venue it is ("restaurant", "salon"). */
  businessType?: string;
  /** Opening hours of every day of the week. */
  open?: string;
  close?: string;
  resources?: { name: string; capacity_min: number; capacity_max: number; section?: string }[];
}

/** A business open every day with a few tables: what booking tests start from. */
export async function setupBookable(
  app: FastifyInstance,
  options: BookableOptions = {},
): Promise<BookableBusiness> {
  const tenant = await createTenant(app, {
    name: options.name ?? 'Bistro Race',
    is_dev: options.sandbox,
    business_type: options.businessType,
  });
  if (options.settings) await send(app, tenant, 'PATCH', '/v1/manage/settings', options.settings);
  await send(
    app,
    tenant,
    'PUT',
    '/v1/manage/hours',
    [0, 1, 2, 3, 4, 5, 6].map((day) => ({
      day_of_week: day,
      is_open: true,
      open_time: options.open ?? '09:00',
      close_time: options.close ?? '17:00',
    })),
  );
  const resources: Record<string, string> = {};
  for (const resource of options.resources ?? [
    { name: 'T2', capacity_min: 1, capacity_max: 2 },
    { name: 'T4', capacity_min: 1, capacity_max: 4 },
    { name: 'T6', capacity_min: 2, capacity_max: 6 },
  ]) {
    resources[resource.name] = (await send(app, tenant, 'POST', '/v1/manage/resources', resource)).id;
  }
  return { tenant, resources };
}

let phoneCounter = 1000;
export function guest(overrides: Record<string, unknown> = {}) {
  phoneCounter++;
  return {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@example.com',
    phone: `+49 30 555 ${phoneCounter}`,
    ...overrides,
  };
}

/** The day booking tests book on: a week ahead, inside the default booking window. */
export const BOOKING_DAY = daysFromNow(7);

/** `POST /v1/bookings` for two at noon on BOOKING_DAY with a fresh guest; `body` overrides any field. */
export function postBooking(
  app: FastifyInstance,
  biz: BookableBusiness,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = biz.tenant.headers,
) {
  return app.inject({
    method: 'POST',
    url: '/v1/bookings',
    headers,
    payload: {
      business_id: biz.tenant.businessId,
      booking_date: BOOKING_DAY,
      start_time: '12:00',
      capacity: 2,
      ...guest(),
      ...body,
    },
  });
}

/** `postBooking` that must succeed; answers the booking. */
export async function bookOk(
  app: FastifyInstance,
  biz: BookableBusiness,
  body: Record<string, unknown> = {},
) {
  const response = await postBooking(app, biz, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().booking;
}

/**
 * What the booking statement is sent for a staff booking of two for an hour from `start` (an
 * instant on BOOKING_DAY), on the first of `candidates` that is free (a resource, or a set of
 * resources held together): Grace Hopper, confirmed.
 */
export function staffPlacement(
  biz: BookableBusiness,
  candidates: (string | string[])[],
  start: number,
): PlaceBookingParams {
  const hour = 3_600_000;
  return {
    id: randomUUID(),
    business_id: biz.tenant.businessId,
    service_id: null,
    booking_date: BOOKING_DAY,
    start_time: '12:00',
    end_time: '13:00',
    duration_minutes: 60,
    starts_at: new Date(start).toISOString(),
    ends_at: new Date(start + hour).toISOString(),
    during: rangeLiteral(start, start + hour),
    status: 'confirmed',
    capacity: 2,
    source: 'staff',
    customer_notes: null,
    guest_first_name: 'Grace',
    guest_last_name: 'Hopper',
    guest_email: null,
    customer: {
      first_name: 'Grace',
      last_name: 'Hopper',
      phone: '+49 30 5550100',
      phone_normalized: '+49305550100',
      email: null,
    },
    trusted: true,
    candidates: candidates.map((candidate) => (typeof candidate === 'string' ? [candidate] : candidate)),
    codes: Array.from({ length: 5 }, confirmationCode),
    actor: 'placement test',
    action: 'booking.created_by_staff',
  };
}

/** For `assert.rejects`: the database raised `code`, its DETAIL the JSON of `detail`. */
export const raisedWith = (code: string, detail: object) => (error: { code?: string; detail?: string }) => {
  assert.equal(error.code, code);
  assert.deepEqual(JSON.parse(error.detail ?? 'null'), detail);
  return true;
};

/** A call of `tenant`'s that must succeed (a status below 300): its answer's body, parsed. */
export async function send(
  app: FastifyInstance,
  tenant: Tenant,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  const response = await app.inject({
    method,
    url,
    headers: tenant.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.body ? response.json() : null;
}

/**
 * A booking of the manage detail as every other answer and event shows it: without the guest's
 * allergies and tags, which the host stand alone reads beside a booking.
 */
export function withoutGuestProfile<T extends { customer: Record<string, unknown> }>(booking: T): T {
  const { allergies: _allergies, tags: _tags, ...customer } = booking.customer;
  return { ...booking, customer };
}
