import { Type } from 'typebox';
import {
  CustomerSummary,
  GuestSchema,
  toCustomerSummary,
  toGuestView,
} from '../customers/entry-customer.view.ts';
import { DateString, hhmm, Nullable, TimeString, Timestamp, Uuid } from '../platform/schemas.ts';
import type { EntryRow } from './waitlist.queries.ts';

export const WaitlistEntryView = Type.Object({
  id: Uuid,
  customer: CustomerSummary,
  guest: GuestSchema,
  preferred_date: Nullable(DateString),
  service_id: Nullable(Uuid),
  capacity: Type.Integer({ format: 'int32' }),
  notes: Nullable(Type.String()),
  preferred_time_from: Nullable(TimeString),
  preferred_time_to: Nullable(TimeString),
  position: Type.Integer({
    format: 'int32',
    description: '1-based among the entries of the same preferred date',
  }),
  offered_at: Nullable(Timestamp),
  booked_booking_id: Nullable(Uuid),
  created_at: Timestamp,
});

export const toEntryView = (row: EntryRow) => ({
  id: row.id,
  customer: toCustomerSummary(row),
  guest: toGuestView(row),
  preferred_date: row.preferred_date,
  service_id: row.service_id,
  capacity: row.capacity,
  notes: row.notes,
  preferred_time_from: row.preferred_time_from && hhmm(row.preferred_time_from),
  preferred_time_to: row.preferred_time_to && hhmm(row.preferred_time_to),
  position: row.position,
  offered_at: row.offered_at?.toISOString() ?? null,
  booked_booking_id: row.booked_booking_id,
  created_at: row.created_at.toISOString(),
});
