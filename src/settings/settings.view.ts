/** The wire shapes of a business's settings, shared by the settings routes, the periods' and the public page's. */
import { Type } from 'typebox';
import { TIME_FORMATS, type TimeFormat } from '../engine/clock.ts';
import { HttpsUrl, Nullable, PartySize, PhoneString } from '../platform/schemas.ts';
import { NOTIFICATION_LANGUAGES, type NotificationLanguage } from '../schema.ts';

/** An ISO 3166 alpha-2 code as a client may send it, in either case. */
const COUNTRY_CODE = { pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2 } as const;

const int = (minimum: number, maximum: number, description: string) =>
  Type.Integer({ format: 'int32', minimum, maximum, description });

const bookingLength = (description: string) => int(15, 360, description);

export const SettingsFields = {
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'IANA time zone name (e.g. Europe/Berlin), stored as the zone data spell it; every date and time of the business is wall-clock time there',
  }),
  time_format: Nullable(
    Type.Unsafe<TimeFormat>({
      type: 'string',
      enum: [...TIME_FORMATS],
      description:
        "how times read to guests and staff (the booking page, widgets, messages, the dashboard): '24h' or '12h'; null: the language's clock, 12-hour for English and 24-hour for the others",
    }),
  ),
  country: Nullable(
    Type.String({
      ...COUNTRY_CODE,
      description:
        "ISO 3166 alpha-2 country of the business (answered in capitals): national phone numbers are read in it. Until set it is the time zone's country, and follows the time zone; null in a change goes back to that (null in the answer: the time zone has no country, such as UTC)",
    }),
  ),
  default_slot_interval_minutes: int(15, 120, 'gap between slot starts'),
  default_slot_duration_minutes: bookingLength('booking length'),
  booking_window_days: int(1, 365, 'how far ahead bookings are accepted'),
  min_notice_hours: int(0, 168, 'minimum notice before a booking starts'),
  min_capacity: int(1, 20, 'smallest party size'),
  max_capacity: PartySize({ description: 'largest party size' }),
  auto_confirm_bookings: Type.Boolean({
    description: 'public bookings without deposit are confirmed at once',
  }),
  default_deposit_amount_cents: int(5, 500, 'deposit per person, EUR cents'),
  booking_mode: Type.Union([Type.Literal('scheduled'), Type.Literal('dynamic')]),
  buffer_minutes: int(0, 240, 'kept free after each booking on the same resource'),
  deposit_type: Type.Union([
    Type.Literal('none'),
    Type.Literal('charge'),
    Type.Literal('authorization_hold'),
  ]),
  payment_hold_minutes: int(
    5,
    1440,
    'how long a public booking waits for its deposit before it is cancelled',
  ),
  cancellation_cutoff_hours: int(
    0,
    720,
    'guests may cancel their own booking until this many hours before it starts (0: until it starts)',
  ),
  guest_change_cutoff_hours: int(
    0,
    720,
    "guests may change their own booking's time or party until this many hours before it starts (0: until it starts)",
  ),
  public_bookings_per_ip_per_hour: int(
    1,
    1000,
    'online bookings one client IP may make per hour with a publishable key (the hosted page, a widget)',
  ),
  max_online_party_size: Nullable(
    PartySize({
      description:
        'the largest party that may book online (the hosted page, a widget, the public and dynamic API; staff are not limited), between min_capacity and max_capacity; null: max_capacity',
    }),
  ),
  guest_data_retention_months: Nullable(
    int(
      1,
      120,
      'guests with no booking starting within this many months (and no change to their profile for as long) are erased by a job; null keeps them',
    ),
  ),
  turn_times: Type.Array(
    Type.Object(
      {
        min_party: PartySize({ description: 'smallest party of the range' }),
        max_party: PartySize({ description: 'largest party of the range' }),
        duration_minutes: bookingLength('booking length for these parties'),
      },
      { additionalProperties: false },
    ),
    {
      maxItems: 50,
      description:
        'booking length by party size, ranges not overlapping, answered sorted by min_party: a booking without a service lasts the turn time of its party size, else default_slot_duration_minutes',
    },
  ),
};

/** What a guest sees of the venue; null where it gives nothing. */
export const ProfileFields = {
  description: Nullable(Type.String({ maxLength: 2000, description: 'the venue in its own words' })),
  address: Nullable(Type.String({ maxLength: 300 })),
  phone: Nullable(PhoneString),
  public_email: Nullable(
    Type.String({ format: 'email', maxLength: 254, description: "guests' email to the venue" }),
  ),
  website: Nullable(HttpsUrl("the venue's website")),
  logo_url: Nullable(HttpsUrl("the venue's logo image")),
  booking_policy: Nullable(
    Type.String({
      maxLength: 2000,
      description: "cancellation, deposit and lateness terms in the venue's words",
    }),
  ),
};

/** How the business tells its guests and itself (docs/api-behaviour.md, "Guest messages"). */
export const MessageFields = {
  notification_language: Type.Unsafe<NotificationLanguage>({
    type: 'string',
    enum: [...NOTIFICATION_LANGUAGES],
    description: 'the language of every message to guests and to the venue',
  }),
  guest_emails_enabled: Type.Boolean({
    description: 'guests who gave an email are emailed about their booking',
  }),
  sms_enabled: Type.Boolean({ description: 'guests who gave a phone get an SMS confirmation and reminder' }),
  reminder_hours_before: int(0, 168, 'hours before the start a guest is reminded; 0: no reminder'),
  venue_notification_email: Nullable(
    Type.String({
      format: 'email',
      maxLength: 254,
      description: 'told of each new online booking and each guest cancellation; null: nobody',
    }),
  ),
  waitlist_offer_minutes: int(5, 1440, "how long a waitlist offer's booking link stays valid"),
  sms_countries: Nullable(
    Type.Array(Type.String(COUNTRY_CODE), {
      maxItems: 50,
      description:
        'ISO 3166 alpha-2 countries whose phone numbers may be texted; an SMS to any other number is withheld (`sms_country`). Until set: `[country]`; null in a change goes back to that',
    }),
  ),
  sms_per_day: int(
    0,
    1_000_000,
    'SMS the business sends a day (UTC), at most SMS_MAX_PER_BUSINESS_PER_DAY (default 1000); past it an SMS is withheld (`sms_daily_cap`)',
  ),
};
