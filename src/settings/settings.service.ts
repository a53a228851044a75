import { type AuditActor, changeAudited } from '../audit/audit.service.ts';
import { paymentDestination } from '../billing/connect.service.ts';
import { assertFeature, type Subscriber } from '../billing/subscription.service.ts';
import type { ProcessorName } from '../payments/processor.adapter.ts';
import type { Db, Executor, Tx } from '../platform/db.ts';
import { type FieldError, notFound, validationError } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import { reasonOrNull } from '../platform/schemas.ts';
import type { TurnTime } from '../schema.ts';
import { businessCountry, isCountryCode, smsCountriesOf } from './country.rules.ts';
import {
  type AllSettings,
  loadSettings,
  lockSettings,
  type SettingsRow,
  turnTimesInOrder,
  updateSettings,
} from './settings.queries.ts';
import { canonicalTimeZone } from './timezone.service.ts';

/** The settings as answered: a country and SMS countries not set read as what they follow. */
function answerOf(settings: AllSettings): AllSettings {
  const country = businessCountry(settings.country, settings.timezone);
  return { ...settings, country, sms_countries: smsCountriesOf(settings.sms_countries, country) };
}

export async function getSettings(executor: Executor, businessId: string): Promise<AllSettings> {
  const settings = await loadSettings(executor, businessId);
  if (!settings) throw notFound('business');
  return answerOf(settings);
}

/**
 * The rules a schema cannot state: a real zone and countries, SMS a day within the deployment's
 * ceiling, a capacity range that is not empty once merged, an online party limit inside it, and
 * turn times whose party ranges run upwards without overlapping.
 */
function checkSettings(
  patch: Partial<AllSettings>,
  merged: AllSettings,
  zoneKnown: boolean,
  smsMaxPerDay: number,
): void {
  const fields: FieldError[] = [];
  if (!zoneKnown) {
    fields.push({ field: 'timezone', message: 'is not an IANA time zone name such as Europe/Berlin' });
  }
  if (patch.country && !isCountryCode(patch.country.toUpperCase())) {
    fields.push({ field: 'country', message: 'is not an ISO 3166 alpha-2 country code such as DE' });
  }
  patch.sms_countries?.forEach((code, i) => {
    if (!isCountryCode(code.toUpperCase())) {
      fields.push({
        field: `sms_countries[${i}]`,
        message: 'is not an ISO 3166 alpha-2 country code such as DE',
      });
    }
  });
  if (patch.sms_per_day !== undefined && patch.sms_per_day > smsMaxPerDay) {
    fields.push({ field: 'sms_per_day', message: `must not exceed ${smsMaxPerDay} on this service` });
  }
  if (merged.min_capacity > merged.max_capacity) {
    fields.push(
      patch.min_capacity !== undefined
        ? { field: 'min_capacity', message: `must not exceed max_capacity (${merged.max_capacity})` }
        : { field: 'max_capacity', message: `must not be below min_capacity (${merged.min_capacity})` },
    );
  }
  const online = merged.max_online_party_size;
  if (online !== null && merged.min_capacity <= merged.max_capacity) {
    if (
      patch.max_online_party_size !== undefined &&
      (online < merged.min_capacity || online > merged.max_capacity)
    ) {
      fields.push({
        field: 'max_online_party_size',
        message: `must be between min_capacity (${merged.min_capacity}) and max_capacity (${merged.max_capacity}), or null to follow max_capacity`,
      });
    } else if (online > merged.max_capacity) {
      fields.push({
        field: 'max_capacity',
        message: `must not be below max_online_party_size (${online}): lower that too, or set it to null`,
      });
    } else if (online < merged.min_capacity) {
      fields.push({
        field: 'min_capacity',
        message: `must not exceed max_online_party_size (${online}): raise that too, or set it to null`,
      });
    }
  }
  if (patch.turn_times) fields.push(...turnTimeRefusals(patch.turn_times));
  if (fields.length) throw validationError(fields);
}

/** Each range runs upwards and none shares a party size with another; fields are named as sent, under `at`. */
export function turnTimeRefusals(turnTimes: readonly TurnTime[], at = 'turn_times'): FieldError[] {
  const fields: FieldError[] = [];
  turnTimes.forEach((range, i) => {
    if (range.min_party > range.max_party) {
      fields.push({
        field: `${at}[${i}].min_party`,
        message: `must not exceed max_party (${range.max_party})`,
      });
    }
  });
  const [first, ...rest] = turnTimes
    .map((range, i) => ({ range, i }))
    .sort((a, b) => a.range.min_party - b.range.min_party);
  // The range reaching highest so far is the one a later range can overlap.
  let reach = first;
  for (const next of rest) {
    if (reach && next.range.min_party <= reach.range.max_party) {
      fields.push({
        field: `${at}[${next.i}]`,
        message: `overlaps ${at}[${reach.i}] (parties ${reach.range.min_party}-${reach.range.max_party})`,
      });
    }
    if (!reach || next.range.max_party > reach.range.max_party) reach = next;
  }
  return fields;
}

/** Turn times as they are stored and answered: by party size. */
export const byPartySize = (turnTimes: readonly TurnTime[]) =>
  turnTimesInOrder(turnTimes).sort((a, b) => a.min_party - b.min_party);

const withoutId = ({ id: _, ...settings }: SettingsRow): AllSettings => answerOf(settings);

/** Country codes are stored in capitals, whatever case they were sent in; one sent twice is kept once. */
function withCountriesInCapitals(patch: Partial<AllSettings>): Partial<AllSettings> {
  if (patch.country) patch.country = patch.country.toUpperCase();
  if (patch.sms_countries)
    patch.sms_countries = [...new Set(patch.sms_countries.map((c) => c.toUpperCase()))];
  return patch;
}

/** Profile text with nothing but white space in it says nothing: stored as none, never shown as a blank. */
const PROFILE_TEXTS = ['description', 'address', 'booking_policy'] as const;
function withBlankTextsAsNull(input: Partial<AllSettings>): Partial<AllSettings> {
  const patch = { ...input };
  for (const field of PROFILE_TEXTS)
    if (patch[field] !== undefined) patch[field] = reasonOrNull(patch[field]);
  return patch;
}

export interface SettingsChange {
  input: Partial<AllSettings>;
  /** The processor a live business's deposits would go through. */
  paymentProcessor: ProcessorName | null;
  patch: Partial<SettingsRow>;
  /** Whether a time zone sent is one the database knows (true when none is sent). */
  zoneKnown: boolean;
  /** SMS_MAX_PER_BUSINESS_PER_DAY: the most `sms_per_day` may be. */
  smsMaxPerDay: number;
}

/**
 * Reads a settings change before its transaction: the time zone is looked up in the database
 * outside it, as a refused name would abort the transaction on PostgreSQL.
 */
export async function prepareSettingsChange(
  db: Db,
  input: Partial<AllSettings>,
  paymentProcessor: ProcessorName | null,
  smsMaxPerDay: number,
): Promise<SettingsChange> {
  const zone = input.timezone === undefined ? undefined : await canonicalTimeZone(db, input.timezone);
  const texts = withCountriesInCapitals(withBlankTextsAsNull(input));
  const patch: Partial<SettingsRow> = zone === undefined ? texts : { ...texts, timezone: zone };
  if (input.turn_times) patch.turn_times = byPartySize(input.turn_times);
  return {
    input,
    patch,
    zoneKnown: input.timezone === undefined || zone !== undefined,
    paymentProcessor,
    smsMaxPerDay,
  };
}

/**
 * Switching on what the plan does not carry is refused (402); a business that already has it
 * (its plan lapsed since) may keep the value and change everything else.
 */
function checkPlan(merged: SettingsRow, before: SettingsRow, subscriber: Subscriber, now: number): void {
  if (merged.booking_mode === 'dynamic' && before.booking_mode !== 'dynamic') {
    assertFeature(subscriber, 'dynamicMode', now);
  }
  if (merged.deposit_type === 'authorization_hold' && before.deposit_type !== 'authorization_hold') {
    assertFeature(subscriber, 'authorizationHolds', now);
  }
}

/** Deposits are switched on (or from one kind to the other) only with a payment account that can take charges. */
async function checkPaymentAccount(
  tx: Tx,
  merged: SettingsRow,
  before: SettingsRow,
  actor: AuditActor & Subscriber,
  processor: ProcessorName | null,
): Promise<void> {
  if (merged.deposit_type !== 'none' && merged.deposit_type !== before.deposit_type) {
    await paymentDestination(tx, actor.businessId, actor.sandbox, processor);
  }
}

/** Changes any subset of the settings. */
export function changeSettings(
  tx: Tx,
  actor: AuditActor & Subscriber,
  { input, patch, zoneKnown, paymentProcessor, smsMaxPerDay }: SettingsChange,
  now: number,
) {
  return changeAudited(tx, actor, {
    entityType: 'business',
    lock: () => lockSettings(tx, actor.businessId),
    patch,
    check: async (merged, before) => {
      checkPlan(merged, before, actor, now);
      checkSettings(input, merged, zoneKnown, smsMaxPerDay);
      await checkPaymentAccount(tx, merged, before, actor, paymentProcessor);
    },
    update: (changes) => updateSettings(tx, actor.businessId, changes),
    view: withoutId,
    action: 'settings.updated',
  });
}

/** A settings change: the time zone asked about first (outside the transaction), then the change. */
export async function reviseSettings<R>(
  db: Db,
  actor: AuditActor & Subscriber,
  input: Partial<AllSettings>,
  paymentProcessor: ProcessorName | null,
  smsMaxPerDay: number,
  now: number,
  commit: Commit<R>,
): Promise<R> {
  const change = await prepareSettingsChange(db, input, paymentProcessor, smsMaxPerDay);
  return commit((tx) => changeSettings(tx, actor, change, now));
}
