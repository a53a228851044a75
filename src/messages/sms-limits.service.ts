import {
  type CountryCode,
  isSupportedCountry,
  type NumberType,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';
import { entitlementAt, quotaMonth } from '../billing/plans.rules.ts';
import { subscriptionOf } from '../billing/subscription.queries.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { WithheldClass } from '../schema.ts';
import { businessCountry, smsCountriesOf } from '../settings/country.rules.ts';
import { SendFailure, Withheld } from './outbox-sender.jobs.ts';
import { loadSmsRules, markSmsCounted, raiseSmsCounter, type SmsCounter } from './sms-limits.queries.ts';

/** SMS one number may get a day, from all businesses together. */
export const SMS_PER_NUMBER_PER_DAY = 3;

/** The owner of the counters that span the whole service: a number's. */
const WHOLE_SERVICE = '00000000-0000-0000-0000-000000000000';

/**
 * Types never texted: a premium-rate or shared-cost number bills the sender more and pays its
 * owner (SMS pumping), and a personal number forwards to anywhere. A number whose type the
 * metadata cannot tell (undefined) is refused as well.
 */
const REFUSED_TYPES: ReadonlySet<NumberType> = new Set(['PREMIUM_RATE', 'SHARED_COST', 'PERSONAL_NUMBER']);

/**
 * The number a phone reaches, in E.164, read as the business's country would dial it (so
 * `030 1234567` of a German business is `+49301234567`), or why it is not texted: its country is
 * not one the business texts (`sms_country`; also a number of no country, such as `+882`), or its
 * type is refused or unknown (`sms_number_type`, also for a number that is not valid where it is).
 * libphonenumber-js with its full metadata (`max`), which tells the number types.
 */
export function smsDestination(
  phone: string,
  country: string | null,
  smsCountries: readonly string[],
): { number: string } | { withheld: 'sms_country' | 'sms_number_type' } {
  const home = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(phone, home);
  if (!parsed?.country || !smsCountries.includes(parsed.country)) return { withheld: 'sms_country' };
  const type = parsed.getType();
  if (type === undefined || REFUSED_TYPES.has(type)) return { withheld: 'sms_number_type' };
  return { number: parsed.number };
}

/**
 * Where an SMS of the business may go, counted in the limits it is sent under; throws `Withheld`
 * with the class of the first rule that holds it back. The one place SMS cost is bounded, decided
 * by the sender just before it sends (docs/api-behaviour.md, "Message settings, reminders, SMS and
 * the messages list"):
 * - only to numbers of the business's `sms_countries`, of no refused or unknown type;
 * - at most 3 a day to one number, whichever businesses text it (a number cannot be bombed by
 *   booking at many venues), and `sms_per_day` a day per business, that setting bounded by
 *   `maxPerBusinessPerDay` too (`sms_daily_cap`);
 * - within the plan's SMS of the calendar month, counted across the developer's businesses as the
 *   booking quota is (`sms_allowance_used`).
 * Days and months are UTC, as the booking quota's: the caps bound cost, and one clock for every
 * counter keeps a number's day the same whichever business texts it.
 * The counters are raised in one transaction, in one order (number, business, developer), each
 * only below its cap; one that is not raised rolls the others back. An SMS already counted (a try
 * after a failure) goes to the number it was counted for without counting again.
 */
export async function admitSms(
  db: Db,
  message: { id: string; business_id: string | null; to_address: string; sms_to: string | null },
  now: number,
  maxPerBusinessPerDay: number,
): Promise<string> {
  if (message.sms_to) return message.sms_to;
  const businessId = message.business_id;
  if (!businessId) throw new SendFailure('business_gone', true);
  return withTx(db, async (tx) => {
    const rules = await loadSmsRules(tx, businessId);
    if (!rules) throw new SendFailure('business_gone', true);
    const country = businessCountry(rules.country, rules.timezone);
    const destination = smsDestination(
      message.to_address,
      country,
      smsCountriesOf(rules.sms_countries, country),
    );
    if ('withheld' in destination) throw new Withheld(destination.withheld);
    const day = new Date(now).toISOString().slice(0, 10);
    const limits: [SmsCounter, WithheldClass][] = [
      [
        {
          scope: 'number',
          owner: WHOLE_SERVICE,
          number: destination.number,
          period: day,
          cap: SMS_PER_NUMBER_PER_DAY,
        },
        'sms_daily_cap',
      ],
      [
        {
          scope: 'business',
          owner: businessId,
          number: '',
          period: day,
          cap: Math.min(rules.sms_per_day, maxPerBusinessPerDay),
        },
        'sms_daily_cap',
      ],
      [
        {
          scope: 'developer',
          owner: rules.developer_id,
          number: '',
          period: quotaMonth(now),
          cap: entitlementAt(subscriptionOf(rules), now).plan.monthlySms,
        },
        'sms_allowance_used',
      ],
    ];
    for (const [counter, withheld] of limits) {
      if (counter.cap < 1 || !(await raiseSmsCounter(tx, counter))) throw new Withheld(withheld);
    }
    await markSmsCounted(tx, message.id, destination.number);
    return destination.number;
  });
}
