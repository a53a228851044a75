import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { at, dayRules, everyDay, seat } from './day-rules.fixture.ts';
import { explainDay, freeResources, UNOFFERED_REASONS } from './explain.ts';
import { daySlots } from './slots.ts';
import type { BusyPeriod, DayRules, ServicePeriod } from './types.ts';

const MINUTE_MS = 60_000;

const table = (id: string, capacityMin: number, capacityMax: number) => seat(id, capacityMin, capacityMax);

const period = (
  overrides: Partial<ServicePeriod> & Pick<ServicePeriod, 'startTime' | 'endTime'>,
): ServicePeriod => ({
  id: 'lunch',
  name: 'Lunch',
  daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
  lastStartTime: null,
  intervalMinutes: null,
  turnTimes: null,
  resourceIds: [],
  ...overrides,
});

/** The engine's test day on a 30-minute grid for two guests, two tables. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    intervalMinutes: 30,
    partySize: 2,
    resources: [table('t2', 1, 2), table('t4', 1, 4)],
    allowedResourceIds: null,
    resourceId: null,
    ...overrides,
  });

/** time -> reasons */
const reasonsOf = (day: DayRules) =>
  Object.fromEntries(explainDay(day).map((explained) => [explained.time, explained.reasons]));

const held = (resourceId: string, from: string, to: string, kind?: BusyPeriod['kind']): BusyPeriod => ({
  resourceId,
  start: at(`2026-06-10T${from}:00Z`),
  end: at(`2026-06-10T${to}:00Z`),
  ...(kind ? { kind } : {}),
});

describe('explainDay', () => {
  it('gives an offered time no reason, with the free resources daySlots finds', () => {
    const explained = explainDay(rules());
    assert.deepEqual(
      explained.map(({ time, reasons, freeResourceIds }) => [time, reasons, freeResourceIds]),
      [
        ['10:00', [], ['t2', 't4']],
        ['10:30', [], ['t2', 't4']],
        ['11:00', [], ['t2', 't4']],
        ['11:30', [], ['t2', 't4']],
        ['12:00', [], ['t2', 't4']],
        ['12:30', ['closed'], []],
      ],
    );
    assert.equal(explained[0]!.start, at('2026-06-10T10:00:00Z'));
    assert.equal(explained[0]!.period, null);
  });

  it('has no times on a weekday without hours, and rejects a grid without a step', () => {
    const wednesdayClosed = everyDay('10:00', '13:00').map((row) =>
      row.dayOfWeek === 3 ? { ...row, isOpen: false } : row,
    );
    assert.deepEqual(explainDay(rules({ hours: wednesdayClosed })), []);
    assert.throws(() => explainDay(rules({ intervalMinutes: 0 })), /intervalMinutes must be at least 1/);
    assert.equal(explainDay(rules({ intervalMinutes: 1 })).length, 180);
  });

  it('past: a start before now; notice: a start inside minimum notice', () => {
    const now = at('2026-06-10T10:45:00Z');
    assert.deepEqual(reasonsOf(rules({ now, minNoticeHours: 1 })), {
      '10:00': ['past'],
      '10:30': ['past'],
      '11:00': ['notice'],
      '11:30': ['notice'],
      '12:00': [],
      '12:30': ['closed'],
    });
  });

  it('notice reaches a start exactly at its end, and past ends at now', () => {
    const now = at('2026-06-10T11:00:00Z');
    const reasons = reasonsOf(rules({ now, minNoticeHours: 1 }));
    assert.deepEqual(
      [reasons['10:30'], reasons['11:00'], reasons['11:30'], reasons['12:00']],
      [['past'], ['notice'], ['notice'], []],
    );
  });

  it('window: a date beyond the booking window, on every time', () => {
    const reasons = reasonsOf(rules({ bookingWindowDays: 8 }));
    assert.deepEqual(reasons['10:00'], ['window']);
    assert.deepEqual(reasons['12:30'], ['window', 'closed']);
    assert.deepEqual(reasonsOf(rules({ bookingWindowDays: 9 }))['10:00'], []);
  });

  it('blackout: a blackout covering the date, on every time, its first and last day included', () => {
    for (const blackout of [
      { startDate: '2026-06-10', endDate: '2026-06-12' },
      { startDate: '2026-06-08', endDate: '2026-06-10' },
    ]) {
      const reasons = reasonsOf(rules({ blackouts: [blackout] }));
      assert.deepEqual(reasons['10:00'], ['blackout']);
      assert.deepEqual(reasons['12:30'], ['closed', 'blackout']);
    }
    assert.deepEqual(
      reasonsOf(rules({ blackouts: [{ startDate: '2026-06-11', endDate: '2026-06-12' }] }))['10:00'],
      [],
    );
  });

  it('closed: after the last booking time, or a booking that would end after closing', () => {
    const reasons = reasonsOf(rules({ hours: everyDay('10:00', '13:00', '11:00') }));
    assert.deepEqual(
      Object.entries(reasons).map(([time, why]) => [time, why.join()]),
      [
        ['10:00', ''],
        ['10:30', ''],
        ['11:00', ''],
        ['11:30', 'closed'],
        ['12:00', 'closed'],
        ['12:30', 'closed'],
      ],
    );
  });

  it('closed: a time the clocks skip, with no start', () => {
    const explained = explainDay(
      rules({
        date: '2026-03-29',
        timezone: 'Europe/Berlin',
        now: at('2026-03-20T00:00:00Z'),
        hours: everyDay('01:00', '05:00'),
        intervalMinutes: 60,
      }),
    );
    assert.deepEqual(
      explained.map(({ time, start, reasons, freeResourceIds }) => [
        time,
        start,
        reasons,
        freeResourceIds.length,
      ]),
      [
        ['01:00', at('2026-03-29T00:00:00Z'), [], 2],
        ['02:00', null, ['closed'], 0],
        ['03:00', at('2026-03-29T01:00:00Z'), [], 2],
        ['04:00', at('2026-03-29T02:00:00Z'), [], 2],
      ],
    );
  });

  describe('service periods', () => {
    const day = (periods: ServicePeriod[], overrides: Partial<DayRules> = {}) =>
      explainDay(rules({ hours: everyDay('10:00', '15:00'), intervalMinutes: 60, periods, ...overrides }));
    const view = (explained: ReturnType<typeof explainDay>) =>
      explained.map(({ time, period, reasons }) => [time, period?.name ?? null, reasons.join()]);

    it("outside_period: the hours' grid where no period is; inside a period its own grid", () => {
      assert.deepEqual(view(day([period({ startTime: '11:00', endTime: '13:00', intervalMinutes: 30 })])), [
        ['10:00', null, 'outside_period'],
        ['11:00', 'Lunch', ''],
        ['11:30', 'Lunch', ''],
        ['12:00', 'Lunch', ''],
        ['12:30', 'Lunch', 'outside_period'],
        ['13:00', null, 'outside_period'],
        ['14:00', null, 'outside_period'],
      ]);
    });

    it("outside_period: after a period's last start; closed: after the hours' last booking time or closing", () => {
      const lunch = period({
        startTime: '11:00',
        endTime: '16:00',
        lastStartTime: '12:00',
        intervalMinutes: 30,
      });
      assert.deepEqual(view(day([lunch])).slice(1, 5), [
        ['11:00', 'Lunch', ''],
        ['11:30', 'Lunch', ''],
        ['12:00', 'Lunch', ''],
        ['12:30', 'Lunch', 'outside_period'],
      ]);
      const late = period({ startTime: '11:00', endTime: '16:00', intervalMinutes: 30 });
      assert.deepEqual(view(day([late], { hours: everyDay('10:00', '15:00', '13:00') })).slice(-4), [
        ['13:00', 'Lunch', ''],
        ['13:30', 'Lunch', 'closed'],
        ['14:00', 'Lunch', 'closed'],
        ['14:30', 'Lunch', 'closed'],
      ]);
      // A period's last start before the hours' last booking time: after it, outside the period.
      const early = period({
        startTime: '11:00',
        endTime: '16:00',
        lastStartTime: '12:30',
        intervalMinutes: 30,
      });
      assert.deepEqual(view(day([early], { hours: everyDay('10:00', '15:00', '13:00') })).slice(4, 7), [
        ['12:30', 'Lunch', ''],
        ['13:00', 'Lunch', 'outside_period'],
        ['13:30', 'Lunch', 'closed'],
      ]);
      // A booking ending after the period but exactly at closing is outside the period.
      const short = period({ startTime: '11:00', endTime: '14:00', intervalMinutes: 30 });
      assert.deepEqual(view(day([short], { durationMinutes: 90 })).slice(4, 7), [
        ['12:30', 'Lunch', ''],
        ['13:00', 'Lunch', 'outside_period'],
        ['13:30', 'Lunch', 'outside_period'],
      ]);
      // The period runs past closing: the hours end it.
      assert.deepEqual(view(day([late])).slice(-3), [
        ['13:30', 'Lunch', ''],
        ['14:00', 'Lunch', ''],
        ['14:30', 'Lunch', 'closed'],
      ]);
    });

    it('outside_period on every time of the hours when no period of the weekday lies inside them', () => {
      const explained = day([period({ startTime: '18:00', endTime: '20:00' })]);
      assert.equal(explained.length, 5);
      assert.ok(
        explained.every(({ period, reasons }) => period === null && reasons.join() === 'outside_period'),
      );
    });

    it("no_resource_fits_party: the period's resources leave none that takes the party", () => {
      const terrace = period({ startTime: '11:00', endTime: '13:00', resourceIds: ['t2'] });
      assert.deepEqual(view(day([terrace], { partySize: 3 })).slice(1, 3), [
        ['11:00', 'Lunch', 'no_resource_fits_party'],
        ['12:00', 'Lunch', 'no_resource_fits_party'],
      ]);
      assert.deepEqual(view(day([terrace], { partySize: 2 }))[1], ['11:00', 'Lunch', '']);
      assert.deepEqual(view(day([], { partySize: 3 }))[1], ['11:00', null, '']);
    });
  });

  it('no_resource_fits_party: no active resource, allowed by the service and asked for, takes the party', () => {
    assert.deepEqual(reasonsOf(rules({ partySize: 5 }))['10:00'], ['no_resource_fits_party']);
    assert.deepEqual(reasonsOf(rules({ partySize: 3, allowedResourceIds: ['t2'] }))['10:00'], [
      'no_resource_fits_party',
    ]);
    assert.deepEqual(reasonsOf(rules({ partySize: 3, resourceId: 't2' }))['10:00'], [
      'no_resource_fits_party',
    ]);
    const inactive = [table('t2', 1, 2), { ...table('t4', 1, 4), isActive: false }];
    assert.deepEqual(reasonsOf(rules({ partySize: 3, resources: inactive }))['10:00'], [
      'no_resource_fits_party',
    ]);
    assert.deepEqual(reasonsOf(rules({ partySize: 3 }))['10:00'], []);
  });

  it('all_resources_busy: every fitting resource held by a booking; blocked: one held only by a block', () => {
    const party3 = { partySize: 3 };
    assert.deepEqual(reasonsOf(rules({ ...party3, busy: [held('t4', '10:00', '11:00')] })), {
      '10:00': ['all_resources_busy'],
      '10:30': ['all_resources_busy'],
      '11:00': [],
      '11:30': [],
      '12:00': [],
      '12:30': ['closed'],
    });
    assert.deepEqual(
      reasonsOf(rules({ ...party3, busy: [held('t4', '10:00', '11:00', 'booking')] }))['10:00'],
      ['all_resources_busy'],
    );
    assert.deepEqual(
      reasonsOf(rules({ ...party3, busy: [held('t4', '10:00', '11:00', 'block')] }))['10:00'],
      ['blocked'],
    );
    // A resource both booked and blocked at a time is busy; once the booking ends, only blocked.
    const both = [held('t4', '10:00', '11:00', 'block'), held('t4', '10:00', '10:30')];
    assert.deepEqual(reasonsOf(rules({ ...party3, busy: both }))['10:00'], ['all_resources_busy']);
    assert.deepEqual(reasonsOf(rules({ ...party3, busy: both }))['10:30'], ['blocked']);
  });

  it('blocked when some fitting resources are blocked and the others booked', () => {
    const busy = [held('t2', '10:00', '11:00'), held('t4', '10:00', '11:00', 'block')];
    assert.deepEqual(reasonsOf(rules({ busy }))['10:00'], ['blocked']);
    assert.deepEqual(explainDay(rules({ busy: [held('t2', '10:00', '11:00')] }))[0]!.freeResourceIds, ['t4']);
  });

  it('a booking holds its buffers: the held range decides', () => {
    const busy = [held('t2', '11:00', '12:00'), held('t4', '11:00', '12:00')];
    assert.deepEqual(reasonsOf(rules({ busy }))['10:00'], []);
    assert.deepEqual(reasonsOf(rules({ busy, bufferAfterMinutes: 1 }))['10:00'], ['all_resources_busy']);
    assert.deepEqual(reasonsOf(rules({ busy }))['12:00'], []);
    assert.deepEqual(reasonsOf(rules({ busy, bufferBeforeMinutes: 1 }))['12:00'], ['all_resources_busy']);
  });

  it('lists every reason that applies, in the order of UNOFFERED_REASONS', () => {
    const reasons = reasonsOf(
      rules({
        now: at('2026-06-10T10:45:00Z'),
        bookingWindowDays: 0,
        blackouts: [{ startDate: '2026-06-10', endDate: '2026-06-10' }],
        partySize: 9,
      }),
    );
    assert.deepEqual(reasons['10:00'], ['past', 'blackout', 'no_resource_fits_party']);
    assert.deepEqual(reasons['12:30'], ['closed', 'blackout']);
    assert.deepEqual(
      reasonsOf(rules({ bookingWindowDays: 0, now: at('2026-06-09T23:00:00Z'), minNoticeHours: 12 }))[
        '10:00'
      ],
      ['notice', 'window'],
    );
    assert.equal(new Set(UNOFFERED_REASONS).size, UNOFFERED_REASONS.length);
  });

  it('freeResources: a resource without busy periods is free; an empty or foreign period holds nothing', () => {
    const busyOf = new Map([
      ['t2', [{ resourceId: 't2', start: 100, end: 100 }]],
      ['t4', [{ resourceId: 't4', start: 0, end: 50 }]],
    ]);
    assert.deepEqual(freeResources([table('t2', 1, 2), table('t4', 1, 4)], busyOf, 50, 100), {
      freeResourceIds: ['t2', 't4'],
      refusal: null,
    });
    assert.deepEqual(freeResources([table('t4', 1, 4)], busyOf, 49, 100), {
      freeResourceIds: [],
      refusal: 'all_resources_busy',
    });
    assert.deepEqual(freeResources([], busyOf, 0, 1), {
      freeResourceIds: [],
      refusal: 'no_resource_fits_party',
    });
  });

  it("pacing: a time whose period's covers the party would pass frees nothing, with its other reasons", () => {
    const lunch = period({ startTime: '10:00', endTime: '13:00', maxCoversPerSlot: 4 });
    const arrivals = [{ start: at('2026-06-10T10:00:00Z'), partySize: 3 }];
    const day = explainDay(rules({ periods: [lunch], arrivals }));
    const full = day.find((time) => time.time === '10:00')!;
    assert.deepEqual([full.freeResourceIds, full.freeCombinationIds, full.reasons], [[], [], ['pacing']]);
    const next = day.find((time) => time.time === '10:30')!;
    assert.deepEqual([next.freeResourceIds, next.reasons], [['t2', 't4'], []]);
    const busy = [held('t2', '10:00', '11:00'), held('t4', '10:00', '11:00')];
    assert.deepEqual(reasonsOf(rules({ periods: [lunch], arrivals, busy }))['10:00'], [
      'pacing',
      'all_resources_busy',
    ]);
  });

  it('counts a combination as an option: free, busy with a booking, or held only by a block', () => {
    const joined = { id: 'j', name: 'T2+T4', resourceIds: ['t2', 't4'], capacityMin: 5, capacityMax: 6 };
    const hold = (kind: 'booking' | 'block'): BusyPeriod => ({
      resourceId: 't4',
      start: at('2026-06-10T10:00:00Z'),
      end: at('2026-06-10T11:00:00Z'),
      kind,
    });
    const party = { partySize: 6, combinations: [joined] };
    const free = explainDay(rules(party)).find((time) => time.time === '10:00')!;
    assert.deepEqual([free.freeResourceIds, free.freeCombinationIds, free.reasons], [[], ['j'], []]);
    assert.deepEqual(reasonsOf(rules({ ...party, busy: [hold('booking')] }))['10:00'], [
      'all_resources_busy',
    ]);
    assert.deepEqual(reasonsOf(rules({ ...party, busy: [hold('block')] }))['10:00'], ['blocked']);
    // A single table that fits is busy with a booking; the combination is held only by a block.
    const withSix = { ...party, resources: [table('t2', 1, 2), table('t4', 1, 4), table('t6', 1, 6)] };
    const sixBusy: BusyPeriod = { ...hold('booking'), resourceId: 't6' };
    assert.deepEqual(reasonsOf(rules({ ...withSix, busy: [sixBusy, hold('block')] }))['10:00'], ['blocked']);
    assert.deepEqual(reasonsOf(rules({ ...withSix, busy: [sixBusy, hold('booking')] }))['10:00'], [
      'all_resources_busy',
    ]);
    assert.deepEqual(reasonsOf(rules({ ...party, partySize: 7 }))['10:00'], ['no_resource_fits_party']);
    // One table held by a block and the other by a booking: bookings hold it, not only blocks.
    const both = [hold('block'), { ...hold('booking'), resourceId: 't2' }];
    assert.deepEqual(reasonsOf(rules({ ...party, busy: both }))['10:00'], ['all_resources_busy']);
    // A period that leaves out one of its tables leaves the combination out.
    const lunch = period({ startTime: '10:00', endTime: '13:00', resourceIds: ['t4'] });
    const limited = explainDay(rules({ ...party, periods: [lunch] })).find((time) => time.time === '10:00')!;
    assert.deepEqual([limited.freeCombinationIds, limited.reasons], [[], ['no_resource_fits_party']]);
    // A time its window cannot take frees nothing.
    const late = explainDay(rules(party)).find((time) => time.time === '12:30')!;
    assert.deepEqual([late.freeResourceIds, late.freeCombinationIds, late.reasons], [[], [], ['closed']]);
  });
});

// Property: explainDay and daySlots agree on every random day.

const DATES = ['2026-06-10', '2026-03-29', '2026-10-25', '2026-03-08', '2026-11-01', '2026-06-13'];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Auckland'];
const RESOURCE_IDS = ['a', 'b', 'c', 'd'];

const quarter = fc.integer({ min: 0, max: 95 }).map((q) => {
  const minutes = q * 15;
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
});
const step = fc.constantFrom(10, 15, 20, 30, 45, 60);
const turnTimes = fc.array(
  fc.record({
    minParty: fc.integer({ min: 1, max: 4 }),
    maxParty: fc.integer({ min: 4, max: 10 }),
    durationMinutes: fc.integer({ min: 15, max: 240 }),
  }),
  { maxLength: 2 },
);
const ids = fc.subarray(RESOURCE_IDS);
/** Mostly null: a rare limit keeps most days bookable. */
const rarely = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: value, weight: 1 });

const hoursRow = (dayOfWeek: number) =>
  fc.record({
    dayOfWeek: fc.constant(dayOfWeek),
    isOpen: fc.constantFrom(true, true, true, false),
    openTime: quarter,
    closeTime: quarter,
    lastBookingTime: rarely(quarter),
  });

const servicePeriod = (index: number) =>
  fc.record({
    id: fc.constant(`p${index}`),
    name: fc.constant(`Period ${index}`),
    daysOfWeek: fc.subarray([0, 1, 2, 3, 4, 5, 6], { minLength: 1 }),
    startTime: quarter,
    endTime: quarter,
    lastStartTime: rarely(quarter),
    intervalMinutes: fc.option(step),
    turnTimes: fc.option(turnTimes),
    resourceIds: fc.oneof({ arbitrary: fc.constant([]), weight: 2 }, { arbitrary: ids, weight: 1 }),
    maxCoversPerSlot: rarely(fc.integer({ min: 1, max: 8 })),
    maxBookingsPerSlot: rarely(fc.integer({ min: 1, max: 2 })),
  });

const anyDay = fc
  .record({
    date: fc.constantFrom(...DATES),
    timezone: fc.constantFrom(...ZONES),
    nowOffsetMinutes: fc.integer({ min: -8 * 1440, max: 1440 }),
    hours: fc
      .tuple(...[0, 1, 2, 3, 4, 5, 6].map(hoursRow))
      .chain((rows) => fc.subarray(rows, { minLength: 5 })),
    blackouts: fc.array(
      fc.record({ from: fc.integer({ min: -3, max: 3 }), days: fc.integer({ min: 0, max: 3 }) }),
      { maxLength: 1 },
    ),
    intervalMinutes: step,
    periods: fc.oneof(
      { arbitrary: fc.constant([]), weight: 2 },
      { arbitrary: fc.tuple(servicePeriod(0)), weight: 1 },
      { arbitrary: fc.tuple(servicePeriod(0), servicePeriod(1)), weight: 1 },
    ),
    durationMinutes: fc.integer({ min: 15, max: 240 }),
    turnTimes: fc.option(turnTimes, { nil: undefined }),
    bufferBeforeMinutes: fc.constantFrom(0, 0, 10, 30),
    bufferAfterMinutes: fc.constantFrom(0, 0, 15),
    minNoticeHours: fc.constantFrom(0, 0, 1, 2, 24),
    bookingWindowDays: fc.integer({ min: 0, max: 12 }),
    partySize: fc.integer({ min: 1, max: 10 }),
    resources: fc.uniqueArray(
      fc.record({
        id: fc.constantFrom(...RESOURCE_IDS),
        capacityMin: fc.integer({ min: 1, max: 2 }),
        capacityMax: fc.integer({ min: 2, max: 8 }),
        displayOrder: fc.integer({ min: 0, max: 3 }),
        isActive: fc.constantFrom(true, true, true, false),
      }),
      { selector: (resource) => resource.id, minLength: 1, maxLength: 4 },
    ),
    allowedResourceIds: rarely(ids),
    resourceId: rarely(fc.constantFrom(...RESOURCE_IDS, 'unknown')),
    busy: fc.array(
      fc.record({
        resourceId: fc.constantFrom(...RESOURCE_IDS),
        fromMinute: fc.integer({ min: -12 * 60, max: 36 * 60 }),
        minutes: fc.integer({ min: 0, max: 300 }),
        unbounded: fc.integer({ min: 0, max: 19 }).map((draw) => draw === 0),
        kind: fc.constantFrom(undefined, 'booking' as const, 'block' as const),
      }),
      { maxLength: 12 },
    ),
    combinations: fc.array(
      fc.record({
        id: fc.constantFrom('j1', 'j2', 'j3'),
        resourceIds: fc.uniqueArray(fc.constantFrom(...RESOURCE_IDS), { minLength: 2, maxLength: 3 }),
        capacityMin: fc.integer({ min: 1, max: 4 }),
        capacityMax: fc.integer({ min: 4, max: 12 }),
      }),
      { maxLength: 2 },
    ),
    arrivals: fc.array(
      fc.record({
        quarterOfDay: fc.integer({ min: 0, max: 2 * 96 }),
        partySize: fc.integer({ min: 1, max: 6 }),
      }),
      { maxLength: 8 },
    ),
  })
  .map((drawn): DayRules => {
    const midnight = at(`${drawn.date}T00:00:00Z`);
    const shift = (days: number) => new Date(midnight + days * 86_400_000).toISOString().slice(0, 10);
    return {
      date: drawn.date,
      timezone: drawn.timezone,
      now: midnight + drawn.nowOffsetMinutes * MINUTE_MS,
      hours: drawn.hours,
      blackouts: drawn.blackouts.map(({ from, days }) => ({
        startDate: shift(from),
        endDate: shift(from + days),
      })),
      intervalMinutes: drawn.intervalMinutes,
      periods: drawn.periods,
      durationMinutes: drawn.durationMinutes,
      turnTimes: drawn.turnTimes,
      bufferBeforeMinutes: drawn.bufferBeforeMinutes,
      bufferAfterMinutes: drawn.bufferAfterMinutes,
      minNoticeHours: drawn.minNoticeHours,
      bookingWindowDays: drawn.bookingWindowDays,
      partySize: drawn.partySize,
      resources: drawn.resources.map((resource) => ({ ...resource, name: resource.id })),
      allowedResourceIds: drawn.allowedResourceIds,
      resourceId: drawn.resourceId,
      busy: drawn.busy.map(({ resourceId, fromMinute, minutes, unbounded, kind }) => ({
        resourceId,
        start: midnight + fromMinute * MINUTE_MS,
        end: unbounded ? Number.POSITIVE_INFINITY : midnight + (fromMinute + minutes) * MINUTE_MS,
        ...(kind ? { kind } : {}),
      })),
      combinations: drawn.combinations.map((combination) => ({ ...combination, name: combination.id })),
      // Arrivals on quarter hours of the date and the next, where the grids of paced periods fall.
      arrivals: drawn.arrivals.map(({ quarterOfDay, partySize }) => ({
        start: midnight + quarterOfDay * 15 * MINUTE_MS,
        partySize,
      })),
    };
  });

const keyOf = (time: { time: string; period: { id: string } | null }) =>
  `${time.period?.id ?? ''}|${time.time}`;

const freeOptions = (slot: { freeResourceIds: string[]; freeCombinationIds: string[] }) =>
  slot.freeResourceIds.length + slot.freeCombinationIds.length;

describe('explainDay against daySlots (property)', () => {
  it('offers a time (no reasons) exactly when daySlots has it with a free resource or combination, with the same ones', () => {
    fc.assert(
      fc.property(anyDay, (day) => {
        const slots = daySlots(day).slots;
        const explained = new Map(explainDay(day).map((time) => [keyOf(time), time]));
        for (const slot of slots) {
          const time = explained.get(keyOf(slot));
          assert.ok(time, `${keyOf(slot)} is a grid time`);
          assert.equal(time.start, slot.start);
          assert.deepEqual(time.freeResourceIds, slot.freeResourceIds, keyOf(slot));
          assert.deepEqual(time.freeCombinationIds, slot.freeCombinationIds, keyOf(slot));
          assert.equal(time.reasons.length === 0, freeOptions(slot) > 0, `${keyOf(slot)}: ${time.reasons}`);
        }
        const offered = new Set(slots.filter((slot) => freeOptions(slot) > 0).map(keyOf));
        for (const [key, time] of explained) {
          assert.equal(time.reasons.length === 0, offered.has(key), `${key}: ${time.reasons}`);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
