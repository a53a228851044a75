import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ical, { type VEvent } from 'node-ical';
import { bookingCalendar } from '../../widget/ics.ts';
import { bookingUid } from '../engine/calendar-uid.ts';

/** The widget's "Add to calendar" file: what a calendar program reads of it. */
describe('widget/ics', () => {
  const entry = {
    bookingId: '0b9f3c52-8d0e-4a57-9f6e-2a4d9c1b7e10',
    host: 'api.example.com',
    startsAt: '2026-12-04T18:30:00.000Z',
    endsAt: '2026-12-04T20:00:00.000Z',
    summary: 'Chez "Nous"; Bar, Grill \\ Café, Number of guests: 3',
    location: 'Rue de la Paix 1,\n75002 Paris; 2nd floor — côté jardin, près de la fontaine Saint-Michel',
    stamp: new Date('2026-11-27T08:00:00.000Z'),
  };

  it('is one event in UTC under the UID of the emailed invite, its text escaped', () => {
    const file = bookingCalendar(entry);
    const [event, ...others] = Object.values(ical.sync.parseICS(file)).filter(
      (component): component is VEvent => component?.type === 'VEVENT',
    );
    assert.deepEqual(others, []);
    assert.equal(event!.uid, bookingUid(entry.bookingId, entry.host));
    assert.equal(event!.start.toISOString(), entry.startsAt);
    assert.equal(event!.end?.toISOString(), entry.endsAt);
    assert.equal(event!.summary, entry.summary);
    assert.equal(event!.location, entry.location);
  });

  it('has CRLF lines of at most 75 octets', () => {
    const lines = bookingCalendar(entry).split('\r\n');
    assert.equal(lines.at(-1), '', 'ends with a line break');
    for (const line of lines) {
      assert.ok(Buffer.byteLength(line) <= 75, line);
      assert.ok(!line.includes('\n'), line);
    }
    assert.ok(
      lines.some((line) => line.startsWith(' ')),
      'the long location is folded',
    );
  });

  it('leaves LOCATION out for a venue without an address', () => {
    assert.doesNotMatch(bookingCalendar({ ...entry, location: null }), /LOCATION/);
  });
});
