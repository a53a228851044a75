import { readFileSync } from 'node:fs';
import type { FoodEstablishmentReservation, Reservation, WithContext } from 'schema-dts';
import { bookingUid } from '../engine/calendar-uid.ts';
import { clockFields, hourCycleOf, type TimeFormat } from '../engine/clock.ts';
import { escapeHtml } from '../engine/html.ts';
import { isFoodEstablishment } from '../engine/venue-kind.ts';
import type { NotificationLanguage } from '../schema.ts';
import { type Invite, inviteFor } from './invite.rules.ts';
import type { MessageType } from './outbox.queries.ts';
import { venueInSubject } from './subject.view.ts';

export const MESSAGE_TYPES: readonly MessageType[] = [
  'booking_confirmed',
  'booking_rescheduled',
  'booking_cancelled',
  'booking_reminder',
  'waitlist_offer',
  'venue_new_booking',
  'venue_guest_cancellation',
];

/**
 * The language a message is written in: the venue's own for the venue; for a guest, the language
 * their profile prefers, else the venue's notification language.
 */
export const messageLanguage = (
  type: string,
  guestLanguage: NotificationLanguage | null,
  venueLanguage: NotificationLanguage,
): NotificationLanguage => (type.startsWith('venue_') ? venueLanguage : (guestLanguage ?? venueLanguage));

/** What a guest reads of the venue: the business's profile when the message is sent. */
export interface VenueFacts {
  name: string;
  slug: string;
  timezone: string;
  address: string | null;
  phone: string | null;
  public_email: string | null;
  booking_policy: string | null;
  /** Null: the language's clock. */
  time_format: TimeFormat | null;
  /** What kind of venue it is, in the business's words ("restaurant", "salon"). */
  business_type: string | null;
}

/** The booking as the API answered it when the change was made (the fields a message reads). */
export interface BookingPayload {
  id: string;
  confirmation_code: string;
  capacity: number;
  starts_at: string;
  ends_at: string;
  updated_at: string;
  customer_notes: string | null;
  customer: { first_name: string; last_name: string; phone: string | null; email: string | null };
  guest: { first_name: string; last_name: string; email: string | null } | null;
}

/** A waitlist entry's offer of a freed time. */
export interface OfferPayload {
  offer_id: string;
  starts_at: string;
  ends_at: string;
  party: number;
  guest_name: string;
  offer_url: string;
  expires_at: string;
}

export interface EmailFacts {
  type: MessageType;
  language: NotificationLanguage;
  venue: VenueFacts;
  payload: BookingPayload | OfferPayload;
  /** The SEQUENCE of the invite the message carries. */
  sequence: number | null;
  /** `PUBLIC_BASE_URL`: the guest's page and the invite's UID host. */
  publicBaseUrl: string;
  /** The invite's organizer address when the venue gives no public email. */
  mailFrom: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  ics?: Invite;
}

const TEMPLATES = new URL('./templates/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, TEMPLATES), 'utf8');
const cache = new Map<string, string>();
/** A template file, read once. */
const template = (name: string) => {
  let text = cache.get(name);
  if (text === undefined) {
    text = read(name);
    cache.set(name, text);
  }
  return text;
};
const stringsOf = (language: NotificationLanguage) =>
  JSON.parse(template(`strings/${language}.json`)) as Record<string, string>;

/** A string with the facts filled in, as plain text. */
const fillText = (text: string, values: Record<string, string>) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`message string names an unknown fact: ${key}`);
    return value;
  });

/**
 * Fills a template: `{{>part}}` includes `_part.<ext>`, `{{#key}}...{{/key}}` is kept only when the
 * fact `key` is given, and `{{key}}` is a fact or a language string (itself filled with the facts).
 * In HTML every fact and string is escaped; `{{content}}` in the layout takes the filled body as it is.
 */
function fill(
  source: string,
  ext: 'html' | 'txt',
  values: Record<string, string>,
  strings: Record<string, string>,
  content = '',
): string {
  const escaped = ext === 'html' ? escapeHtml : (text: string) => text;
  return source
    .replace(/\{\{>(\w+)\}\}/g, (_, part: string) => template(`_${part}.${ext}`).replace(/\n$/, ''))
    .replace(/\{\{#(\w+)\}\}([\s\S]*?)\{\{\/\1\}\}/g, (_, key: string, inner: string) =>
      values[key] ? inner : '',
    )
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      if (key === 'content') return content;
      const value = values[key] ?? (strings[key] === undefined ? undefined : fillText(strings[key], values));
      if (value === undefined) throw new Error(`template names an unknown fact or string: ${key}`);
      return escaped(value);
    });
}

const isOffer = (facts: EmailFacts): facts is EmailFacts & { payload: OfferPayload } =>
  facts.type === 'waitlist_offer';

/** The facts a template may name, as text: the venue's, then the booking's or the offer's. */
function valuesOf(facts: EmailFacts, strings: Record<string, string>): Record<string, string> {
  const { venue, language } = facts;
  const hourCycle = hourCycleOf(language, venue.time_format);
  const when = new Intl.DateTimeFormat(language, {
    timeZone: venue.timezone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    ...clockFields(hourCycle),
  });
  const party = isOffer(facts) ? facts.payload.party : (facts.payload as BookingPayload).capacity;
  const plural = new Intl.PluralRules(language).select(party) === 'one' ? 'party_one' : 'party_other';
  const values: Record<string, string> = {
    venue_name: venue.name,
    venue_address: venue.address ?? '',
    venue_phone: venue.phone ?? '',
    venue_email: venue.public_email ?? '',
    venue_policy: venue.booking_policy ?? '',
    book_url: `${facts.publicBaseUrl}/book/${encodeURIComponent(venue.slug)}`,
    when: when.format(new Date(facts.payload.starts_at)),
  };
  values.party = fillText(strings[plural]!, { count: String(party) });
  if (isOffer(facts)) {
    const offer = facts.payload;
    values.guest_name = offer.guest_name;
    values.offer_url = offer.offer_url;
    values.expires = new Intl.DateTimeFormat(language, {
      timeZone: venue.timezone,
      ...clockFields(hourCycle),
    }).format(new Date(offer.expires_at));
    return values;
  }
  const booking = facts.payload as BookingPayload;
  const person = booking.guest ?? booking.customer;
  values.guest_name = `${person.first_name} ${person.last_name}`.trim();
  values.guest_email = booking.guest?.email ?? booking.customer.email ?? '';
  values.guest_phone = booking.customer.phone ?? '';
  values.notes = booking.customer_notes ?? '';
  values.code = booking.confirmation_code;
  values.manage_url = `${values.book_url}?manage=${encodeURIComponent(booking.confirmation_code)}`;
  return values;
}

/** The invite a guest's message carries: its booking's entry, asked for or called off. */
const INVITE_METHOD: Partial<Record<MessageType, 'REQUEST' | 'CANCEL'>> = {
  booking_confirmed: 'REQUEST',
  booking_rescheduled: 'REQUEST',
  booking_cancelled: 'CANCEL',
};

/** What a guest's message about their booking says the reservation now is (schema.org's status). */
const RESERVATION_STATUS: Partial<Record<MessageType, 'ReservationConfirmed' | 'ReservationCancelled'>> = {
  booking_confirmed: 'ReservationConfirmed',
  booking_rescheduled: 'ReservationConfirmed',
  booking_reminder: 'ReservationConfirmed',
  booking_cancelled: 'ReservationCancelled',
};

/**
 * The booking as schema.org reservation markup, which mail clients read to show and update it: a
 * `FoodEstablishmentReservation` at a venue that serves at its tables, else a `Reservation` of an
 * event at the venue (the only way the vocabulary gives a plain reservation a time). Typed with
 * schema.org's vocabulary as schema-dts publishes it; render.test.ts checks every property against
 * that vocabulary too, which the spreads here would let through the compiler.
 */
function reservationMarkup(
  facts: EmailFacts & { payload: BookingPayload },
  values: Record<string, string>,
): WithContext<Reservation> | null {
  const status = RESERVATION_STATUS[facts.type];
  if (!status) return null;
  const { venue, payload: booking } = facts;
  const where = {
    name: venue.name,
    url: values.book_url,
    ...(venue.address ? { address: venue.address } : {}),
    ...(venue.phone ? { telephone: venue.phone } : {}),
  };
  const reservation = {
    reservationId: booking.confirmation_code,
    reservationStatus: `https://schema.org/${status}`,
    underName: {
      '@type': 'Person',
      name: values.guest_name!,
      ...(values.guest_email ? { email: values.guest_email } : {}),
    },
    url: values.manage_url!,
  } as const;
  if (isFoodEstablishment(venue.business_type)) {
    const markup: WithContext<FoodEstablishmentReservation> = {
      '@context': 'https://schema.org',
      '@type': 'FoodEstablishmentReservation',
      ...reservation,
      reservationFor: { '@type': 'FoodEstablishment', ...where },
      startTime: booking.starts_at,
      endTime: booking.ends_at,
      partySize: booking.capacity,
    };
    return markup;
  }
  return {
    '@context': 'https://schema.org',
    '@type': 'Reservation',
    ...reservation,
    reservationFor: {
      '@type': 'Event',
      name: venue.name,
      startDate: booking.starts_at,
      endDate: booking.ends_at,
      location: { '@type': 'LocalBusiness', ...where },
    },
  };
}

/** JSON inside a `<script>`: nothing in it can end the element or start markup. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * A message as its recipient reads it, in the business's language: subject, plain text, HTML (from
 * `templates/<type>.{txt,html}` in `templates/layout.*`, with `templates/strings/<language>.json`)
 * and, for a confirmation, a reschedule or a cancellation, its calendar invite.
 */
export function renderEmail(facts: EmailFacts): RenderedEmail {
  const strings = stringsOf(facts.language);
  const values = valuesOf(facts, strings);
  const subject = fillText(strings[`${facts.type}_subject`]!, {
    ...values,
    venue_name: venueInSubject(facts.venue.name),
  });
  values.lang = facts.language;
  values.subject = subject;
  const render = (ext: 'html' | 'txt') =>
    fill(
      template(`layout.${ext}`),
      ext,
      values,
      strings,
      fill(template(`${facts.type}.${ext}`), ext, values, strings),
    );
  const method = INVITE_METHOD[facts.type];
  // Optional parts left out leave runs of blank lines in the text; a label before a line break, a space.
  const text = `${render('txt')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
  const rendered: RenderedEmail = { subject, text, html: render('html') };
  if (isOffer(facts)) return rendered;
  const markup = reservationMarkup(facts as EmailFacts & { payload: BookingPayload }, values);
  if (markup) {
    // A function, so that a `$'` or `$&` in a guest's or venue's words is text, not a pattern.
    rendered.html = rendered.html.replace(
      '</head>',
      () => `<script type="application/ld+json">${scriptJson(markup)}</script>\n</head>`,
    );
  }
  if (method) {
    const booking = facts.payload as BookingPayload;
    rendered.ics = inviteFor({
      method,
      uid: bookingUid(booking.id, new URL(facts.publicBaseUrl).hostname),
      sequence: facts.sequence ?? 0,
      start: new Date(booking.starts_at),
      end: new Date(booking.ends_at),
      stamp: new Date(booking.updated_at),
      summary: fillText(strings.invite_summary!, values),
      description: `${values.code} · ${values.manage_url}`,
      location: facts.venue.address,
      organizer: { name: facts.venue.name, email: facts.venue.public_email ?? facts.mailFrom },
      attendee: values.guest_email || null,
    });
  }
  return rendered;
}
