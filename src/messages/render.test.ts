import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ical, { type VEvent } from 'node-ical';
import { NOTIFICATION_LANGUAGES } from '../schema.ts';
import {
  type BookingPayload,
  type EmailFacts,
  MESSAGE_TYPES,
  type OfferPayload,
  renderEmail,
} from './render.view.ts';

const FIXTURES = new URL('../../test/fixtures/messages/', import.meta.url);
/** `UPDATE_FIXTURES=1` writes the fixtures again from what is rendered now, to be reviewed in the diff. */
const UPDATE = process.env.UPDATE_FIXTURES === '1';

const BOOKING: BookingPayload = {
  id: '6f1c2a0e-8a43-4c55-9d7e-2b1f3f4e5a6b',
  confirmation_code: 'K7QX2M',
  capacity: 4,
  starts_at: '2026-12-01T18:30:00.000Z',
  ends_at: '2026-12-01T20:30:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
  customer_notes: 'Window seat, one high chair',
  customer: {
    first_name: 'Grace',
    last_name: 'Hopper',
    phone: '+33 6 12 34 56 78',
    email: 'grace@example.com',
  },
  guest: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' },
};

const OFFER: OfferPayload = {
  offer_id: '0c9f4b8e-31a2-4d67-8f0e-5a1b2c3d4e5f',
  starts_at: '2026-12-01T18:30:00.000Z',
  ends_at: '2026-12-01T20:30:00.000Z',
  party: 2,
  guest_name: 'Grace Hopper',
  offer_url: 'https://book.example.com/book/le-petit-zinc/offer/0c9f4b8e',
  expires_at: '2026-12-01T15:00:00.000Z',
};

const facts = (type: EmailFacts['type'], language: EmailFacts['language']): EmailFacts => ({
  type,
  language,
  venue: {
    name: 'Le Petit Zinc',
    slug: 'le-petit-zinc',
    timezone: 'Europe/Paris',
    address: '11 Rue Saint-Benoît, 75006 Paris',
    phone: '+33 1 42 86 61 00',
    public_email: 'hello@petitzinc.example',
    booking_policy: 'Please cancel at least 24 hours ahead.\nTables are kept for 15 minutes.',
    time_format: null,
    business_type: 'restaurant',
  },
  payload: type === 'waitlist_offer' ? OFFER : BOOKING,
  sequence: type === 'booking_confirmed' ? 0 : 1,
  publicBaseUrl: 'https://book.example.com',
  mailFrom: 'no-reply@book.example.com',
});

describe('renderEmail', () => {
  for (const type of MESSAGE_TYPES) {
    for (const language of NOTIFICATION_LANGUAGES) {
      it(`${type} in ${language} reads as its reviewed fixture`, () => {
        const rendered = renderEmail(facts(type, language));
        for (const [ext, body] of [
          ['txt', `Subject: ${rendered.subject}\n\n${rendered.text}`],
          ['html', rendered.html],
        ] as const) {
          const file = new URL(`${type}.${language}.${ext}`, FIXTURES);
          if (UPDATE) writeFileSync(file, body);
          assert.equal(body, readFileSync(file, 'utf8'), `${type}.${language}.${ext}`);
        }
      });
    }
  }

  it("shows the time in the venue's zone and language, the party, the code and the guest's page", () => {
    const { text } = renderEmail(facts('booking_confirmed', 'de'));
    assert.match(text, /Dienstag, 1\. Dezember 2026 um 19:30/);
    assert.match(text, /4 Personen/);
    assert.match(text, /K7QX2M/);
    assert.match(text, /https:\/\/book\.example\.com\/book\/le-petit-zinc\?manage=K7QX2M/);
    const offer = renderEmail(facts('waitlist_offer', 'en')).text;
    assert.match(offer, /valid until 4:00 PM/);
    assert.match(offer, /2 guests/);
  });

  it("reads times on the venue's clock: its time_format, else its language's", () => {
    const english24 = facts('waitlist_offer', 'en');
    english24.venue.time_format = '24h';
    assert.match(renderEmail(english24).text, /valid until 16:00/);
    const german12 = facts('booking_confirmed', 'de');
    german12.venue.time_format = '12h';
    // German's own pattern pads a 12-hour hour ("07:30 PM"); a 12-hour clock reads without the zero.
    assert.match(renderEmail(german12).text, /um 7:30 PM/);
    const germanOffer12 = facts('waitlist_offer', 'de');
    germanOffer12.venue.time_format = '12h';
    assert.match(renderEmail(germanOffer12).text, / 4:00 PM/);
  });

  it('escapes names and notes in HTML, and leaves the text as written', () => {
    const hostile = facts('venue_new_booking', 'en');
    hostile.venue.name = 'Tom & Jerry <Bar>';
    hostile.payload = {
      ...BOOKING,
      guest: { first_name: '<script>alert(1)</script>', last_name: 'Smith & Sons', email: 'x@example.com' },
      customer_notes: '<img src=x onerror=alert(1)> & more',
    };
    const { html, text } = renderEmail(hostile);
    assert.ok(!html.includes('<script>'));
    assert.ok(!html.includes('<img'));
    assert.ok(!html.includes('<Bar>'));
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; Smith &amp; Sons/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt; &amp; more/);
    assert.match(html, /Tom &amp; Jerry &lt;Bar&gt;/);
    assert.match(text, /<script>alert\(1\)<\/script> Smith & Sons/);
  });

  it('quotes the venue in the subject as venueInSubject does', () => {
    const named = facts('booking_confirmed', 'en');
    named.venue.name = 'Line\nbreak';
    assert.equal(renderEmail(named).subject, 'Your booking at "Line break" is confirmed');
  });

  it('attaches an invite in UTC with no calendar zone: REQUEST, then CANCEL with the same UID', () => {
    const event = (type: EmailFacts['type']) => {
      const ics = renderEmail(facts(type, 'fr')).ics;
      assert.ok(ics, `${type} carries an invite`);
      assert.doesNotMatch(ics.content, /TZID|X-WR-TIMEZONE/);
      const parsed = ical.sync.parseICS(ics.content);
      return { method: ics.method, event: Object.values(parsed).find((c) => c?.type === 'VEVENT') as VEvent };
    };
    const confirmed = event('booking_confirmed');
    assert.equal(confirmed.method, 'REQUEST');
    assert.equal(confirmed.event.uid, `booking-${BOOKING.id}@book.example.com`);
    assert.equal(confirmed.event.start.toISOString(), BOOKING.starts_at);
    assert.equal(confirmed.event.end?.toISOString(), BOOKING.ends_at);
    assert.equal(confirmed.event.location, '11 Rue Saint-Benoît, 75006 Paris');
    assert.match(String(confirmed.event.summary), /^Le Petit Zinc : table pour 4 personnes$/);
    assert.match(JSON.stringify(confirmed.event.organizer), /hello@petitzinc\.example/);
    const cancelled = event('booking_cancelled');
    assert.equal(cancelled.method, 'CANCEL');
    assert.equal(cancelled.event.uid, confirmed.event.uid);
    assert.equal(Number(cancelled.event.sequence), 1);
    assert.equal(cancelled.event.status, 'CANCELLED');
    for (const type of [
      'booking_reminder',
      'waitlist_offer',
      'venue_new_booking',
      'venue_guest_cancellation',
    ] as const) {
      assert.equal(renderEmail(facts(type, 'en')).ics, undefined, `${type} carries no invite`);
    }
  });
});

/**
 * The properties schema.org gives each type, read from the vocabulary as schema-dts publishes it
 * (one interface per type, its own properties, and the types it extends): an independent check
 * that the markup uses no property its type does not have.
 */
const VOCABULARY = readFileSync(
  new URL('../../node_modules/schema-dts/dist/schema.d.ts', import.meta.url),
  'utf8',
);
function propertiesOf(type: string): Set<string> {
  const own = new RegExp(`^interface ${type}Base extends ([^{]+)\\{([\\s\\S]*?)^\\}`, 'm').exec(VOCABULARY);
  assert.ok(own, `schema.org has a type ${type}`);
  const properties = new Set([...own[2]!.matchAll(/^\s+"(\w+)"\?:/gm)].map((match) => match[1]!));
  for (const parent of own[1]!.split(',').map((name) => name.trim())) {
    const base = /^(\w+)Base$/.exec(parent);
    if (base) for (const property of propertiesOf(base[1]!)) properties.add(property);
  }
  return properties;
}

/** Every object of the markup that names its type uses only that type's properties. */
function assertValidMarkup(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  const type = record['@type'];
  if (typeof type === 'string') {
    const allowed = propertiesOf(type);
    for (const key of Object.keys(record)) {
      if (key.startsWith('@')) continue;
      assert.ok(allowed.has(key), `schema.org's ${type} has no property ${key}`);
    }
  }
  for (const value of Object.values(record)) assertValidMarkup(value);
}

const markupOf = (html: string) => {
  const found = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html);
  return found ? JSON.parse(found[1]!) : null;
};

describe('reservation markup', () => {
  it("carries a restaurant's booking as a FoodEstablishmentReservation of the vocabulary", () => {
    const markup = markupOf(renderEmail(facts('booking_confirmed', 'de')).html);
    assert.equal(markup['@context'], 'https://schema.org');
    assert.equal(markup['@type'], 'FoodEstablishmentReservation');
    assert.equal(markup.reservationId, BOOKING.confirmation_code);
    assert.equal(markup.reservationStatus, 'https://schema.org/ReservationConfirmed');
    assert.deepEqual(markup.underName, {
      '@type': 'Person',
      name: 'Grace Hopper',
      email: 'grace@example.com',
    });
    assert.equal(markup.reservationFor['@type'], 'FoodEstablishment');
    assert.equal(markup.reservationFor.name, 'Le Petit Zinc');
    assert.equal(markup.reservationFor.address, '11 Rue Saint-Benoît, 75006 Paris');
    assert.equal(markup.startTime, BOOKING.starts_at);
    assert.equal(markup.endTime, BOOKING.ends_at);
    assert.equal(markup.partySize, 4);
    assert.equal(markup.url, 'https://book.example.com/book/le-petit-zinc?manage=K7QX2M');
    assertValidMarkup(markup);
  });

  it("carries another venue's booking as a Reservation of an event there, and a cancellation as cancelled", () => {
    const salon = facts('booking_cancelled', 'en');
    salon.venue.business_type = 'salon';
    const markup = markupOf(renderEmail(salon).html);
    assert.equal(markup['@type'], 'Reservation');
    assert.equal(markup.reservationStatus, 'https://schema.org/ReservationCancelled');
    assert.equal(markup.reservationFor['@type'], 'Event');
    assert.equal(markup.reservationFor.startDate, BOOKING.starts_at);
    assert.equal(markup.reservationFor.location['@type'], 'LocalBusiness');
    assertValidMarkup(markup);
  });

  it('is in every guest message of a booking, and in no other', () => {
    for (const type of MESSAGE_TYPES) {
      const markup = markupOf(renderEmail(facts(type, 'en')).html);
      const guestBooking = [
        'booking_confirmed',
        'booking_rescheduled',
        'booking_cancelled',
        'booking_reminder',
      ];
      assert.equal(markup !== null, guestBooking.includes(type), type);
    }
  });

  it("keeps a guest's or venue's words inside the script: nothing in them ends it", () => {
    const hostile = facts('booking_confirmed', 'en');
    hostile.venue.name = '</script><script>alert(1)</script>';
    (hostile.payload as BookingPayload).guest = { first_name: '<!--', last_name: '</SCRIPT>', email: null };
    const { html } = renderEmail(hostile);
    assert.equal(html.match(/<\/script>/gi)?.length, 1, 'only the markup closes a script');
    const markup = markupOf(html);
    assert.equal(markup.reservationFor.name, '</script><script>alert(1)</script>');
    assert.equal(markup.underName.name, '<!-- </SCRIPT>');
  });

  it('is refused by the vocabulary check when a property is not the type’s', () => {
    assert.throws(() =>
      assertValidMarkup({ '@type': 'FoodEstablishmentReservation', partySize: 2, table: 'T4' }),
    );
    assert.throws(
      () => assertValidMarkup({ '@type': 'Reservation', startTime: 'x' }),
      /no property startTime/,
    );
  });
});

describe('reservation markup, placed', () => {
  it("keeps `$'` and `$&` in a guest's name as text, not as patterns of the placing", () => {
    const dollars = facts('booking_confirmed', 'en');
    (dollars.payload as BookingPayload).guest = { first_name: "$'", last_name: '$&', email: null };
    const { html } = renderEmail(dollars);
    assert.equal(html.match(/<\/body>/g)?.length, 1);
    assert.equal(markupOf(html).underName.name, "$' $&");
  });
});
