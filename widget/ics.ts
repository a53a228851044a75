import { bookingUid } from '../src/engine/calendar-uid.ts';

/** What the guest's calendar file says of a booking. */
export interface CalendarEntry {
  bookingId: string;
  /** The API's host name: the UID is the one of the emailed invite, so a calendar keeps one entry. */
  host: string;
  startsAt: string;
  endsAt: string;
  summary: string;
  location?: string | null;
  stamp: Date;
}

/** iCalendar TEXT (RFC 5545 3.3.11): backslash, semicolon, comma and line breaks escaped. */
const text = (value: string) => value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r?\n/g, '\\n');

/** A UTC DATE-TIME, `20261127T183000Z`: no time zone definitions to carry, as in the emailed invite. */
const utc = (at: string | Date) =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** A content line folded at 75 octets (RFC 5545 3.1), never inside a character. */
function fold(line: string): string {
  const encoder = new TextEncoder();
  let folded = '';
  let octets = 0;
  for (const character of line) {
    const size = encoder.encode(character).length;
    if (octets + size > 75) {
      folded += '\r\n ';
      octets = 1;
    }
    folded += character;
    octets += size;
  }
  return folded;
}

/** A booking as an `.ics` file the guest adds to a calendar: one event, times in UTC. */
export function bookingCalendar(entry: CalendarEntry): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Slotwise//Slotwise//EN',
    'BEGIN:VEVENT',
    `UID:${bookingUid(entry.bookingId, entry.host)}`,
    `DTSTAMP:${utc(entry.stamp)}`,
    `DTSTART:${utc(entry.startsAt)}`,
    `DTEND:${utc(entry.endsAt)}`,
    `SUMMARY:${text(entry.summary)}`,
    ...(entry.location ? [`LOCATION:${text(entry.location)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ]
    .map(fold)
    .join('\r\n');
}
