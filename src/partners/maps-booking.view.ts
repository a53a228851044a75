/**
 * The messages of the Maps Booking v3 booking server as JSON carries them (maps-booking-v3.proto
 * holds the spec's definitions; docs/partners.md names the pages): field names in snake_case
 * (lowerCamelCase is accepted too: `snakeKeys`), int64 values as strings (numbers accepted), enums
 * by name. Requests are checked for the fields this server reads; fields it does not read, such as
 * a payment's, are let through as a proto3 parser lets unknown fields through.
 */
import { type Static, Type } from 'typebox';
import { AppError } from '../platform/errors.ts';
import { PartySize, PhoneString } from '../platform/schemas.ts';

/** Seconds since the epoch or a length in seconds: int64, a string of digits in proto3 JSON. */
const Int64 = Type.Union([
  Type.String({ pattern: '^[0-9]{1,12}$', maxLength: 12 }),
  Type.Integer({ format: 'int64', minimum: 0, maximum: 999_999_999_999 }),
]);
const Id = Type.String({ minLength: 1, maxLength: 200 });

const ResourceIds = Type.Object({
  staff_id: Type.Optional(Type.String({ maxLength: 200 })),
  room_id: Type.Optional(Type.String({ maxLength: 200 })),
  party_size: Type.Optional(PartySize()),
});

const ConfirmationMode = Type.String({ maxLength: 60 });

const SlotFields = {
  merchant_id: Id,
  service_id: Id,
  start_sec: Int64,
  duration_sec: Type.Optional(Int64),
  availability_tag: Type.Optional(Type.String({ maxLength: 500 })),
  resources: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(ConfirmationMode),
};
const Slot = Type.Object(SlotFields);
export type SlotIn = Static<typeof Slot>;

const SlotTime = Type.Object({
  service_id: Id,
  start_sec: Int64,
  duration_sec: Type.Optional(Int64),
  availability_tag: Type.Optional(Type.String({ maxLength: 500 })),
  resource_ids: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(ConfirmationMode),
});
export type SlotTimeIn = Static<typeof SlotTime>;

const UserInformation = Type.Object({
  user_id: Type.Optional(Type.String({ maxLength: 200 })),
  given_name: Type.Optional(Type.String({ maxLength: 100 })),
  family_name: Type.Optional(Type.String({ maxLength: 100 })),
  telephone: Type.Optional(PhoneString),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  language_code: Type.Optional(Type.String({ maxLength: 35 })),
});
export type UserInformationIn = Static<typeof UserInformation>;

/** The most slot times one BatchAvailabilityLookup may ask: each is a question to the engine. */
export const MAX_SLOT_TIMES = 1000;

export const BatchAvailabilityLookupRequest = Type.Object({
  merchant_id: Id,
  slot_time: Type.Array(SlotTime, { maxItems: MAX_SLOT_TIMES }),
});

export const CheckAvailabilityRequest = Type.Object({ slot: Slot });

export const CreateBookingRequest = Type.Object({
  slot: Slot,
  user_information: UserInformation,
  idempotency_token: Type.String({ minLength: 1, maxLength: 200 }),
  additional_request: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type CreateBookingRequest = Static<typeof CreateBookingRequest>;

export const UpdateBookingRequest = Type.Object({
  booking: Type.Object({
    booking_id: Id,
    slot: Type.Optional(Type.Partial(Type.Object(SlotFields))),
    status: Type.Optional(Type.String({ maxLength: 60 })),
  }),
});
export type UpdateBookingRequest = Static<typeof UpdateBookingRequest>;

export const GetBookingStatusRequest = Type.Object({ booking_id: Id });
export const ListBookingsRequest = Type.Object({ user_id: Type.String({ maxLength: 200 }) });

export type V3BookingStatus =
  | 'CONFIRMED'
  | 'PENDING_MERCHANT_CONFIRMATION'
  | 'CANCELED'
  | 'NO_SHOW'
  | 'NO_SHOW_PENALIZED'
  | 'FAILED'
  | 'DECLINED_BY_MERCHANT';

export type BookingFailureCause =
  | 'SLOT_UNAVAILABLE'
  | 'SLOT_ALREADY_BOOKED_BY_USER'
  | 'OUTSIDE_CANCELLATION_WINDOW'
  | 'PAYMENT_ERROR'
  | 'BOOKING_ALREADY_CANCELLED'
  | 'BOOKING_NOT_CANCELLABLE';

/** The spec's Booking as this server answers it. */
export interface V3Booking {
  booking_id: string;
  slot: {
    merchant_id: string;
    service_id: string;
    start_sec: string;
    duration_sec: string;
    resources: { party_size: number };
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS';
  };
  user_information: {
    user_id?: string;
    given_name: string;
    family_name: string;
    telephone?: string;
    email?: string;
  };
  status: V3BookingStatus;
  payment_information: { prepayment_status: 'PREPAYMENT_NOT_PROVIDED' };
}

/** `merchantId` -> `merchant_id`: a lowerCamelCase field name as proto3 JSON also spells it. */
const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Deeper than any message of the spec nests (a slot's resources sit at depth 4). */
const MAX_DEPTH = 16;

/**
 * A request body with every field named in snake_case, as proto3 JSON parsers accept either
 * spelling; a field sent in both spellings keeps the snake_case one. A body nested deeper than any
 * message is refused (400) before it is walked.
 */
export function snakeKeys(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) throw new AppError('bad_request', `the body nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item, depth + 1));
  const renamed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = snakeCase(key);
    if (name !== key && Object.hasOwn(value, name)) continue;
    renamed[name] = snakeKeys(field, depth + 1);
  }
  return renamed;
}
