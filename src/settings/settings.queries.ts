import { sql } from 'kysely';
import type { TimeFormat } from '../engine/clock.ts';
import type { Db, Executor } from '../platform/db.ts';
import type { NotificationLanguage, TurnTime } from '../schema.ts';

export type BookingMode = 'scheduled' | 'dynamic';
export type DepositType = 'none' | 'charge' | 'authorization_hold';

/** A business's booking rules: the columns of `businesses` from `timezone` on. */
export interface BusinessSettings {
  timezone: string;
  /** Null: the language's clock (`hourCycleOf`). */
  time_format: TimeFormat | null;
  default_slot_interval_minutes: number;
  default_slot_duration_minutes: number;
  booking_window_days: number;
  min_notice_hours: number;
  min_capacity: number;
  max_capacity: number;
  auto_confirm_bookings: boolean;
  default_deposit_amount_cents: number;
  booking_mode: BookingMode;
  buffer_minutes: number;
  deposit_type: DepositType;
  payment_hold_minutes: number;
  cancellation_cutoff_hours: number;
  guest_change_cutoff_hours: number;
  public_bookings_per_ip_per_hour: number;
  /** Null: follows max_capacity. */
  max_online_party_size: number | null;
  guest_data_retention_months: number | null;
  turn_times: TurnTime[];
}

/** What a guest sees of the venue: the columns of `businesses` from `description` on; null where it gave nothing. */
export interface BusinessProfile {
  description: string | null;
  address: string | null;
  phone: string | null;
  public_email: string | null;
  website: string | null;
  logo_url: string | null;
  booking_policy: string | null;
}

/** How the business tells its guests and itself: the columns of `businesses` from `notification_language` on. */
export interface MessageSettings {
  notification_language: NotificationLanguage;
  guest_emails_enabled: boolean;
  sms_enabled: boolean;
  /** 0: no reminder. */
  reminder_hours_before: number;
  /** Null: the venue is not told. */
  venue_notification_email: string | null;
  waitlist_offer_minutes: number;
  /**
   * ISO 3166 alpha-2 as set; null: the time zone's country (`businessCountry`). Shown beside the
   * time zone, but read with the messages' settings: only the SMS rules read phones in it.
   */
  country: string | null;
  /** The countries whose numbers may be texted, as set; null: the business's country alone (`smsCountriesOf`). */
  sms_countries: string[] | null;
  /** SMS a day; SMS_MAX_PER_BUSINESS_PER_DAY bounds it too. */
  sms_per_day: number;
}

/** Everything the settings routes read and write. */
export type AllSettings = BusinessSettings & BusinessProfile & MessageSettings;

export type SettingsRow = AllSettings & { id: string };

export const SETTINGS_COLUMNS = [
  'timezone',
  'time_format',
  'default_slot_interval_minutes',
  'default_slot_duration_minutes',
  'booking_window_days',
  'min_notice_hours',
  'min_capacity',
  'max_capacity',
  'auto_confirm_bookings',
  'default_deposit_amount_cents',
  'booking_mode',
  'buffer_minutes',
  'deposit_type',
  'payment_hold_minutes',
  'cancellation_cutoff_hours',
  'guest_change_cutoff_hours',
  'public_bookings_per_ip_per_hour',
  'max_online_party_size',
  'guest_data_retention_months',
  'turn_times',
] as const;

export const PROFILE_COLUMNS = [
  'description',
  'address',
  'phone',
  'public_email',
  'website',
  'logo_url',
  'booking_policy',
] as const;

export const MESSAGE_COLUMNS = [
  'notification_language',
  'guest_emails_enabled',
  'sms_enabled',
  'reminder_hours_before',
  'venue_notification_email',
  'waitlist_offer_minutes',
  'country',
  'sms_countries',
  'sms_per_day',
] as const;

const ALL_SETTINGS_COLUMNS = [...SETTINGS_COLUMNS, ...PROFILE_COLUMNS, ...MESSAGE_COLUMNS] as const;

/**
 * Turn times with their keys in the API's order: jsonb keeps its own, and a change is told from
 * the stored value by comparing JSON text.
 */
export const turnTimesInOrder = (turnTimes: readonly TurnTime[]): TurnTime[] =>
  turnTimes.map(({ min_party, max_party, duration_minutes }) => ({ min_party, max_party, duration_minutes }));

const readRow = <Row extends { turn_times: TurnTime[] }>(row: Row | undefined) =>
  row && { ...row, turn_times: turnTimesInOrder(row.turn_times) };

/** The settings of a business, or undefined when no such business exists. */
export async function loadSettings(executor: Executor, businessId: string) {
  return readRow(
    (await executor
      .selectFrom('businesses')
      .select(ALL_SETTINGS_COLUMNS)
      .where('id', '=', businessId)
      .executeTakeFirst()) as AllSettings | undefined,
  );
}

/** The settings with the business's id, locked for the rest of the transaction. */
export async function lockSettings(executor: Executor, businessId: string) {
  return readRow(
    (await executor
      .selectFrom('businesses')
      .select(['id', ...ALL_SETTINGS_COLUMNS])
      .where('id', '=', businessId)
      .forUpdate()
      .executeTakeFirst()) as SettingsRow | undefined,
  );
}

export async function updateSettings(
  executor: Executor,
  businessId: string,
  { turn_times, ...changes }: Partial<SettingsRow>,
) {
  return readRow(
    (await executor
      .updateTable('businesses')
      .set(turn_times === undefined ? changes : { ...changes, turn_times: JSON.stringify(turn_times) })
      .where('id', '=', businessId)
      .returning(['id', ...ALL_SETTINGS_COLUMNS])
      .executeTakeFirstOrThrow()) as SettingsRow,
  )!;
}

const PG_INVALID_PARAMETER_VALUE = '22023';

/**
 * How the database's zone data spell a time zone name, or undefined when they do not know it.
 * Setting the zone is PostgreSQL's own lookup: it finds the name whatever its case and answers
 * the data's spelling (`europe/berlin` -> `Europe/Berlin`). Run on `db`, never in a transaction:
 * the setting is local to the transaction, which here is this one statement, and on PostgreSQL
 * a refusal would abort the transaction it happens in.
 */
export async function databaseZoneSpelling(db: Db, name: string): Promise<string | undefined> {
  try {
    const { rows } = await sql<{
      zone: string;
    }>`SELECT set_config('TimeZone', ${name}, true) AS zone`.execute(db);
    return rows[0]?.zone;
  } catch (error) {
    if ((error as { code?: unknown }).code === PG_INVALID_PARAMETER_VALUE) return undefined;
    throw error;
  }
}
