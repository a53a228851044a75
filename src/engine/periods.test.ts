import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayRules, everyDay, seat } from './day-rules.fixture.ts';
import { bookingMinutesAt, checkStart, daySlots, periodMinutes } from './slots.ts';
import type { DayRules, ServicePeriod, StartCheck, TurnTime } from './types.ts';

// The edges of service periods: where a period lies in its day, its last start, which period a
// time belongs to, and the booking length taken from it.

const SCHEDULED = { onGrid: true, ignoreNoticeAndWindow: false };

function period(
  name: string,
  startTime: string,
  endTime: string,
  more: Partial<ServicePeriod> = {},
): ServicePeriod {
  return {
    id: name.toLowerCase(),
    name,
    daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
    startTime,
    endTime,
    lastStartTime: null,
    intervalMinutes: null,
    turnTimes: null,
    resourceIds: [],
    ...more,
  };
}

const TWO_HOURS: TurnTime[] = [{ minParty: 1, maxParty: 4, durationMinutes: 120 }];
const lunch = period('Lunch', '12:00', '14:30', { intervalMinutes: 15 });
const dinner = period('Dinner', '18:00', '22:30');

/** The engine's test day open 11:00-23:00 on a 30-minute grid, lunch and dinner, one table for 1-4. */
const bistro = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    hours: everyDay('11:00', '23:00'),
    intervalMinutes: 30,
    periods: [lunch, dinner],
    partySize: 2,
    resources: [seat('t1', 1, 4, { name: 'T1' })],
    ...overrides,
  });

/** An overnight bar open 20:00-03:00 with one period. */
const bar = (late: ServicePeriod) => bistro({ hours: everyDay('20:00', '03:00'), periods: [late] });

const times = (day: DayRules) => daySlots(day).slots.map((slot) => slot.time);

function refusal(check: StartCheck): string {
  assert.ok(!check.ok, 'expected the start to be refused');
  return check.message;
}

describe('periodMinutes', () => {
  const DAY = { openMinute: 11 * 60, closeMinute: 23 * 60 };
  const NIGHT = { openMinute: 20 * 60, closeMinute: 27 * 60 };
  const cases: [name: string, start: string, end: string, hours: typeof DAY, expected: [number, number]][] = [
    ['a period inside the day', '12:00', '14:30', DAY, [720, 870]],
    ['a period starting before opening stays before it', '10:00', '12:00', DAY, [600, 720]],
    ['a period ending at its own start runs 24 hours', '11:00', '11:00', DAY, [660, 2100]],
    ['a period running past midnight', '22:00', '02:00', NIGHT, [1320, 1560]],
    ['a period after midnight of an overnight day', '00:30', '02:30', NIGHT, [1470, 1590]],
    ['a 24-hour period from midnight of an overnight day', '00:00', '00:00', NIGHT, [1440, 2880]],
    ['a period after midnight that ends at or before its start', '01:00', '00:30', NIGHT, [1500, 2910]],
    ['a period before opening the night does not reach', '19:00', '21:00', NIGHT, [1140, 1260]],
    // The night closes at 03:00: a period starting then belongs to the day, not after midnight.
    ['a period starting when the night closes', '03:00', '02:00', NIGHT, [180, 1560]],
  ];
  for (const [name, startTime, endTime, hours, [startMinute, endMinute]] of cases) {
    it(name, () => {
      assert.deepEqual(periodMinutes({ startTime, endTime }, hours), { startMinute, endMinute });
    });
  }
});

describe('bookable windows of periods', () => {
  it('offers a 24-hour period as the whole of the hours', () => {
    assert.deepEqual(
      times(bistro({ periods: [period('All day', '11:00', '11:00')] })),
      times(bistro({ periods: [] })),
    );
  });

  it('offers a 24-hour period from midnight of an overnight day after midnight', () => {
    assert.deepEqual(times(bar(period('Night', '00:00', '00:00'))), [
      '00:00',
      '00:30',
      '01:00',
      '01:30',
      '02:00',
    ]);
  });

  it('holds nothing of a period that starts at closing time', () => {
    const day = bistro({ hours: everyDay('11:00', '17:00'), periods: [period('Evening', '17:00', '18:00')] });
    assert.deepEqual(daySlots(day), { closure: 'outside_period', slots: [] });
    assert.match(refusal(checkStart(day, '16:00', SCHEDULED)), /No service period of 2026-06-10/);
  });

  const lastStarts: [name: string, day: DayRules, expected: string[]][] = [
    [
      'a last start equal to the start',
      bistro({ periods: [{ ...dinner, lastStartTime: '18:00' }] }),
      ['18:00'],
    ],
    [
      'a last start after midnight of a period running past it',
      bar(period('Late', '22:00', '02:00', { lastStartTime: '00:30' })),
      ['22:00', '22:30', '23:00', '23:30', '00:00', '00:30'],
    ],
    [
      'a last start of a period after midnight',
      bar(period('Night', '00:30', '02:30', { lastStartTime: '01:00' })),
      ['00:30', '01:00'],
    ],
  ];
  for (const [name, day, expected] of lastStarts) {
    it(`stops at ${name}`, () => {
      assert.deepEqual(times(day), expected);
      const last = expected.at(-1)!;
      const after = daySlots({ ...day, periods: day.periods!.map((p) => ({ ...p, lastStartTime: null })) })
        .slots.map((slot) => slot.time)
        .find((time) => !expected.includes(time));
      assert.ok(after, 'the period holds later starts without its last start');
      assert.match(
        refusal(checkStart(day, after, SCHEDULED)),
        new RegExp(`starts at ${last}; ${after} is later`),
      );
    });
  }
});

describe('which period a time belongs to', () => {
  it("puts a period's end in the next period, not in it", () => {
    const day = bistro({
      periods: [
        period('Lunch', '12:00', '15:00'),
        period('Afternoon', '15:00', '18:00', { turnTimes: TWO_HOURS }),
      ],
    });
    assert.equal(bookingMinutesAt(day, '14:30'), 60);
    assert.equal(bookingMinutesAt(day, '15:00'), 120);
    const check = checkStart(day, '15:00', SCHEDULED);
    assert.ok(check.ok);
    assert.equal(check.end - check.start, 120 * 60_000);
  });

  it("refuses a period's end as outside the periods", () => {
    assert.match(
      refusal(checkStart(bistro(), '14:30', SCHEDULED)),
      /14:30 is outside the service periods of 2026-06-10 \(Lunch 12:00-14:30, Dinner 18:00-22:30\)/,
    );
  });

  it('names no period in the message of the last booking time of a day without periods', () => {
    const day = bistro({ hours: everyDay('11:00', '23:00', '21:00'), periods: [] });
    assert.equal(
      refusal(checkStart(day, '21:30', SCHEDULED)),
      'The last booking on 2026-06-10 starts at 21:00; 21:30 is later.',
    );
  });
});

describe("bookingMinutesAt without a period's window", () => {
  const day = (overrides: Partial<DayRules>) =>
    bistro({ turnTimes: [{ minParty: 1, maxParty: 4, durationMinutes: 90 }], ...overrides });
  const withTwoHourDinner = [lunch, { ...dinner, turnTimes: TWO_HOURS }];
  const cases: [name: string, rules: DayRules, time: string][] = [
    [
      'a blackout date',
      day({ periods: withTwoHourDinner, blackouts: [{ startDate: '2026-06-10', endDate: '2026-06-10' }] }),
      '19:00',
    ],
    ['a closed day', day({ periods: withTwoHourDinner, hours: [] }), '19:00'],
    [
      'a day whose periods lie outside its hours',
      day({ hours: everyDay('11:00', '17:00'), periods: [{ ...dinner, turnTimes: TWO_HOURS }] }),
      '16:00',
    ],
    [
      'an unreadable time, even beside a period from midnight',
      day({
        hours: everyDay('00:00', '12:00'),
        periods: [period('Breakfast', '00:00', '06:00', { turnTimes: TWO_HOURS })],
      }),
      'later',
    ],
  ];
  for (const [name, rules, time] of cases) {
    it(`takes the day's length on ${name}`, () => {
      assert.equal(bookingMinutesAt(rules, time), 90);
    });
  }
  it("takes the period's length inside it", () => {
    assert.equal(bookingMinutesAt(day({ periods: withTwoHourDinner }), '19:00'), 120);
  });
});
