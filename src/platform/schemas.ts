import { type Static, type TNumberOptions, type TSchema, type TStringOptions, Type } from 'typebox';
import { PARTY_SIZE_MAX } from '../engine/party.ts';

/** Shared TypeBox pieces: one definition of each wire format. */
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });
/**
 * Years 1900-2999: PostgreSQL refuses year 0, and time-zone arithmetic fails near the ends of its
 * range, so a date far outside what a booking needs is the client's mistake, refused up front.
 */
export const BOUNDED_YEAR = '^(19[0-9]{2}|2[0-9]{3})-';
export const DateString = Type.String({
  format: 'date',
  maxLength: 10,
  pattern: BOUNDED_YEAR,
  description: 'YYYY-MM-DD, years 1900-2999',
});
export const TimeString = Type.String({
  maxLength: 8,
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
  description: 'HH:MM (24-hour)',
});
/** The longest date-time with an offset: nanoseconds and `+hh:mm` (`2026-01-31T09:30:00.123456789+05:30`). */
export const Timestamp = Type.String({
  format: 'date-time',
  maxLength: 35,
  pattern: BOUNDED_YEAR,
  description: 'ISO 8601 with an offset, years 1900-2999',
});
/**
 * `T` or null. A plain-typed schema becomes `type: [T, 'null']` rather than `anyOf`: with type
 * coercion on, Ajv would otherwise coerce a null into the first branch (`""`, `0`) before trying null.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const type = (schema as { type?: unknown }).type;
  const plain = typeof type === 'string' && !('const' in schema) && !('enum' in schema);
  return Type.Unsafe<Static<T> | null>(
    plain ? { ...schema, type: [type, 'null'] } : Type.Union([schema, Type.Null()]),
  );
};

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      fields: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
    detail: Type.Optional(Type.String()),
  },
  {
    $id: 'Error',
    description: 'Error: `{error:{code,message,fields?}}`; a few refusals add the same text as `detail`',
  },
);

/**
 * `schema` with `value` as its example, shown in the API reference and generated clients; the
 * value is type-checked against the schema here, and validated by the OpenAPI test.
 */
export const example = <T extends TSchema>(schema: T, value: Static<T>): T =>
  Object.assign(schema, { examples: [value] });

/**
 * The error body by reference: registered once (`app.addSchema(ErrorBody)`), so the reference
 * names it `Error` and generated clients get one error type.
 */
const ErrorRef = Type.Unsafe<Static<typeof ErrorBody>>({ $ref: 'Error' });

/** Error statuses of a route, each answered with the one error body. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorRef> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorRef]));
}

export const IdParams = <K extends string>(name: K) =>
  Type.Object({ [name]: Uuid } as { [P in K]: typeof Uuid }, { additionalProperties: false });

/**
 * A phone number: 7 to 15 digits (the most a number has) once spaces, dashes, dots, brackets and a
 * leading `+` are set aside; anything else is refused. Returning customers and guests are matched
 * on its digits, so a phone without enough of them would match others that lack them too. Each
 * repetition starts with a digit, so checking any input takes time in proportion to its length.
 */
export const PHONE_PATTERN = '^(\\s*\\+)?[\\s.()-]*(\\d[\\s.()-]*){7,15}$';
export const PHONE_RULE = 'must hold 7 to 15 digits (spaces, dashes, dots, brackets and a leading + aside)';
export const PhoneString = Type.String({
  maxLength: 20,
  pattern: PHONE_PATTERN,
  description: '7 to 15 digits; spaces, dashes, dots, brackets and a leading `+` may come between',
});

/**
 * An https URL with a dotted host name (a page or image a guest's browser loads: plain http would
 * be blocked or flagged on an https page). Each repetition starts with a dot, so checking any input
 * takes time in proportion to its length.
 */
export const HTTPS_URL_PATTERN = '^https://[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+(:\\d{1,5})?([/?#]\\S*)?$';
export const HTTPS_URL_RULE = 'must be an https URL such as https://example.com/page';
export const HttpsUrl = (description: string) =>
  Type.String({ maxLength: 2000, pattern: HTTPS_URL_PATTERN, description: `${description}; https only` });

/** A number of guests: from 1 to the largest party anything takes. */
export const PartySize = (options: TNumberOptions = {}) =>
  Type.Integer({ format: 'int32', minimum: 1, maximum: PARTY_SIZE_MAX, ...options });

/** A name or label: at least one character that is not white space (`"   "` names nothing). */
export const NON_BLANK = '\\S';
/**
 * A name: at least one character that is not white space (so not empty either). Add no
 * `minLength: 1`, or an empty string is reported twice.
 */
export const NonBlankString = (options: TStringOptions = {}) =>
  Type.String({ ...options, pattern: NON_BLANK });

/**
 * A free-text reason with nothing but white space in it says nothing: it is stored as no reason
 * (null), as a form's empty field means, rather than shown publicly as a blank.
 */
export const reasonOrNull = (reason: string | null | undefined): string | null =>
  reason?.trim() ? reason : null;

/** `HH:MM:SS` from the database -> `HH:MM` on the wire. */
export const hhmm = (time: string) => time.slice(0, 5);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_RE.test(value);
