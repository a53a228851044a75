import { Type } from 'typebox';
import { Nullable, Uuid } from '../platform/schemas.ts';

// How a customer shows on a booking or a waitlist entry: the record the entry belongs to (matched
// by phone) and, apart from it, the names given with that one entry.

const HOST_ONLY =
  "the guest's profile, in the manage list and detail of bookings only: never in an event's payload or the answer to a change";

/** The customer a booking or waitlist entry belongs to, as it shows inside them. */
export const CustomerSummary = Type.Object({
  id: Uuid,
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  email: Nullable(Type.String()),
  allergies: Type.Optional(Nullable(Type.String({ description: HOST_ONLY }))),
  tags: Type.Optional(Type.Array(Type.String(), { description: HOST_ONLY })),
});

/**
 * The name and email given with one booking or waitlist entry. The customer, matched by phone,
 * may carry other ones: a caller without a trusted credential cannot change a returning
 * customer's record, and a record moves on with later bookings.
 */
export const GuestSchema = Nullable(
  Type.Object(
    {
      first_name: Type.String(),
      last_name: Type.String(),
      email: Nullable(Type.String()),
      phone: Type.Optional(
        Type.String({ description: 'the phone as sent; only in the answer to the call that sent it' }),
      ),
    },
    { description: 'the name and email given with this one; null on entries made before they were kept' },
  ),
);

export interface GuestNames {
  guest_first_name: string;
  guest_last_name: string;
  guest_email: string | null;
}

/**
 * An email address as it is stored: trimmed, and a blank one is none, so that "the guest's address,
 * else the customer's" is a plain coalesce wherever it is read (messages, reminders, offers).
 */
export const storedEmail = (email: string | null | undefined): string | null => email?.trim() || null;

export const guestNamesOf = (input: {
  first_name: string;
  last_name: string;
  email?: string | null;
}): GuestNames => ({
  guest_first_name: input.first_name,
  guest_last_name: input.last_name,
  guest_email: storedEmail(input.email),
});

export const toGuestView = (row: {
  guest_first_name: string | null;
  guest_last_name: string | null;
  guest_email: string | null;
}) =>
  row.guest_first_name === null
    ? null
    : { first_name: row.guest_first_name, last_name: row.guest_last_name ?? '', email: row.guest_email };

/** The columns of `customers as c` that `toCustomerSummary` reads, selected beside an entry's own. */
export const CUSTOMER_SUMMARY_COLUMNS = [
  'c.first_name as customer_first_name',
  'c.last_name as customer_last_name',
  'c.phone as customer_phone',
  'c.email as customer_email',
] as const;

export const toCustomerSummary = (row: {
  customer_id: string;
  customer_first_name: string;
  customer_last_name: string;
  customer_phone: string;
  customer_email: string | null;
}) => ({
  id: row.customer_id,
  first_name: row.customer_first_name,
  last_name: row.customer_last_name,
  phone: row.customer_phone,
  email: row.customer_email,
});
