import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { at, dayRules, everyDay, seat } from './day-rules.fixture.ts';
import { loadsByStart, pacingMessage, pacingOf, pacingRefusal } from './pacing.ts';
import { checkStart, daySlots, pacingAt } from './slots.ts';
import type { Arrival, DayRules, ServicePeriod, StartOptions } from './types.ts';

const arrival = (start: string, partySize: number): Arrival => ({
  start: at(start),
  partySize,
});

describe('pacingOf', () => {
  it('caps nothing without either cap', () => {
    assert.equal(pacingOf({}), null);
    assert.equal(pacingOf({ maxCoversPerSlot: null, maxBookingsPerSlot: null }), null);
  });

  it('takes each cap, the other null', () => {
    assert.deepEqual(pacingOf({ maxCoversPerSlot: 10 }), { maxCovers: 10, maxBookings: null });
    assert.deepEqual(pacingOf({ maxBookingsPerSlot: 3 }), { maxCovers: null, maxBookings: 3 });
    assert.deepEqual(pacingOf({ maxCoversPerSlot: 10, maxBookingsPerSlot: 3 }), {
      maxCovers: 10,
      maxBookings: 3,
    });
  });
});

describe('loadsByStart', () => {
  it('sums the parties and counts the bookings of each start apart', () => {
    const loads = loadsByStart([
      arrival('2026-06-10T19:00:00Z', 2),
      arrival('2026-06-10T19:00:00Z', 4),
      arrival('2026-06-10T19:30:00Z', 3),
      arrival('2026-06-10T19:00:00Z', 1),
    ]);
    assert.deepEqual(
      [...loads.entries()],
      [
        [at('2026-06-10T19:00:00Z'), { covers: 7, bookings: 3 }],
        [at('2026-06-10T19:30:00Z'), { covers: 3, bookings: 1 }],
      ],
    );
  });

  it('holds nothing without arrivals', () => {
    assert.equal(loadsByStart(undefined).size, 0);
    assert.equal(loadsByStart([]).size, 0);
  });
});

describe('pacingRefusal', () => {
  const caps = { maxCovers: 10, maxBookings: 3 };

  it('refuses nothing when nothing caps the start', () => {
    assert.equal(pacingRefusal(null, { covers: 500, bookings: 500 }, 20), null);
  });

  it('lets a party fill the covers exactly, and refuses one guest more', () => {
    assert.equal(pacingRefusal(caps, { covers: 6, bookings: 2 }, 4), null);
    assert.deepEqual(pacingRefusal(caps, { covers: 6, bookings: 2 }, 5), {
      cap: 'covers',
      max: 10,
      load: { covers: 6, bookings: 2 },
    });
  });

  it('lets the last booking in, and refuses the one after', () => {
    assert.equal(pacingRefusal(caps, { covers: 2, bookings: 2 }, 1), null);
    assert.deepEqual(pacingRefusal(caps, { covers: 3, bookings: 3 }, 1), {
      cap: 'bookings',
      max: 3,
      load: { covers: 3, bookings: 3 },
    });
  });

  it('names the covers first when both caps would pass', () => {
    assert.equal(pacingRefusal(caps, { covers: 10, bookings: 3 }, 1)?.cap, 'covers');
  });

  it('counts an empty start as holding nothing', () => {
    assert.equal(pacingRefusal(caps, undefined, 10), null);
    assert.deepEqual(pacingRefusal(caps, undefined, 11), {
      cap: 'covers',
      max: 10,
      load: { covers: 0, bookings: 0 },
    });
    assert.deepEqual(pacingRefusal({ maxCovers: null, maxBookings: 1 }, undefined, 50), null);
  });

  it('checks only the caps that are set', () => {
    assert.equal(pacingRefusal({ maxCovers: null, maxBookings: 3 }, { covers: 900, bookings: 2 }, 100), null);
    assert.equal(pacingRefusal({ maxCovers: 10, maxBookings: null }, { covers: 2, bookings: 900 }, 8), null);
  });
});

describe('pacingMessage', () => {
  it('names the start and the cap, never what it holds', () => {
    assert.equal(
      pacingMessage({ cap: 'covers', max: 10, load: { covers: 8, bookings: 3 } }, '19:00 on 2026-06-10', 4),
      "The kitchen's pacing for 19:00 on 2026-06-10 is full: at most 10 guests may start then, and too few places are left for a party of 4.",
    );
    assert.equal(
      pacingMessage({ cap: 'bookings', max: 3, load: { covers: 5, bookings: 3 } }, '19:30 on 2026-06-10', 2),
      "The kitchen's pacing for 19:30 on 2026-06-10 is full: at most 3 bookings may start then, and all are taken.",
    );
    assert.match(
      pacingMessage({ cap: 'covers', max: 1, load: { covers: 1, bookings: 1 } }, '19:00 on 2026-06-10', 1),
      /: at most 1 guest may start then, /,
    );
    assert.match(
      pacingMessage({ cap: 'bookings', max: 1, load: { covers: 1, bookings: 1 } }, '19:00 on 2026-06-10', 1),
      /: at most 1 booking may start then, /,
    );
  });
});

const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

/** Dinner 18:00-22:00 every day, on a 30-minute grid, capped as asked. */
const dinner = (caps: Pick<ServicePeriod, 'maxCoversPerSlot' | 'maxBookingsPerSlot'>): ServicePeriod => ({
  id: 'dinner',
  name: 'Dinner',
  daysOfWeek: EVERY_DAY,
  startTime: '18:00',
  endTime: '22:00',
  lastStartTime: null,
  intervalMinutes: 30,
  turnTimes: null,
  resourceIds: [],
  ...caps,
});

/** The engine's test day open 12:00-22:00 on a 30-minute grid, three free tables for 1-6, dinner capped at 10 covers. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    hours: everyDay('12:00', '22:00'),
    intervalMinutes: 30,
    partySize: 2,
    resources: ['t1', 't2', 't3'].map((id) => seat(id, 1, 6, { name: id })),
    periods: [dinner({ maxCoversPerSlot: 10 })],
    ...overrides,
  });

/** time -> how many free resources the day offers the party then. */
const offered = (day: DayRules) =>
  Object.fromEntries(daySlots(day).slots.map((slot) => [slot.time, slot.freeResourceIds.length]));

const SEVEN_AT_SEVEN = [arrival('2026-06-10T19:00:00Z', 3), arrival('2026-06-10T19:00:00Z', 4)];

describe('daySlots with pacing', () => {
  it('does not offer a start the party would pace past, offers it to a party that fits, and the next start to both', () => {
    const large = offered(rules({ partySize: 4, arrivals: SEVEN_AT_SEVEN }));
    assert.equal(large['19:00'], 0);
    assert.equal(large['18:30'], 3);
    assert.equal(large['19:30'], 3);
    assert.equal(offered(rules({ partySize: 3, arrivals: SEVEN_AT_SEVEN }))['19:00'], 3);
  });

  it('paces a capped period beside one without caps, each by its own caps', () => {
    const lunch = { ...dinner({}), id: 'lunch', name: 'Lunch', startTime: '12:00', endTime: '14:00' };
    const day = rules({
      periods: [lunch, dinner({ maxBookingsPerSlot: 1 })],
      partySize: 1,
      arrivals: [arrival('2026-06-10T12:00:00Z', 1), arrival('2026-06-10T18:00:00Z', 1)],
    });
    assert.equal(offered(day)['12:00'], 3);
    assert.equal(offered(day)['18:00'], 0);
  });

  it('caps the bookings of a start whatever their parties', () => {
    const day = rules({
      periods: [dinner({ maxBookingsPerSlot: 2 })],
      partySize: 1,
      arrivals: [arrival('2026-06-10T18:00:00Z', 1), arrival('2026-06-10T18:00:00Z', 1)],
    });
    assert.equal(offered(day)['18:00'], 0);
    assert.equal(offered(day)['18:30'], 3);
  });

  it('counts only arrivals at the start itself, not bookings still seated from earlier', () => {
    const day = rules({ partySize: 4, arrivals: [arrival('2026-06-10T18:30:00Z', 6)] });
    assert.deepEqual(offered(day), {
      '18:00': 3,
      '18:30': 3,
      '19:00': 3,
      '19:30': 3,
      '20:00': 3,
      '20:30': 3,
      '21:00': 3,
    });
    assert.equal(offered({ ...day, partySize: 5 })['18:30'], 0);
    assert.equal(offered({ ...day, partySize: 5 })['19:00'], 3);
  });

  it('does not pace a day without capped periods', () => {
    const day = rules({ periods: [dinner({})], partySize: 6, arrivals: SEVEN_AT_SEVEN });
    assert.equal(offered(day)['19:00'], 3);
    assert.equal(offered({ ...day, periods: [] })['19:00'], 3);
  });
});

const ON_GRID: StartOptions = { onGrid: true, ignoreNoticeAndWindow: false };

describe('checkStart with pacing', () => {
  it('refuses a start the party would pace past as slot_unavailable, naming the pacing', () => {
    const check = checkStart(rules({ partySize: 4, arrivals: SEVEN_AT_SEVEN }), '19:00', ON_GRID);
    assert.deepEqual(check, {
      ok: false,
      reason: 'slot_unavailable',
      message:
        "The kitchen's pacing for 19:00 on 2026-06-10 is full: at most 10 guests may start then, and too few places are left for a party of 4.",
    });
  });

  it('lets a party that fits start, and answers the caps of the start', () => {
    const check = checkStart(rules({ partySize: 3, arrivals: SEVEN_AT_SEVEN }), '19:00', ON_GRID);
    assert.equal(check.ok, true);
    assert.deepEqual(check.ok && check.pacing, { maxCovers: 10, maxBookings: null });
    assert.deepEqual(check.ok && check.freeResourceIds, ['t1', 't2', 't3']);
  });

  it('lets staff pass a full start', () => {
    const check = checkStart(rules({ partySize: 6, arrivals: SEVEN_AT_SEVEN }), '19:00', {
      onGrid: false,
      ignoreNoticeAndWindow: true,
      passPacing: true,
    });
    assert.equal(check.ok, true);
  });

  it('answers no caps outside a capped period', () => {
    const lunch: ServicePeriod = {
      ...dinner({}),
      id: 'lunch',
      name: 'Lunch',
      startTime: '12:00',
      endTime: '15:00',
    };
    const day = rules({ periods: [lunch, dinner({ maxCoversPerSlot: 1 })], arrivals: SEVEN_AT_SEVEN });
    const check = checkStart(day, '12:00', ON_GRID);
    assert.equal(check.ok, true);
    assert.equal(check.ok && check.pacing, null);
  });
});

describe('pacingAt', () => {
  it('answers the caps of the period a start lies in, and null elsewhere', () => {
    assert.deepEqual(pacingAt(rules(), '19:00'), { maxCovers: 10, maxBookings: null });
    assert.equal(pacingAt(rules(), '13:00'), null);
    assert.equal(pacingAt(rules(), '7pm'), null);
    assert.equal(pacingAt(rules({ hours: [] }), '19:00'), null);
    const shortHours = rules().hours.map((row) => ({ ...row, closeTime: '17:00' }));
    assert.equal(pacingAt(rules({ hours: shortHours }), '19:00'), null);
    assert.equal(
      pacingAt(rules({ periods: [{ ...dinner({ maxCoversPerSlot: 4 }), daysOfWeek: [1] }] }), '19:00'),
      null,
    );
  });
});
