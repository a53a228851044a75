import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addDays,
  dayOfWeek,
  instantToWall,
  isoWithOffset,
  minutesOf,
  todayIn,
  wallTimeToInstant,
} from './time.ts';

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());

describe('wallTimeToInstant', () => {
  const cases: [date: string, time: string, zone: string, expected: string | null][] = [
    // Europe/Berlin springs forward 2026-03-29 at 02:00 CET (01:00Z) to 03:00 CEST.
    ['2026-03-29', '01:59', 'Europe/Berlin', '2026-03-29T00:59:00.000Z'],
    ['2026-03-29', '02:00', 'Europe/Berlin', null],
    ['2026-03-29', '02:30', 'Europe/Berlin', null],
    ['2026-03-29', '02:59', 'Europe/Berlin', null],
    ['2026-03-29', '03:00', 'Europe/Berlin', '2026-03-29T01:00:00.000Z'],
    // Europe/Berlin falls back 2026-10-25 at 03:00 CEST (01:00Z) to 02:00 CET: 02:00-02:59 occur twice.
    ['2026-10-25', '01:59', 'Europe/Berlin', '2026-10-24T23:59:00.000Z'],
    ['2026-10-25', '02:00', 'Europe/Berlin', '2026-10-25T00:00:00.000Z'],
    ['2026-10-25', '02:30', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2026-10-25', '02:59', 'Europe/Berlin', '2026-10-25T00:59:00.000Z'],
    ['2026-10-25', '03:00', 'Europe/Berlin', '2026-10-25T02:00:00.000Z'],
    // America/New_York springs forward 2026-03-08 at 02:00 EST (07:00Z) to 03:00 EDT.
    ['2026-03-08', '01:59', 'America/New_York', '2026-03-08T06:59:00.000Z'],
    ['2026-03-08', '02:00', 'America/New_York', null],
    ['2026-03-08', '02:30', 'America/New_York', null],
    ['2026-03-08', '03:00', 'America/New_York', '2026-03-08T07:00:00.000Z'],
    // America/New_York falls back 2026-11-01 at 02:00 EDT (06:00Z) to 01:00 EST: 01:00-01:59 occur twice.
    ['2026-11-01', '00:59', 'America/New_York', '2026-11-01T04:59:00.000Z'],
    ['2026-11-01', '01:00', 'America/New_York', '2026-11-01T05:00:00.000Z'],
    ['2026-11-01', '01:30', 'America/New_York', '2026-11-01T05:30:00.000Z'],
    ['2026-11-01', '02:00', 'America/New_York', '2026-11-01T07:00:00.000Z'],
    // Ordinary days, half-hour offsets, seconds.
    ['2026-06-10', '12:00', 'UTC', '2026-06-10T12:00:00.000Z'],
    ['2026-06-10', '12:00', 'Europe/Berlin', '2026-06-10T10:00:00.000Z'],
    ['2026-01-15', '12:00', 'America/New_York', '2026-01-15T17:00:00.000Z'],
    ['2026-06-10', '12:00', 'Asia/Kolkata', '2026-06-10T06:30:00.000Z'],
    ['2026-06-10', '00:00', 'Pacific/Auckland', '2026-06-09T12:00:00.000Z'],
    ['2026-06-10', '12:00:30', 'UTC', '2026-06-10T12:00:30.000Z'],
    // Lord Howe Island falls back half an hour 2026-04-05 at 02:00 (+11) to 01:30 (+10:30).
    ['2026-04-05', '01:45', 'Australia/Lord_Howe', '2026-04-04T14:45:00.000Z'],
    ['2026-04-05', '02:30', 'Australia/Lord_Howe', '2026-04-04T16:00:00.000Z'],
    // Malformed values do not exist either.
    ['2026-06-10', '24:00', 'UTC', null],
    ['2026-06-10', '9:00', 'UTC', null],
    ['2026-02-30', '12:00', 'UTC', null],
    ['2026-6-10', '12:00', 'UTC', null],
    ['2026-06-10', '12:00:60', 'UTC', null],
    ['2026-06-10', '12:00x', 'UTC', null],
    ['2026-06-10', '112:00', 'UTC', null],
    ['2026-06-100', '12:00', 'UTC', null],
    ['12026-06-10', '12:00', 'UTC', null],
  ];
  for (const [date, time, zone, expected] of cases) {
    it(`${date} ${time} ${zone} -> ${expected}`, () => {
      assert.equal(iso(wallTimeToInstant(date, time, zone)), expected);
    });
  }
});

describe('calendar dates', () => {
  // Noon UTC of a real date, null for one the calendar does not have.
  const cases: [date: string, noon: string | null][] = [
    ['2024-01-30', '2024-01-30T12:00:00.000Z'],
    ['2024-01-31', '2024-01-31T12:00:00.000Z'],
    ['2024-02-29', '2024-02-29T12:00:00.000Z'],
    ['2024-02-30', null],
    ['2024-03-31', '2024-03-31T12:00:00.000Z'],
    ['2024-04-30', '2024-04-30T12:00:00.000Z'],
    ['2024-04-31', null],
    ['2024-12-31', '2024-12-31T12:00:00.000Z'],
    ['2026-01-30', '2026-01-30T12:00:00.000Z'],
    ['2026-01-31', '2026-01-31T12:00:00.000Z'],
    ['2026-02-29', null],
    ['2026-06-31', null],
    ['2000-02-29', '2000-02-29T12:00:00.000Z'],
    ['1900-02-29', null],
    ['2100-02-29', null],
    ['2026-00-10', null],
    ['2026-13-10', null],
    ['2026-06-00', null],
  ];
  for (const [date, noon] of cases) {
    it(`${date} -> ${noon}`, () => assert.equal(iso(wallTimeToInstant(date, '12:00', 'UTC')), noon));
  }
});

describe('instantToWall', () => {
  const cases: [instant: string, zone: string, date: string, time: string][] = [
    ['2026-10-25T00:30:00Z', 'Europe/Berlin', '2026-10-25', '02:30'],
    ['2026-10-25T01:30:00Z', 'Europe/Berlin', '2026-10-25', '02:30'],
    ['2026-03-29T01:00:00Z', 'Europe/Berlin', '2026-03-29', '03:00'],
    ['2026-11-01T05:30:00Z', 'America/New_York', '2026-11-01', '01:30'],
    ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01', '01:30'],
    ['2026-06-10T23:59:59Z', 'UTC', '2026-06-10', '23:59'],
    ['2026-06-10T22:00:00Z', 'Europe/Berlin', '2026-06-11', '00:00'],
    ['2026-06-10T18:45:00Z', 'Asia/Kolkata', '2026-06-11', '00:15'],
  ];
  for (const [instant, zone, date, time] of cases) {
    it(`${instant} in ${zone} is ${date} ${time}`, () => {
      assert.deepEqual(instantToWall(Date.parse(instant), zone), { date, time });
    });
  }
});

describe('todayIn', () => {
  const now = Date.parse('2026-06-10T23:30:00Z');
  const cases: [zone: string, today: string][] = [
    ['UTC', '2026-06-10'],
    ['Europe/Berlin', '2026-06-11'],
    ['America/New_York', '2026-06-10'],
    ['Pacific/Auckland', '2026-06-11'],
    ['Pacific/Honolulu', '2026-06-10'],
  ];
  for (const [zone, today] of cases) {
    it(`is ${today} in ${zone}`, () => assert.equal(todayIn(zone, now), today));
  }
  it('is already the new year in a zone far ahead of UTC', () => {
    assert.equal(todayIn('Pacific/Kiritimati', Date.parse('2026-12-31T10:00:00Z')), '2027-01-01');
  });
});

describe('addDays', () => {
  const cases: [date: string, days: number, expected: string][] = [
    ['2026-06-10', 0, '2026-06-10'],
    ['2026-02-28', 1, '2026-03-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2026-06-10', 60, '2026-08-09'],
    ['2000-02-28', 1, '2000-02-29'],
    ['2100-02-28', 1, '2100-03-01'],
    ['1970-01-01', -1, '1969-12-31'],
    ['2024-02-29', 1, '2024-03-01'],
    ['2024-01-31', 30, '2024-03-01'],
    ['0099-06-10', 0, '0099-06-10'],
  ];
  for (const [date, days, expected] of cases) {
    it(`${date} + ${days} = ${expected}`, () => assert.equal(addDays(date, days), expected));
  }

  it('rejects a malformed date', () => {
    assert.throws(() => addDays('2026-13-01', 1), {
      name: 'RangeError',
      message: 'Not a YYYY-MM-DD date: 2026-13-01',
    });
  });
});

describe('dayOfWeek', () => {
  const cases: [date: string, day: number][] = [
    ['2026-03-29', 0],
    ['2026-03-28', 6],
    ['2026-06-10', 3],
    ['1970-01-01', 4],
    ['1969-12-28', 0],
    ['2024-02-29', 4],
  ];
  for (const [date, day] of cases) {
    it(`${date} is day ${day}`, () => assert.equal(dayOfWeek(date), day));
  }

  it('rejects a malformed date', () => {
    assert.throws(() => dayOfWeek('tomorrow'), RangeError);
  });
});

describe('minutesOf', () => {
  const cases: [time: string, minutes: number | null][] = [
    ['00:00', 0],
    ['09:30', 570],
    ['23:59', 1439],
    ['20:00:00', 1200],
    ['20:00:59', 1200],
    ['24:00', null],
    ['12:60', null],
    ['9:30', null],
    ['09:30x', null],
    ['109:30', null],
    ['09:30:60', null],
    ['', null],
  ];
  for (const [time, minutes] of cases) {
    it(`${JSON.stringify(time)} -> ${minutes}`, () => assert.equal(minutesOf(time), minutes));
  }
});

describe('isoWithOffset', () => {
  it("writes the zone's wall clock with the offset in force at that instant", () => {
    const before = Date.parse('2026-03-29T00:30:00Z');
    assert.equal(isoWithOffset(before, 'Europe/Berlin'), '2026-03-29T01:30:00+01:00');
    assert.equal(isoWithOffset(before + 3_600_000, 'Europe/Berlin'), '2026-03-29T03:30:00+02:00');
    assert.equal(
      isoWithOffset(Date.parse('2026-07-01T12:00:00Z'), 'America/St_Johns'),
      '2026-07-01T09:30:00-02:30',
    );
    assert.equal(isoWithOffset(Date.parse('2026-07-01T12:00:00Z'), 'UTC'), '2026-07-01T12:00:00+00:00');
  });

  it('reads back as the same instant', () => {
    const instant = Date.parse('2026-10-25T00:45:00Z');
    assert.equal(Date.parse(isoWithOffset(instant, 'Europe/Berlin')), instant);
  });
});
