/** iCalendar texts the import tests serve. */

export const calendar = (...events: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Test//EN', ...events, 'END:VCALENDAR'].join('\r\n');

export const event = (...lines: string[]) =>
  ['BEGIN:VEVENT', 'DTSTAMP:20261101T000000Z', ...lines, 'END:VEVENT'].join('\r\n');

/**
 * 20 events repeating every 13 minutes from 2026-11-30 09:00 UTC (just under the parser's own
 * 10,000 a rule, 90 days ahead), 2.9 KB with `TRANSP:TRANSPARENT`: none of them busy, so nothing
 * is kept of them, yet each instance is worked out. `extra` adds lines to the i-th event.
 */
export const hostile = (...extra: ((i: number) => string[])[]) =>
  calendar(
    ...Array.from({ length: 20 }, (_, i) =>
      [
        'BEGIN:VEVENT',
        `UID:m${i}@t`,
        'DTSTART:20261130T090000Z',
        'DTEND:20261130T090500Z',
        'RRULE:FREQ=MINUTELY;INTERVAL=13',
        ...extra.flatMap((lines) => lines(i)),
        'END:VEVENT',
      ].join('\r\n'),
    ),
  );
