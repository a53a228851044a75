import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANY_MINUTE, at, dayRules, everyDay, held, seat } from './day-rules.fixture.ts';
import { bookingMinutes, bookingMinutesAt, checkStart, daySlots, heldSpan } from './slots.ts';
import { formatMinutes, minutesOf } from './time.ts';
import type {
  BusyPeriod,
  DayRules,
  HoursRow,
  ServicePeriod,
  StartCheck,
  StartOptions,
  TurnTime,
} from './types.ts';

const iso = (instant: number) => new Date(instant).toISOString();

const SCHEDULED: StartOptions = { onGrid: true, ignoreNoticeAndWindow: false };
const STAFF: StartOptions = { onGrid: false, ignoreNoticeAndWindow: true };

const resource = (id: string, capacityMin: number, capacityMax: number, displayOrder = 0) =>
  seat(id, capacityMin, capacityMax, { name: `Resource ${id}`, displayOrder });

/** The engine's test day open 10:00-16:00 on a 30-minute grid, one resource for 1-4. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    hours: everyDay('10:00:00', '16:00:00'),
    intervalMinutes: 30,
    partySize: 2,
    resources: [resource('r1', 1, 4)],
    allowedResourceIds: null,
    resourceId: null,
    ...overrides,
  });

/**
 * A day of `timezone` open from `open` to `close` (every day's hours), asked about four weeks
 * before: the nights and days the clocks change.
 */
const dayIn = (
  timezone: string,
  date: string,
  [open, close]: [string, string],
  more: Partial<DayRules> = {},
) =>
  rules({
    date,
    timezone,
    now: at(`${date}T00:00:00Z`) - 28 * 86_400_000,
    hours: everyDay(open, close),
    ...more,
  });

const times = (day: DayRules) => daySlots(day).slots.map((slot) => slot.time);

/** time -> [start, end] as ISO instants. */
const instants = (day: DayRules) =>
  Object.fromEntries(daySlots(day).slots.map((slot) => [slot.time, [iso(slot.start), iso(slot.end)]]));

/** time -> free resource ids. */
const freeByTime = (day: DayRules) =>
  Object.fromEntries(daySlots(day).slots.map((slot) => [slot.time, slot.freeResourceIds]));

/** Times at which resource `id` is not among the free ones. */
const takenTimes = (day: DayRules, id: string) =>
  daySlots(day)
    .slots.filter((slot) => !slot.freeResourceIds.includes(id))
    .map((slot) => slot.time);

function failureOf(check: StartCheck) {
  assert.equal(check.ok, false, 'expected the start to be refused');
  if (check.ok) throw new Error('unreachable');
  assert.ok(check.message.length > 0);
  return check.reason;
}

/** The wall times every half hour from `first` to `last`, across midnight. */
function halfHours(first: string, last: string): string[] {
  const from = minutesOf(first)!;
  const count = ((minutesOf(last)! - from + 1440) % 1440) / 30 + 1;
  return Array.from({ length: count }, (_, i) => formatMinutes(from + i * 30));
}

describe('DST in Europe/Berlin', () => {
  it('skips the missing hour of the spring-forward night in an overnight window', () => {
    // Saturday 2026-03-28 20:00 CET to 04:00 CEST; clocks jump from 02:00 to 03:00 at 01:00Z.
    const day = dayIn('Europe/Berlin', '2026-03-28', ['20:00', '04:00']);
    // 02:00 and 02:30 do not exist that night.
    assert.deepEqual(times(day), [...halfHours('20:00', '01:30'), '03:00']);
    const slots = instants(day);
    assert.deepEqual(slots['20:00'], ['2026-03-28T19:00:00.000Z', '2026-03-28T20:00:00.000Z']);
    // 60 real minutes from 01:30 CET end at 03:30 CEST.
    assert.deepEqual(slots['01:30'], ['2026-03-29T00:30:00.000Z', '2026-03-29T01:30:00.000Z']);
    assert.deepEqual(slots['03:00'], ['2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z']);
  });

  it('refuses a start inside the gap, on the grid or not', () => {
    const day = dayIn('Europe/Berlin', '2026-03-29', ['01:00', '05:00']);
    assert.equal(failureOf(checkStart(day, '02:00', SCHEDULED)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(day, '02:30', SCHEDULED)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(day, '02:17', STAFF)), 'outside_operating_hours');
    const walkIn = checkStart(day, '01:45', STAFF);
    assert.ok(walkIn.ok);
    // 60 real minutes across the jump: 01:45 CET to 03:45 CEST.
    assert.equal(iso(walkIn.start), '2026-03-29T00:45:00.000Z');
    assert.equal(iso(walkIn.end), '2026-03-29T01:45:00.000Z');
  });

  it('offers the repeated hour of the fall-back night once, at its first occurrence', () => {
    // Saturday 2026-10-24 20:00 CEST to 04:00 CET; 03:00 CEST becomes 02:00 CET at 01:00Z.
    const day = dayIn('Europe/Berlin', '2026-10-24', ['20:00', '04:00']);
    assert.deepEqual(times(day), halfHours('20:00', '03:00'));
    const slots = instants(day);
    assert.deepEqual(slots['02:00'], ['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z']);
    // First 02:30 (CEST); 60 real minutes later the clock shows 02:30 again (CET).
    assert.deepEqual(slots['02:30'], ['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
    // The last start ends exactly at closing, 04:00 CET.
    assert.deepEqual(slots['03:00'], ['2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z']);
  });

  it('takes the first occurrence for a walk-in in the repeated hour', () => {
    const day = dayIn('Europe/Berlin', '2026-10-24', ['20:00', '04:00']);
    const walkIn = checkStart(day, '02:15', STAFF);
    assert.ok(walkIn.ok);
    assert.equal(iso(walkIn.start), '2026-10-25T00:15:00.000Z');
    assert.equal(failureOf(checkStart(day, '03:30', STAFF)), 'outside_operating_hours');
  });
});

describe('DST in America/New_York', () => {
  it('offers the repeated hour of 2026-11-01 once and counts real minutes to closing', () => {
    // Open 00:00 EDT to 03:00 EST (08:00Z); 02:00 EDT becomes 01:00 EST at 06:00Z.
    const day = dayIn('America/New_York', '2026-11-01', ['00:00', '03:00']);
    assert.deepEqual(instants(day), {
      '00:00': ['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z'],
      '00:30': ['2026-11-01T04:30:00.000Z', '2026-11-01T05:30:00.000Z'],
      '01:00': ['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z'],
      '01:30': ['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z'],
      '02:00': ['2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z'],
    });
  });

  it('blocks by real instants across the repeated hour', () => {
    // A block over the second 01:00-02:00 (EST) leaves the first one (EDT) free.
    const day = dayIn('America/New_York', '2026-11-01', ['00:00', '03:00'], {
      durationMinutes: 30,
      busy: [held('r1', '2026-11-01T06:00:00Z', '2026-11-01T07:00:00Z')],
    });
    assert.deepEqual(freeByTime(day), {
      '00:00': ['r1'],
      '00:30': ['r1'],
      '01:00': ['r1'],
      '01:30': ['r1'],
      '02:00': ['r1'],
      '02:30': ['r1'],
    });
  });
});

describe('the missing hour of a spring-forward night, in a daytime window 01:00-05:00', () => {
  // Half-hour slots: local starts, then their UTC start and end.
  const cases: [string, string, Record<string, string[]>][] = [
    [
      'Europe/Berlin',
      '2026-03-29',
      {
        '01:00': ['2026-03-29T00:00:00.000Z', '2026-03-29T00:30:00.000Z'],
        '01:30': ['2026-03-29T00:30:00.000Z', '2026-03-29T01:00:00.000Z'],
        '03:00': ['2026-03-29T01:00:00.000Z', '2026-03-29T01:30:00.000Z'],
        '03:30': ['2026-03-29T01:30:00.000Z', '2026-03-29T02:00:00.000Z'],
        '04:00': ['2026-03-29T02:00:00.000Z', '2026-03-29T02:30:00.000Z'],
        '04:30': ['2026-03-29T02:30:00.000Z', '2026-03-29T03:00:00.000Z'],
      },
    ],
    [
      'America/New_York',
      '2026-03-08',
      {
        '01:00': ['2026-03-08T06:00:00.000Z', '2026-03-08T06:30:00.000Z'],
        '01:30': ['2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z'],
        '03:00': ['2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z'],
        '03:30': ['2026-03-08T07:30:00.000Z', '2026-03-08T08:00:00.000Z'],
        '04:00': ['2026-03-08T08:00:00.000Z', '2026-03-08T08:30:00.000Z'],
        '04:30': ['2026-03-08T08:30:00.000Z', '2026-03-08T09:00:00.000Z'],
      },
    ],
  ];
  for (const [timezone, date, expected] of cases) {
    it(`skips it in ${timezone} on ${date}`, () => {
      assert.deepEqual(
        instants(dayIn(timezone, date, ['01:00', '05:00'], { durationMinutes: 30 })),
        expected,
      );
    });
  }
});

describe('an overnight bar, 20:00-02:00', () => {
  const bar = (overrides: Partial<DayRules> = {}) =>
    rules({ date: '2026-06-12', hours: everyDay('20:00', '02:00'), ...overrides });

  it('puts starts after midnight on the next day but in the opening day', () => {
    const slots = instants(bar());
    assert.deepEqual(Object.keys(slots), [
      '20:00',
      '20:30',
      '21:00',
      '21:30',
      '22:00',
      '22:30',
      '23:00',
      '23:30',
      '00:00',
      '00:30',
      '01:00',
    ]);
    assert.deepEqual(slots['00:30'], ['2026-06-13T00:30:00.000Z', '2026-06-13T01:30:00.000Z']);
    assert.deepEqual(slots['01:00'], ['2026-06-13T01:00:00.000Z', '2026-06-13T02:00:00.000Z']);
  });

  it('stops at last_booking_time past midnight', () => {
    assert.deepEqual(times(bar({ hours: everyDay('20:00', '02:00', '00:30') })).slice(-2), [
      '00:00',
      '00:30',
    ]);
  });

  it('accepts a start after midnight and refuses one outside the window', () => {
    const check = checkStart(bar(), '00:30', SCHEDULED);
    assert.ok(check.ok);
    assert.equal(iso(check.start), '2026-06-13T00:30:00.000Z');
    assert.equal(failureOf(checkStart(bar(), '01:30', SCHEDULED)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(bar(), '01:30', STAFF)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(bar(), '02:00', STAFF)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(bar(), '19:30', STAFF)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(bar(), '12:00', STAFF)), 'outside_operating_hours');
  });

  it('still lists and books the hours after midnight once the calendar has turned', () => {
    const afterMidnight = bar({ now: at('2026-06-13T00:10:00Z') });
    assert.deepEqual(times(afterMidnight), ['00:30', '01:00']);
    const check = checkStart(afterMidnight, '01:00', SCHEDULED);
    assert.ok(check.ok);
    assert.equal(iso(check.start), '2026-06-13T01:00:00.000Z');
    assert.equal(failureOf(checkStart(afterMidnight, '00:00', SCHEDULED)), 'outside_booking_window');
    assert.deepEqual(times(bar({ now: at('2026-06-13T03:00:00Z') })), []);
    assert.equal(daySlots(bar({ now: at('2026-06-14T00:10:00Z') })).closure, 'outside_booking_window');
  });

  it('treats close equal to open as a 24-hour window', () => {
    const day = rules({ hours: everyDay('06:00', '06:00'), intervalMinutes: 60 });
    const all = times(day);
    assert.equal(all.length, 24);
    assert.equal(all[0], '06:00');
    assert.equal(all.at(-1), '05:00');
  });
});

describe('buffers', () => {
  it('keeps both buffers clear of existing held ranges (half-open)', () => {
    const day = rules({
      intervalMinutes: 15,
      bufferBeforeMinutes: 15,
      bufferAfterMinutes: 15,
      busy: [held('r1', '2026-06-10T12:00:00Z', '2026-06-10T13:00:00Z')],
    });
    const free = freeByTime(day);
    const freeTimes = Object.keys(free).filter((time) => free[time]!.length > 0);
    assert.deepEqual(freeTimes, [
      '10:00',
      '10:15',
      '10:30',
      '10:45',
      '13:15',
      '13:30',
      '13:45',
      '14:00',
      '14:15',
      '14:30',
      '14:45',
      '15:00',
    ]);
    assert.deepEqual(free['11:00'], []);
    assert.deepEqual(free['13:00'], []);
  });

  it('reports the held range of an accepted start', () => {
    const day = rules({ bufferBeforeMinutes: 10, bufferAfterMinutes: 20 });
    const check = checkStart(day, '11:00', SCHEDULED);
    assert.ok(check.ok);
    assert.equal(iso(check.heldStart), '2026-06-10T10:50:00.000Z');
    assert.equal(iso(check.heldEnd), '2026-06-10T12:20:00.000Z');
  });

  it('does not count buffers against closing time', () => {
    const day = rules({ bufferBeforeMinutes: 30, bufferAfterMinutes: 30 });
    assert.deepEqual(times(day).slice(-1), ['15:00']);
    assert.ok(checkStart(day, '10:00', SCHEDULED).ok);
  });

  // Open 10:00-16:00, hourly bookings every 30 minutes: periods just outside the hours.
  const edges: [name: string, overrides: Partial<DayRules>, taken: string[]][] = [
    [
      'a period ending inside the buffer before opening takes the first start',
      { bufferBeforeMinutes: 15, busy: [held('r1', '2026-06-10T09:30:00Z', '2026-06-10T09:50:00Z')] },
      ['10:00'],
    ],
    [
      'a period ending where the buffer before opening begins takes nothing',
      { bufferBeforeMinutes: 15, busy: [held('r1', '2026-06-10T09:30:00Z', '2026-06-10T09:45:00Z')] },
      [],
    ],
    [
      'a period starting inside the buffer after closing takes the last start',
      { bufferAfterMinutes: 15, busy: [held('r1', '2026-06-10T16:05:00Z', '2026-06-10T16:30:00Z')] },
      ['15:00'],
    ],
    [
      'a period starting where the buffer after closing ends takes nothing',
      { bufferAfterMinutes: 15, busy: [held('r1', '2026-06-10T16:15:00Z', '2026-06-10T16:30:00Z')] },
      [],
    ],
  ];
  for (const [name, overrides, taken] of edges) {
    it(name, () => {
      const day = rules(overrides);
      assert.deepEqual(takenTimes(day, 'r1'), taken);
      for (const time of taken) assert.equal(failureOf(checkStart(day, time, SCHEDULED)), 'slot_unavailable');
    });
  }
});

describe('heldSpan', () => {
  const cases: [name: string, overrides: Partial<DayRules>, span: [start: string, end: string] | null][] = [
    ['is opening to closing without buffers', {}, ['2026-06-10T10:00:00.000Z', '2026-06-10T16:00:00.000Z']],
    [
      'widens by both buffers',
      { bufferBeforeMinutes: 10, bufferAfterMinutes: 25 },
      ['2026-06-10T09:50:00.000Z', '2026-06-10T16:25:00.000Z'],
    ],
    [
      'runs past midnight for an overnight window',
      { date: '2026-06-12', hours: everyDay('20:00', '02:00'), bufferAfterMinutes: 15 },
      ['2026-06-12T20:00:00.000Z', '2026-06-13T02:15:00.000Z'],
    ],
    [
      'counts real time across the spring-forward night in Europe/Berlin',
      { date: '2026-03-28', timezone: 'Europe/Berlin', hours: everyDay('20:00', '04:00') },
      ['2026-03-28T19:00:00.000Z', '2026-03-29T02:00:00.000Z'],
    ],
    [
      'opens at the jump when opening time is skipped',
      { date: '2026-03-29', timezone: 'Europe/Berlin', hours: everyDay('02:30', '06:00') },
      ['2026-03-29T01:00:00.000Z', '2026-03-29T04:00:00.000Z'],
    ],
    [
      'is null on a blacked-out day',
      { blackouts: [{ startDate: '2026-06-10', endDate: '2026-06-10' }] },
      null,
    ],
    ['is null on a closed day', { hours: [] }, null],
  ];
  for (const [name, overrides, span] of cases) {
    it(name, () => {
      const held = heldSpan(rules(overrides));
      assert.deepEqual(held === null ? null : [iso(held.start), iso(held.end)], span);
    });
  }
});

describe('resources', () => {
  const big = resource('big', 2, 8, 1);
  const small = resource('small', 1, 2, 5);
  const midLate = resource('mid-b', 1, 4, 2);
  const midEarly = resource('mid-a', 1, 4, 1);
  const midTwin = resource('mid-c', 1, 4, 1);
  const inactive = { ...resource('inactive', 1, 4, 0), isActive: false };
  const largeOnly = resource('large-only', 4, 10, 0);
  const all = [big, small, midLate, midEarly, midTwin, inactive, largeOnly];

  const cases: [name: string, overrides: Partial<DayRules>, free: string[]][] = [
    [
      'orders by capacity, then display order, then id',
      { partySize: 2 },
      ['small', 'mid-a', 'mid-c', 'mid-b', 'big'],
    ],
    ['drops resources the party does not fit', { partySize: 5 }, ['big', 'large-only']],
    ['leaves nothing for a party larger than every resource', { partySize: 11 }, []],
    ['keeps to the service resource_ids', { allowedResourceIds: ['big', 'mid-b'] }, ['mid-b', 'big']],
    [
      'treats empty resource_ids as any resource',
      { allowedResourceIds: [], partySize: 3 },
      ['mid-a', 'mid-c', 'mid-b', 'big'],
    ],
    ['considers only the asked-for resource', { resourceId: 'big' }, ['big']],
    [
      'finds nothing when the asked-for resource is not allowed',
      { resourceId: 'big', allowedResourceIds: ['small'] },
      [],
    ],
    ['finds nothing when the asked-for resource does not fit', { resourceId: 'small', partySize: 3 }, []],
    ['ignores an inactive resource even when asked for', { resourceId: 'inactive' }, []],
  ];
  for (const [name, overrides, free] of cases) {
    it(name, () => {
      const day = rules({ resources: all, ...overrides });
      for (const slot of daySlots(day).slots) assert.deepEqual(slot.freeResourceIds, free, slot.time);
    });
  }

  it('frees another resource when one is blocked by an external block', () => {
    const day = rules({
      resources: [resource('a', 1, 4, 1), resource('b', 1, 4, 2)],
      busy: [held('a', '2026-06-10T14:00:00Z', '2026-06-10T16:00:00Z')],
    });
    const free = freeByTime(day);
    assert.deepEqual(free['13:00'], ['a', 'b']);
    assert.deepEqual(free['13:30'], ['b']);
    assert.deepEqual(free['14:00'], ['b']);
    assert.deepEqual(free['15:00'], ['b']);
  });

  it('handles overlapping, nested and unbounded busy periods', () => {
    const day = rules({
      resources: [resource('a', 1, 4), resource('b', 1, 4), resource('c', 1, 4)],
      busy: [
        held('a', '2026-06-10T10:00:00Z', '2026-06-10T14:00:00Z'),
        held('a', '2026-06-10T11:00:00Z', '2026-06-10T11:30:00Z'),
        held('b', '2026-06-10T12:00:00Z', '2026-06-10T12:00:00Z'),
        { resourceId: 'c', start: Number.NEGATIVE_INFINITY, end: at('2026-06-10T11:00:00Z') },
        held('ghost', '2026-06-10T10:00:00Z', '2026-06-10T16:00:00Z'),
      ],
    });
    const free = freeByTime(day);
    assert.deepEqual(free['10:00'], ['b']);
    assert.deepEqual(free['11:00'], ['b', 'c']);
    // The empty period at 12:00 lies inside 11:30-12:30 and still takes nothing.
    assert.deepEqual(free['11:30'], ['b', 'c']);
    assert.deepEqual(free['13:30'], ['b', 'c']);
    assert.deepEqual(free['14:00'], ['a', 'b', 'c']);
    const check = checkStart(day, '11:30', SCHEDULED);
    assert.ok(check.ok);
    assert.deepEqual(check.freeResourceIds, ['b', 'c']);
  });

  it('orders tied resources by id, whatever order they arrive in', () => {
    const day = rules({
      resources: [
        resource('t-c', 1, 4, 1),
        resource('t-a', 1, 4, 1),
        resource('t-b', 1, 4, 1),
        resource('t-0', 1, 4, 0),
      ],
    });
    for (const slot of daySlots(day).slots)
      assert.deepEqual(slot.freeResourceIds, ['t-0', 't-a', 't-b', 't-c']);
  });

  it('lets a booking on a resource too small for the party block only that resource', () => {
    // Party of 4: "small" is no candidate; its all-day booking must not land on another one.
    const day = rules({
      partySize: 4,
      resources: [resource('a', 1, 4), resource('b', 1, 6), resource('c', 1, 8), resource('small', 1, 2)],
      busy: [
        held('c', '2026-06-10T12:00:00Z', '2026-06-10T13:00:00Z'),
        held('small', '2026-06-10T10:00:00Z', '2026-06-10T16:00:00Z'),
      ],
    });
    assert.deepEqual(takenTimes(day, 'a'), []);
    assert.deepEqual(takenTimes(day, 'b'), []);
    assert.deepEqual(takenTimes(day, 'c'), ['11:30', '12:00', '12:30']);
  });

  it('sorts busy periods that arrive out of order', () => {
    const day = rules({
      durationMinutes: 30,
      resources: [resource('a', 1, 4), resource('b', 1, 6)],
      busy: [
        held('a', '2026-06-10T15:00:00Z', '2026-06-10T15:30:00Z'),
        held('b', '2026-06-10T13:00:00Z', '2026-06-10T13:30:00Z'),
        held('b', '2026-06-10T11:00:00Z', '2026-06-10T11:30:00Z'),
        held('b', '2026-06-10T14:00:00Z', '2026-06-10T14:30:00Z'),
      ],
    });
    assert.deepEqual(takenTimes(day, 'a'), ['15:00']);
    assert.deepEqual(takenTimes(day, 'b'), ['11:00', '13:00', '14:00']);
  });

  it('sorts more than 24 busy periods on one resource', () => {
    // An hour from 13:00 first, then 24 one-minute periods from 10:46 back to 10:00.
    const periods = [held('r1', '2026-06-10T13:00:00Z', '2026-06-10T14:00:00Z')];
    for (let minute = 46; minute >= 0; minute -= 2) {
      const mm = String(minute).padStart(2, '0');
      periods.push(held('r1', `2026-06-10T10:${mm}:00Z`, `2026-06-10T10:${mm}:59Z`));
    }
    const day = rules({ durationMinutes: 30, busy: periods });
    assert.deepEqual(takenTimes(day, 'r1'), ['10:00', '10:30', '13:00', '13:30']);
  });

  it('answers slot_unavailable when no fitting resource is free', () => {
    const day = rules({ busy: [held('r1', '2026-06-10T11:30:00Z', '2026-06-10T12:00:00Z')] });
    assert.equal(failureOf(checkStart(day, '11:00', SCHEDULED)), 'slot_unavailable');
    assert.equal(failureOf(checkStart(day, '11:15', STAFF)), 'slot_unavailable');
    assert.equal(failureOf(checkStart({ ...day, partySize: 5 }, '14:00', SCHEDULED)), 'slot_unavailable');
    const check = checkStart(day, '12:00', SCHEDULED);
    assert.ok(check.ok);
    assert.deepEqual(check.freeResourceIds, ['r1']);
  });
});

describe('minimum notice and booking window', () => {
  // 2026-06-10 09:10 UTC, two hours' notice, a week ahead; open 09:00-17:00, hourly.
  const window = (overrides: Partial<DayRules> = {}) =>
    rules({
      now: at('2026-06-10T09:10:00Z'),
      hours: everyDay('09:00', '17:00'),
      intervalMinutes: 60,
      minNoticeHours: 2,
      bookingWindowDays: 7,
      ...overrides,
    });

  it('leaves out starts inside the notice today', () => {
    assert.deepEqual(times(window()), ['12:00', '13:00', '14:00', '15:00', '16:00']);
    assert.deepEqual(daySlots(window()).closure, null);
  });

  it('leaves out past starts even without notice', () => {
    assert.deepEqual(times(window({ minNoticeHours: 0 })), [
      '10:00',
      '11:00',
      '12:00',
      '13:00',
      '14:00',
      '15:00',
      '16:00',
    ]);
  });

  it('has no closure when notice removes every start of an open day', () => {
    assert.deepEqual(daySlots(window({ minNoticeHours: 24 })), { closure: null, slots: [] });
  });

  const dates: [date: string, closure: string | null, count: number][] = [
    ['2026-06-09', 'outside_booking_window', 0],
    ['2026-06-11', null, 8],
    ['2026-06-17', null, 8],
    ['2026-06-18', 'outside_booking_window', 0],
  ];
  for (const [date, closure, count] of dates) {
    it(`${date} has closure ${closure} and ${count} slots`, () => {
      const day = daySlots(window({ date }));
      assert.equal(day.closure, closure);
      assert.equal(day.slots.length, count);
    });
  }

  it("uses the business's today, not UTC's", () => {
    // 23:30 UTC on 2026-06-10 is already 2026-06-11 in Auckland.
    const late = { now: at('2026-06-10T23:30:00Z'), minNoticeHours: 0 };
    assert.equal(
      daySlots(window({ ...late, timezone: 'Pacific/Auckland' })).closure,
      'outside_booking_window',
    );
    assert.equal(
      daySlots(window({ ...late, timezone: 'Pacific/Auckland', date: '2026-06-18' })).closure,
      null,
    );
    assert.equal(daySlots(window({ ...late, timezone: 'America/Los_Angeles' })).slots.length, 0);
    assert.equal(daySlots(window({ ...late, timezone: 'America/Los_Angeles' })).closure, null);
  });

  it('refuses starts inside notice, in the past and beyond the window', () => {
    assert.equal(failureOf(checkStart(window(), '11:00', SCHEDULED)), 'outside_booking_window');
    assert.equal(failureOf(checkStart(window(), '09:00', SCHEDULED)), 'outside_booking_window');
    assert.equal(
      failureOf(checkStart(window({ date: '2026-06-09' }), '12:00', SCHEDULED)),
      'outside_booking_window',
    );
    assert.equal(
      failureOf(checkStart(window({ date: '2026-06-18' }), '12:00', SCHEDULED)),
      'outside_booking_window',
    );
    assert.ok(checkStart(window(), '12:00', SCHEDULED).ok);
  });

  it('offers a start exactly at now plus notice', () => {
    const day = window({ now: at('2026-06-10T09:00:00Z') });
    assert.deepEqual(times(day)[0], '11:00');
    assert.ok(checkStart(day, '11:00', SCHEDULED).ok);
  });

  it('offers a start exactly at now without notice', () => {
    const day = window({ now: at('2026-06-10T09:00:00Z'), minNoticeHours: 0 });
    assert.deepEqual(times(day)[0], '09:00');
    assert.ok(checkStart(day, '09:00', SCHEDULED).ok);
  });

  it('books the last day of the window', () => {
    assert.ok(checkStart(window({ date: '2026-06-17' }), '12:00', SCHEDULED).ok);
  });

  it('closes a window ending at midnight once the next day has begun', () => {
    const evening = (now: string) =>
      daySlots(window({ hours: everyDay('18:00', '00:00'), now: at(now), minNoticeHours: 0 }));
    assert.deepEqual(evening('2026-06-10T22:10:00Z'), {
      closure: null,
      slots: [
        {
          time: '23:00',
          start: at('2026-06-10T23:00:00Z'),
          end: at('2026-06-11T00:00:00Z'),
          freeResourceIds: ['r1'],
          freeCombinationIds: [],
          period: null,
        },
      ],
    });
    assert.equal(evening('2026-06-11T00:10:00Z').closure, 'outside_booking_window');
  });

  it('lets staff ignore notice and window', () => {
    assert.ok(checkStart(window(), '09:30', STAFF).ok);
    assert.ok(checkStart(window({ date: '2026-06-18' }), '12:00', STAFF).ok);
    assert.ok(checkStart(window({ date: '2026-06-09' }), '12:00', STAFF).ok);
  });
});

describe('last_booking_time', () => {
  const cases: [name: string, hours: HoursRow[], last: string][] = [
    ['defaults to close minus the booking length', everyDay('10:00', '22:00'), '21:00'],
    ['stops at last_booking_time', everyDay('10:00', '22:00', '20:00'), '20:00'],
    ['still never ends after close', everyDay('10:00', '22:00', '21:30'), '21:00'],
    ['allows only the opening start when it equals opening', everyDay('10:00', '22:00', '10:00'), '10:00'],
  ];
  for (const [name, hours, last] of cases) {
    it(name, () => {
      assert.equal(times(rules({ hours, intervalMinutes: 60 })).at(-1), last);
    });
  }

  it('refuses a later start, on the grid or not', () => {
    const day = rules({ hours: everyDay('10:00', '22:00', '20:00') });
    assert.ok(checkStart(day, '20:00', SCHEDULED).ok);
    assert.equal(failureOf(checkStart(day, '20:30', SCHEDULED)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(day, '20:01', STAFF)), 'outside_operating_hours');
  });

  it('refuses a start that would end after closing', () => {
    const day = rules();
    assert.ok(checkStart(day, '15:00', STAFF).ok);
    assert.equal(failureOf(checkStart(day, '15:01', STAFF)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(day, '15:30', SCHEDULED)), 'outside_operating_hours');
  });
});

describe('the slot grid', () => {
  it('counts the grid from opening time', () => {
    const day = rules({ hours: everyDay('10:15', '13:00') });
    assert.deepEqual(times(day), ['10:15', '10:45', '11:15', '11:45']);
    assert.equal(failureOf(checkStart(day, '10:30', SCHEDULED)), 'off_grid');
    assert.ok(checkStart(day, '10:45', SCHEDULED).ok);
  });

  const grids: [open: string, interval: number, onGrid: string, offGrid: string][] = [
    ['10:10', 30, '10:40', '10:30'],
    ['10:15', 20, '10:35', '10:45'],
    ['10:15', 45, '11:00', '10:45'],
  ];
  for (const [open, interval, onGrid, offGrid] of grids) {
    it(`counts a ${interval}-minute grid from ${open}`, () => {
      const day = rules({ hours: everyDay(open, '16:00'), intervalMinutes: interval });
      assert.equal(times(day)[1], onGrid);
      assert.ok(checkStart(day, onGrid, SCHEDULED).ok);
      assert.equal(failureOf(checkStart(day, offGrid, SCHEDULED)), 'off_grid');
    });
  }

  it('takes a one-minute grid', () => {
    const day = rules({ hours: everyDay('10:00', '10:05'), intervalMinutes: 1, durationMinutes: 3 });
    assert.deepEqual(times(day), ['10:00', '10:01', '10:02']);
  });

  for (const intervalMinutes of [0, Number.NaN]) {
    it(`refuses an interval of ${intervalMinutes} minutes`, () => {
      assert.throws(() => daySlots(rules({ intervalMinutes })), {
        name: 'RangeError',
        message: 'intervalMinutes must be at least 1',
      });
    });
  }

  it('takes any minute inside hours off the grid', () => {
    const day = rules();
    assert.equal(failureOf(checkStart(day, '10:10', SCHEDULED)), 'off_grid');
    const check = checkStart(day, '10:10', ANY_MINUTE);
    assert.ok(check.ok);
    assert.equal(iso(check.start), '2026-06-10T10:10:00.000Z');
    assert.equal(iso(check.end), '2026-06-10T11:10:00.000Z');
  });

  it('reports hours before the grid', () => {
    assert.equal(failureOf(checkStart(rules(), '09:45', SCHEDULED)), 'outside_operating_hours');
  });

  const malformed = ['25:00', '1000', '10:60', '', 'noon'];
  for (const time of malformed) {
    it(`refuses the malformed time ${JSON.stringify(time)}`, () => {
      assert.equal(failureOf(checkStart(rules(), time, STAFF)), 'outside_operating_hours');
    });
  }

  it('accepts HH:MM:SS', () => {
    assert.ok(checkStart(rules(), '11:00:00', SCHEDULED).ok);
  });
});

describe('closed days and blackouts', () => {
  const blackouts = [{ startDate: '2026-06-10', endDate: '2026-06-12' }];
  const closedDays: HoursRow[] = [
    ...everyDay('10:00', '16:00').filter((row) => row.dayOfWeek !== 4 && row.dayOfWeek !== 5),
    { dayOfWeek: 5, isOpen: false, openTime: null, closeTime: null, lastBookingTime: null },
  ];
  const cases: [date: string, closure: string | null][] = [
    ['2026-06-09', null],
    ['2026-06-10', 'blackout'],
    ['2026-06-11', 'blackout'], // a Thursday with no hours row: the blackout is checked first
    ['2026-06-12', 'blackout'],
    ['2026-06-13', null],
    ['2026-06-18', 'closed'], // Thursday, no row
    ['2026-06-19', 'closed'], // Friday, is_open false
  ];
  for (const [date, closure] of cases) {
    it(`${date} has closure ${closure}`, () => {
      const day = rules({ date, blackouts, hours: closedDays });
      const result = daySlots(day);
      assert.equal(result.closure, closure);
      assert.equal(result.slots.length === 0, closure !== null);
      if (closure !== null)
        assert.equal(failureOf(checkStart(day, '11:00', STAFF)), 'outside_operating_hours');
    });
  }

  const malformedHours: [name: string, hours: HoursRow[]][] = [
    ['a malformed opening time', everyDay('9:00', '16:00')],
    ['a malformed closing time', everyDay('09:00', '24:00')],
  ];
  for (const [name, hours] of malformedHours) {
    it(`treats ${name} as closed`, () => {
      const day = rules({ hours });
      assert.deepEqual(daySlots(day), { closure: 'closed', slots: [] });
      assert.equal(failureOf(checkStart(day, '11:00', STAFF)), 'outside_operating_hours');
      assert.equal(heldSpan(day), null);
    });
  }

  it('reports a blackout before the booking window', () => {
    const day = rules({
      date: '2027-01-10',
      blackouts: [{ startDate: '2027-01-10', endDate: '2027-01-10' }],
    });
    assert.equal(daySlots(day).closure, 'blackout');
  });
});

describe('daySlots and checkStart agree', () => {
  const resources = [
    resource('a', 1, 2, 3),
    resource('b', 1, 6, 1),
    resource('c', 2, 4, 2),
    resource('d', 1, 4, 2),
  ];
  // Thirty periods on one resource exercise the sorted index beyond its small-group path.
  const crowded: BusyPeriod[] = [];
  for (let k = 29; k >= 0; k--) {
    const start = at('2026-10-24T18:00:00Z') + ((k * 37) % 420) * 60_000;
    crowded.push({ resourceId: 'b', start, end: start + 20 * 60_000 });
  }
  const days: [name: string, day: DayRules][] = [
    [
      'a UTC day with buffers and blocks',
      rules({
        resources,
        intervalMinutes: 15,
        bufferBeforeMinutes: 10,
        bufferAfterMinutes: 5,
        busy: [
          held('a', '2026-06-10T11:00:00Z', '2026-06-10T12:10:00Z'),
          held('c', '2026-06-10T10:00:00Z', '2026-06-10T10:45:00Z'),
          held('c', '2026-06-10T13:05:00Z', '2026-06-10T14:00:00Z'),
          held('d', '2026-06-10T14:20:00Z', '2026-06-10T14:30:00Z'),
        ],
      }),
    ],
    [
      'turn times by party size',
      rules({
        resources,
        partySize: 2,
        turnTimes: [
          { minParty: 1, maxParty: 2, durationMinutes: 45 },
          { minParty: 3, maxParty: 6, durationMinutes: 120 },
        ],
        busy: [held('b', '2026-06-10T12:00:00Z', '2026-06-10T13:00:00Z')],
      }),
    ],
    [
      'the Berlin fall-back night with a crowded resource',
      dayIn('Europe/Berlin', '2026-10-24', ['20:00', '04:00'], {
        intervalMinutes: 15,
        durationMinutes: 45,
        bufferAfterMinutes: 10,
        resources,
        busy: [
          ...crowded,
          held('d', '2026-10-25T00:10:00Z', '2026-10-25T01:20:00Z'),
          { resourceId: 'a', start: at('2026-10-25T01:30:00Z'), end: Number.POSITIVE_INFINITY },
        ],
      }),
    ],
  ];
  for (const [name, day] of days) {
    it(name, () => {
      const { slots } = daySlots(day);
      assert.ok(slots.length > 0);
      let unavailable = 0;
      for (const slot of slots) {
        const check = checkStart(day, slot.time, SCHEDULED);
        if (slot.freeResourceIds.length === 0) {
          unavailable++;
          assert.equal(failureOf(check), 'slot_unavailable', slot.time);
          continue;
        }
        assert.ok(check.ok, slot.time);
        assert.deepEqual(
          [check.start, check.end, check.freeResourceIds],
          [slot.start, slot.end, slot.freeResourceIds],
          slot.time,
        );
      }
      assert.ok(unavailable < slots.length);
    });
  }
});

describe('refusal messages', () => {
  // 2026-06-10 09:10 UTC, open 09:00-17:00 hourly, two hours' notice, a week ahead.
  const day = (overrides: Partial<DayRules> = {}) =>
    rules({
      now: at('2026-06-10T09:10:00Z'),
      hours: everyDay('09:00', '17:00'),
      intervalMinutes: 60,
      minNoticeHours: 2,
      bookingWindowDays: 7,
      ...overrides,
    });
  const cases: [overrides: Partial<DayRules>, time: string, message: string][] = [
    [{}, '9:00', '9:00 is not a valid HH:MM time.'],
    [{}, '17:00', '17:00 is outside opening hours (09:00-17:00) on 2026-06-10.'],
    [{}, '08:00', '08:00 is outside opening hours (09:00-17:00) on 2026-06-10.'],
    [{}, '09:00', '2026-06-10 09:00 is in the past.'],
    [{ minNoticeHours: 0 }, '09:00', '2026-06-10 09:00 is in the past.'],
    [{}, '11:00', 'Bookings need 2 hours notice; 2026-06-10 11:00 is too soon.'],
    [{ minNoticeHours: 1 }, '10:00', 'Bookings need 1 hour notice; 2026-06-10 10:00 is too soon.'],
    [{ date: '2026-06-18' }, '12:00', 'Bookings open 7 days ahead; 2026-06-18 is after 2026-06-17.'],
    [
      { date: '2026-06-12', bookingWindowDays: 1 },
      '12:00',
      'Bookings open 1 day ahead; 2026-06-12 is after 2026-06-11.',
    ],
  ];
  for (const [overrides, time, message] of cases) {
    it(message, () => {
      const check = checkStart(day(overrides), time, SCHEDULED);
      assert.ok(!check.ok);
      assert.equal(check.message, message);
    });
  }
});

describe('turn times', () => {
  const turnTimes: TurnTime[] = [
    { minParty: 1, maxParty: 2, durationMinutes: 60 },
    { minParty: 3, maxParty: 4, durationMinutes: 90 },
    { minParty: 6, maxParty: 50, durationMinutes: 120 },
  ];
  const lengths: [name: string, turnTimes: TurnTime[] | undefined, partySize: number, minutes: number][] = [
    ['no turn times: the length given', undefined, 6, 75],
    ['an empty list: the length given', [], 6, 75],
    ['the lowest party of a range', turnTimes, 1, 60],
    ['the highest party of a range', turnTimes, 2, 60],
    ['the next range', turnTimes, 3, 90],
    ['a party no range covers: the length given', turnTimes, 5, 75],
    ['the last range', turnTimes, 50, 120],
  ];
  for (const [name, list, partySize, minutes] of lengths) {
    it(`bookingMinutes: ${name}`, () => {
      assert.equal(bookingMinutes({ turnTimes: list, partySize, durationMinutes: 75 }), minutes);
    });
  }

  // Open 10:00-16:00, one table for 1-8, taken 12:00-13:00.
  const day = (partySize: number) =>
    rules({
      partySize,
      turnTimes,
      resources: [resource('t', 1, 8)],
      busy: [held('t', '2026-06-10T12:00:00Z', '2026-06-10T13:00:00Z')],
    });
  const free: [partySize: number, times: string[], lastStart: string][] = [
    [2, ['10:00', '10:30', '11:00', '13:00', '13:30', '14:00', '14:30', '15:00'], '15:00'],
    [4, ['10:00', '10:30', '13:00', '13:30', '14:00', '14:30'], '14:30'],
    [5, ['10:00', '10:30', '11:00', '13:00', '13:30', '14:00', '14:30', '15:00'], '15:00'],
    [6, ['10:00', '13:00', '13:30', '14:00'], '14:00'],
  ];
  for (const [partySize, times, lastStart] of free) {
    it(`holds a party of ${partySize} for its own length`, () => {
      const slots = daySlots(day(partySize)).slots;
      assert.deepEqual(
        slots.filter((slot) => slot.freeResourceIds.length > 0).map((slot) => slot.time),
        times,
      );
      assert.equal(slots.at(-1)?.time, lastStart);
      for (const slot of slots) {
        assert.equal(slot.end - slot.start, bookingMinutes(day(partySize)) * 60_000, slot.time);
      }
    });
  }

  it('refuses a party of 6 at a start that fits 90 minutes but not its 120', () => {
    assert.ok(checkStart(day(4), '10:30', SCHEDULED).ok);
    assert.equal(failureOf(checkStart(day(6), '10:30', SCHEDULED)), 'slot_unavailable');
    const late = checkStart(day(6), '14:30', SCHEDULED);
    assert.ok(!late.ok);
    assert.equal(late.message, 'A 120-minute booking at 14:30 would end after closing time (16:00).');
  });

  it('places an accepted start for the turn time, buffers around it', () => {
    const check = checkStart({ ...day(6), bufferBeforeMinutes: 10, bufferAfterMinutes: 15 }, '13:30', STAFF);
    assert.ok(check.ok);
    assert.deepEqual([check.start, check.end, check.heldStart, check.heldEnd].map(iso), [
      '2026-06-10T13:30:00.000Z',
      '2026-06-10T15:30:00.000Z',
      '2026-06-10T13:20:00.000Z',
      '2026-06-10T15:45:00.000Z',
    ]);
  });
});

describe('service periods', () => {
  const period = (
    name: string,
    startTime: string,
    endTime: string,
    more: Partial<ServicePeriod> = {},
  ): ServicePeriod => ({
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
  });
  const lunch = period('Lunch', '12:00', '14:30', { intervalMinutes: 15 });
  const dinner = period('Dinner', '18:00', '22:30');
  /** The bistro: open 11:00-23:00 on Wednesday 2026-06-10, lunch and dinner. */
  const bistro = (overrides: Partial<DayRules> = {}) =>
    rules({ hours: everyDay('11:00', '23:00'), periods: [dinner, lunch], ...overrides });
  const range = (from: string, to: string, step: number) => {
    const list: string[] = [];
    for (let m = minutesOfTest(from); m <= minutesOfTest(to); m += step) {
      list.push(`${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
    }
    return list;
  };
  function minutesOfTest(time: string) {
    const [h, m] = time.split(':').map(Number);
    return h! * 60 + m!;
  }

  const grids: [name: string, day: DayRules, expected: string[]][] = [
    [
      'two periods, each on its own grid, in time order',
      bistro(),
      [...range('12:00', '13:30', 15), ...range('18:00', '21:30', 30)],
    ],
    [
      'a weekday without periods keeps its hours',
      bistro({ periods: [{ ...dinner, daysOfWeek: [1] }] }),
      range('11:00', '22:00', 30),
    ],
    ['no periods at all keeps the hours', bistro({ periods: [] }), range('11:00', '22:00', 30)],
    [
      'a period grid from its own start',
      bistro({ periods: [period('Brunch', '11:10', '13:00', { intervalMinutes: 20 })] }),
      range('11:10', '11:50', 20),
    ],
    [
      'a last start of its own',
      bistro({ periods: [{ ...dinner, lastStartTime: '20:00' }] }),
      range('18:00', '20:00', 30),
    ],
    [
      'the hours cut a period the hours no longer hold',
      bistro({ hours: everyDay('19:00', '23:00'), periods: [dinner] }),
      range('19:00', '21:30', 30),
    ],
    [
      "the hours' last booking time still binds",
      bistro({ hours: everyDay('11:00', '23:00', '19:00'), periods: [dinner] }),
      range('18:00', '19:00', 30),
    ],
    [
      'its own turn times',
      bistro({ periods: [{ ...dinner, turnTimes: [{ minParty: 1, maxParty: 4, durationMinutes: 120 }] }] }),
      range('18:00', '20:30', 30),
    ],
    [
      "the day's turn times when it has none",
      bistro({ periods: [dinner], turnTimes: [{ minParty: 1, maxParty: 4, durationMinutes: 90 }] }),
      range('18:00', '21:00', 30),
    ],
    [
      'an overnight period of an overnight day',
      bistro({ hours: everyDay('20:00', '03:00'), periods: [period('Late', '22:00', '02:00')] }),
      range('22:00', '25:00', 30),
    ],
    [
      'a period after midnight of an overnight day',
      bistro({ hours: everyDay('20:00', '03:00'), periods: [period('Night', '00:30', '02:30')] }),
      range('24:30', '25:30', 30),
    ],
  ];
  for (const [name, day, expected] of grids) {
    it(`offers ${name}`, () => {
      assert.deepEqual(times(day), expected);
      for (const time of expected) assert.ok(checkStart(day, time, SCHEDULED).ok, time);
    });
  }

  it('names on each slot the period whose grid holds it, none on a day without periods', () => {
    const named = (day: DayRules) =>
      daySlots(day).slots.map((slot) => `${slot.time} ${slot.period?.name ?? '-'}`);
    assert.deepEqual(named(bistro()), [
      ...range('12:00', '13:30', 15).map((time) => `${time} Lunch`),
      ...range('18:00', '21:30', 30).map((time) => `${time} Dinner`),
    ]);
    assert.deepEqual(daySlots(bistro()).slots[0]!.period, { id: 'lunch', name: 'Lunch' });
    assert.ok(daySlots(bistro({ periods: [] })).slots.every((slot) => slot.period === null));
  });

  it('skips the missing hour of the spring-forward night inside an overnight period', () => {
    const day = dayIn('Europe/Berlin', '2026-03-28', ['20:00', '04:00'], {
      periods: [period('Late', '00:00', '04:00')],
    });
    assert.deepEqual(times(day), ['00:00', '00:30', '01:00', '01:30', '03:00']);
    assert.equal(failureOf(checkStart(day, '02:30', SCHEDULED)), 'outside_operating_hours');
    assert.equal(failureOf(checkStart(day, '21:00', STAFF)), 'outside_operating_hours');
  });

  const refusals: [
    name: string,
    day: DayRules,
    time: string,
    options: StartOptions,
    reason: string,
    message: RegExp,
  ][] = [
    [
      'the gap between lunch and dinner',
      bistro(),
      '15:00',
      SCHEDULED,
      'outside_operating_hours',
      /outside the service periods of 2026-06-10 \(Lunch 12:00-14:30, Dinner 18:00-22:30\)/,
    ],
    ['the gap, for any minute', bistro(), '16:10', STAFF, 'outside_operating_hours', /service periods/],
    [
      'outside the hours',
      bistro(),
      '10:00',
      SCHEDULED,
      'outside_operating_hours',
      /outside opening hours \(11:00-23:00\)/,
    ],
    [
      'a booking running past the period',
      bistro(),
      '14:00',
      SCHEDULED,
      'outside_operating_hours',
      /would end after Lunch ends \(14:30\)/,
    ],
    [
      "after the period's last start",
      bistro({ periods: [{ ...dinner, lastStartTime: '20:00' }] }),
      '20:30',
      SCHEDULED,
      'outside_operating_hours',
      /last booking of Dinner on 2026-06-10 starts at 20:00/,
    ],
    ["off the period's grid", bistro(), '12:20', SCHEDULED, 'off_grid', /every 15 minutes from 12:00/],
    [
      'a day whose periods lie outside its hours',
      bistro({ hours: everyDay('11:00', '17:00'), periods: [dinner] }),
      '12:00',
      SCHEDULED,
      'outside_operating_hours',
      /No service period/,
    ],
  ];
  for (const [name, day, time, options, reason, message] of refusals) {
    it(`refuses ${name}`, () => {
      const check = checkStart(day, time, options);
      assert.equal(failureOf(check), reason);
      assert.match((check as { message: string }).message, message);
    });
  }

  it('closes a day whose periods leave nothing inside its hours as outside_period', () => {
    assert.deepEqual(daySlots(bistro({ hours: everyDay('11:00', '17:00'), periods: [dinner] })), {
      closure: 'outside_period',
      slots: [],
    });
  });

  it("offers only the period's resources in it, and all in a period without", () => {
    const day = bistro({
      resources: [resource('terrace', 1, 4), resource('inside', 1, 4, 1)],
      periods: [{ ...lunch, resourceIds: ['terrace'] }, dinner],
    });
    const free = freeByTime(day);
    assert.deepEqual(free['12:00'], ['terrace']);
    assert.deepEqual(free['18:00'], ['terrace', 'inside']);
    const check = checkStart(day, '12:15', SCHEDULED);
    assert.ok(check.ok && check.freeResourceIds.join() === 'terrace');
    const busyTerrace = { ...day, busy: [held('terrace', '2026-06-10T12:00:00Z', '2026-06-10T15:00:00Z')] };
    assert.equal(failureOf(checkStart(busyTerrace, '12:15', SCHEDULED)), 'slot_unavailable');
  });

  const lengths: [time: string, minutes: number][] = [
    ['12:00', 60],
    ['18:30', 120],
    ['15:00', 60],
    ['garbage', 60],
  ];
  for (const [time, minutes] of lengths) {
    it(`takes the length of the period a booking starts in: ${time} lasts ${minutes}`, () => {
      const day = bistro({
        periods: [lunch, { ...dinner, turnTimes: [{ minParty: 1, maxParty: 4, durationMinutes: 120 }] }],
      });
      assert.equal(bookingMinutesAt(day, time), minutes);
    });
  }

  it('agrees with checkStart on every slot of a busy bistro day', () => {
    const day = bistro({
      resources: [resource('a', 1, 4), resource('b', 1, 6, 1)],
      periods: [
        { ...lunch, resourceIds: ['a'] },
        { ...dinner, turnTimes: [{ minParty: 1, maxParty: 2, durationMinutes: 90 }] },
      ],
      busy: [
        held('a', '2026-06-10T12:30:00Z', '2026-06-10T13:15:00Z'),
        held('b', '2026-06-10T19:00:00Z', '2026-06-10T20:00:00Z'),
      ],
    });
    for (const slot of daySlots(day).slots) {
      const check = checkStart(day, slot.time, SCHEDULED);
      if (slot.freeResourceIds.length === 0) {
        assert.equal(failureOf(check), 'slot_unavailable', slot.time);
        continue;
      }
      assert.ok(check.ok, slot.time);
      assert.deepEqual(
        [check.start, check.end, check.freeResourceIds],
        [slot.start, slot.end, slot.freeResourceIds],
        slot.time,
      );
    }
  });
});
