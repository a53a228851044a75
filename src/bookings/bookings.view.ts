import { Type } from 'typebox';
import {
  CUSTOMER_SUMMARY_COLUMNS,
  CustomerSummary,
  GuestSchema,
  toCustomerSummary,
  toGuestView,
} from '../customers/entry-customer.ts';
import type { Executor } from '../platform/db.ts';
import { DateString, hhmm, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';

/** The one shape of a booking on the wire, in create, list, detail and change responses. */
export const BookingSchema = Type.Object({
  id: Uuid,
  business_id: Uuid,
  status: Type.String(),
  confirmation_code: Type.String(),
  booking_date: DateString,
  start_time: Type.String(),
  end_time: Type.String(),
  duration_minutes: Type.Integer(),
  capacity: Type.Integer(),
  source: Type.String(),
  resource_id: Uuid,
  service_id: Nullable(Uuid),
  customer_id: Uuid,
  customer: CustomerSummary,
  guest: GuestSchema,
  resource: Type.Object({
    id: Uuid,
    name: Type.String(),
    capacity_max: Type.Integer(),
    section: Nullable(Type.String()),
  }),
  customer_notes: Nullable(Type.String()),
  staff_notes: Nullable(Type.String()),
  starts_at: Timestamp,
  ends_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** Bookings joined with their customer and resource, ready for `toBookingView`. */
export function selectBookingRows(executor: Executor) {
  return executor
    .selectFrom('bookings as b')
    .innerJoin('customers as c', 'c.id', 'b.customer_id')
    .innerJoin('resources as r', 'r.id', 'b.resource_id')
    .select([
      'b.id',
      'b.business_id',
      'b.status',
      'b.confirmation_code',
      'b.booking_date',
      'b.start_time',
      'b.end_time',
      'b.duration_minutes',
      'b.capacity',
      'b.source',
      'b.resource_id',
      'b.service_id',
      'b.customer_id',
      'b.customer_notes',
      'b.staff_notes',
      'b.guest_first_name',
      'b.guest_last_name',
      'b.guest_email',
      'b.starts_at',
      'b.ends_at',
      'b.created_at',
      'b.updated_at',
      ...CUSTOMER_SUMMARY_COLUMNS,
      'r.name as resource_name',
      'r.capacity_max as resource_capacity_max',
      'r.section as resource_section',
    ]);
}

export type BookingRow = Awaited<ReturnType<ReturnType<typeof selectBookingRows>['executeTakeFirstOrThrow']>>;

export function toBookingView(row: BookingRow) {
  return {
    id: row.id,
    business_id: row.business_id,
    status: row.status,
    confirmation_code: row.confirmation_code,
    booking_date: row.booking_date,
    start_time: hhmm(row.start_time),
    end_time: hhmm(row.end_time),
    duration_minutes: row.duration_minutes,
    capacity: row.capacity,
    source: row.source,
    resource_id: row.resource_id,
    service_id: row.service_id,
    customer_id: row.customer_id,
    customer: toCustomerSummary(row),
    guest: toGuestView(row),
    resource: {
      id: row.resource_id,
      name: row.resource_name,
      capacity_max: row.resource_capacity_max,
      section: row.resource_section,
    },
    customer_notes: row.customer_notes,
    staff_notes: row.staff_notes,
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type BookingView = ReturnType<typeof toBookingView>;
