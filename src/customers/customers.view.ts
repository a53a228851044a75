import { Type } from 'typebox';
import { DateString, Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import { MessageFields } from '../settings/settings.view.ts';
import type { CustomerRow } from './customers.queries.ts';

export const MAX_TAGS = 20;

/**
 * What the staff keep about a guest, as they send and read it. Never in an answer to a caller
 * without a secret credential, nor in a message to the guest.
 */
export const ProfileFields = {
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '\\S' }), {
    maxItems: MAX_TAGS,
    uniqueItems: true,
    description: `free labels (vip, regular), at most ${MAX_TAGS}; a list filters by one with \`tag\``,
  }),
  allergies: Nullable(
    Type.String({ maxLength: 500, description: 'shown first wherever the guest is seated' }),
  ),
  staff_notes: Nullable(
    Type.String({ maxLength: 2000, description: 'the staff’s notes, never shown to the guest' }),
  ),
  preferred_language: Nullable({
    ...MessageFields.notification_language,
    description: 'the language of the guest’s messages, else the business’s',
  }),
};

/** A customer on the wire, in the list and in the detail. */
export const CustomerView = Type.Object({
  id: Uuid,
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  email: Nullable(Type.String()),
  ...ProfileFields,
  marketing_opt_in: Type.Boolean({ description: 'set only by the guest’s own action online' }),
  visits: Type.Integer({
    format: 'int32',
    description: 'bookings the guest came to: checked in or completed',
  }),
  no_shows: Type.Integer({ format: 'int32' }),
  cancellations: Type.Integer({ format: 'int32' }),
  last_visit: Nullable(DateString),
  total_covers: Type.Integer({ format: 'int32', description: 'party sizes of the visits, summed' }),
  erased_at: Nullable({
    ...Timestamp,
    description: 'when the guest’s personal data was erased; lists leave such profiles out',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export type CustomerListItem = ReturnType<typeof toCustomerView>;

export const toCustomerView = (row: CustomerRow) => ({
  ...row,
  visits: Number(row.visits ?? 0),
  no_shows: Number(row.no_shows ?? 0),
  cancellations: Number(row.cancellations ?? 0),
  total_covers: Number(row.total_covers ?? 0),
  erased_at: row.erased_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/**
 * What the staff may change of a profile: the guest's names and email, and what they keep about
 * the guest. Not the phone, which matches the guest's later bookings (two profiles of one guest
 * are merged instead), nor a marketing consent, which only the guest gives: staff may only
 * withdraw it, at the guest's word.
 */
export const ProfilePatch = Type.Object(
  {
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    tags: Type.Optional(ProfileFields.tags),
    allergies: Type.Optional(ProfileFields.allergies),
    staff_notes: Type.Optional(ProfileFields.staff_notes),
    preferred_language: Type.Optional(ProfileFields.preferred_language),
    marketing_opt_in: Type.Optional(
      Type.Literal(false, { description: 'only withdrawn by staff, never given' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
