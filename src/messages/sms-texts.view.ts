import { clockFields, hourCycleOf, type TimeFormat } from '../engine/clock.ts';
import type { NotificationLanguage } from '../schema.ts';

/** The messages told by SMS; the others go by email only. */
export type SmsType = 'booking_confirmed' | 'booking_reminder';

export const SMS_TYPES: readonly SmsType[] = ['booking_confirmed', 'booking_reminder'];

/** One SMS segment: a text longer than this would reach the guest in parts, or be charged as several. */
export const SMS_MAX_CHARS = 160;

/** What each language calls the message, the party and the confirmation code. */
const WORDS: Record<NotificationLanguage, Record<SmsType, string> & { party: string; code: string }> = {
  en: { booking_confirmed: 'confirmed', booking_reminder: 'reminder', party: 'ppl', code: 'Code' },
  de: { booking_confirmed: 'bestätigt', booking_reminder: 'Erinnerung', party: 'Pers.', code: 'Code' },
  fr: { booking_confirmed: 'confirmé', booking_reminder: 'rappel', party: 'pers.', code: 'Code' },
  nl: { booking_confirmed: 'bevestigd', booking_reminder: 'herinnering', party: 'pers.', code: 'Code' },
  es: { booking_confirmed: 'confirmada', booking_reminder: 'recordatorio', party: 'pers.', code: 'Código' },
};

/** Below this many characters for the venue's name, the code gives way: the link carries it too. */
const MIN_VENUE_CHARS = 16;

export interface SmsBooking {
  type: SmsType;
  language: NotificationLanguage;
  venueName: string;
  timezone: string;
  /** The venue's clock (`hourCycleOf`), read in the message's language. */
  timeFormat: TimeFormat | null;
  startsAt: string;
  party: number;
  code: string;
  /** The guest's page of the booking: `${PUBLIC_BASE_URL}/book/{slug}?manage=CODE`. */
  link: string;
}

/** `28 Mar, 19:00` or `Mar 28, 7:00 PM` in the language's own words and order, at the venue's wall clock. */
function when({ language, timezone, timeFormat, startsAt }: SmsBooking): string {
  return new Intl.DateTimeFormat(language, {
    timeZone: timezone,
    day: 'numeric',
    month: 'short',
    ...clockFields(hourCycleOf(language, timeFormat)),
  }).format(new Date(startsAt));
}

/** A name reduced to one line, cut to `chars` characters with an ellipsis when longer. */
function cut(name: string, chars: number): string {
  const clean = [
    ...name
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  ];
  if (clean.length <= chars) return clean.join('');
  return chars <= 1
    ? ''
    : `${clean
        .slice(0, chars - 1)
        .join('')
        .trimEnd()}…`;
}

/**
 * The SMS of a booking: at most 160 characters, the venue's name cut to what the rest leaves.
 * A long page link (a long slug) leaves the code to the link, which carries it; only a link of
 * more than about 120 characters (a long `PUBLIC_BASE_URL`) leaves no room for the name at all.
 */
export function smsText(sms: SmsBooking): string {
  const words = WORDS[sms.language];
  const at = when(sms);
  const write = (venue: string, code: string) =>
    `${venue}: ${words[sms.type]} ${at}, ${sms.party} ${words.party}${code} ${sms.link}`;
  const withCode = `, ${words.code} ${sms.code}`;
  const code = SMS_MAX_CHARS - [...write('', withCode)].length >= MIN_VENUE_CHARS ? withCode : '';
  return write(cut(sms.venueName, SMS_MAX_CHARS - [...write('', code)].length), code);
}
