import { Type } from 'typebox';
import { CustomerSummary, GuestSchema, toCustomerSummary, toGuestView } from '../customers/entry-customer.ts';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { EntryRow } from './waitlist.queries.ts';

export const WaitlistEntryView = Type.Object({
  id: Uuid,
  customer: CustomerSummary,
  guest: GuestSchema,
  preferred_date: Nullable(DateString),
  service_id: Nullable(Uuid),
  capacity: Type.Integer(),
  notes: Nullable(Type.String()),
  position: Type.Integer({ description: '1-based among the entries of the same preferred date' }),
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
  position: row.position,
  created_at: row.created_at.toISOString(),
});
