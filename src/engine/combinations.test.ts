import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { usableCombinations } from './combinations.ts';
import { ANY_MINUTE, dayRules, everyDay, held, seat } from './day-rules.fixture.ts';
import { checkStart, daySlots } from './slots.ts';
import type { DayRules, EngineCombination } from './types.ts';

const table = (id: string, capacityMax: number, isActive = true) => seat(id, 1, capacityMax, { isActive });

const joined = (id: string, resourceIds: string[], capacityMax: number, name = id): EngineCombination => ({
  id,
  name,
  resourceIds,
  capacityMin: 7,
  capacityMax,
});

/** The engine's test day open 12:00-14:00; tables 4 (up to 4), 5 and 6 (up to 6); 4+5 and 5+6 joined. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    hours: everyDay('12:00', '14:00'),
    partySize: 10,
    resources: [table('t4', 4), table('t5', 6), table('t6', 6)],
    combinations: [joined('c56', ['t5', 't6'], 12), joined('c45', ['t4', 't5'], 10)],
    ...overrides,
  });

const noon = (resourceId: string) => held(resourceId, '2026-06-10T12:00:00Z', '2026-06-10T13:00:00Z');

const offered = (day: DayRules) =>
  daySlots(day).slots.map((slot) => [slot.time, slot.freeResourceIds, slot.freeCombinationIds]);

describe('combinations in the engine', () => {
  it('offers a start to a party no single resource seats while a combination is free, tightest first', () => {
    assert.deepEqual(offered(rules()), [
      ['12:00', [], ['c45', 'c56']],
      ['13:00', [], ['c45', 'c56']],
    ]);
  });

  it('orders combinations of one size by name, then id', () => {
    const same = [joined('b', ['t5', 't6'], 10, 'Terrace'), joined('a', ['t4', 't5'], 10, 'Window')];
    assert.deepEqual(
      usableCombinations(rules({ combinations: same })).map((c) => c.id),
      ['b', 'a'],
    );
  });

  it('offers a combination only while every resource of it is free', () => {
    assert.deepEqual(offered(rules({ busy: [noon('t4')] })), [
      ['12:00', [], ['c56']],
      ['13:00', [], ['c45', 'c56']],
    ]);
    assert.deepEqual(offered(rules({ busy: [noon('t5')] }))[0], ['12:00', [], []]);
  });

  it('passes over a combination of a party it does not take, or with an inactive or missing resource', () => {
    assert.deepEqual(
      usableCombinations(rules({ partySize: 11 })).map((c) => c.id),
      ['c56'],
    );
    assert.deepEqual(usableCombinations(rules({ partySize: 6 })), []);
    const inactive = [table('t4', 4), table('t5', 6, false), table('t6', 6)];
    assert.deepEqual(usableCombinations(rules({ resources: inactive })), []);
    assert.deepEqual(
      usableCombinations(rules({ resources: [table('t4', 4), table('t5', 6)] })).map((c) => c.id),
      ['c45'],
    );
  });

  it("keeps to the service's resources, the period's, and to one resource asked for", () => {
    assert.deepEqual(
      usableCombinations(rules({ allowedResourceIds: ['t4', 't5'] })).map((c) => c.id),
      ['c45'],
    );
    assert.deepEqual(usableCombinations(rules({ resourceId: 't5' })), []);
    const terrace = {
      id: 'p',
      name: 'Lunch',
      daysOfWeek: [3],
      startTime: '12:00',
      endTime: '14:00',
      lastStartTime: null,
      intervalMinutes: null,
      turnTimes: null,
      resourceIds: ['t5', 't6'],
    };
    assert.deepEqual(offered(rules({ periods: [terrace] }))[0], ['12:00', [], ['c56']]);
  });

  it('lets checkStart take a start only a combination can, and refuse one none can', () => {
    const check = checkStart(rules(), '12:00', ANY_MINUTE);
    assert.ok(check.ok);
    assert.deepEqual([check.freeResourceIds, check.freeCombinationIds], [[], ['c45', 'c56']]);
    const full = checkStart(rules({ busy: [noon('t5')] }), '12:00', ANY_MINUTE);
    assert.equal(full.ok ? 'ok' : full.reason, 'slot_unavailable');
  });

  it('offers single resources that fit as they were, beside the combinations', () => {
    assert.deepEqual(
      offered(rules({ partySize: 8, resources: [table('t4', 4), table('t5', 6), table('t6', 8)] }))[0],
      ['12:00', ['t6'], ['c45', 'c56']],
    );
  });
});

describe('usableCombinations', () => {
  it('orders by the largest party, then name, then id, whatever order they are given in', () => {
    const combinations = [
      joined('z', ['t4', 't5'], 10, 'B'),
      joined('y', ['t4', 't6'], 10, 'A'),
      joined('w', ['t5', 't6'], 8, 'Z'),
      joined('x', ['t4', 't5'], 10, 'A'),
    ];
    const ids = (day: DayRules) => usableCombinations(day).map((combination) => combination.id);
    assert.deepEqual(ids(rules({ partySize: 8, combinations })), ['w', 'x', 'y', 'z']);
    assert.deepEqual(ids(rules({ partySize: 8, combinations: [...combinations].reverse() })), [
      'w',
      'x',
      'y',
      'z',
    ]);
  });

  it('takes a party of exactly its smallest and largest size, not one outside', () => {
    const sizes = (partySize: number) => usableCombinations(rules({ partySize })).map((c) => c.id);
    assert.deepEqual(sizes(7), ['c45', 'c56']);
    assert.deepEqual(sizes(10), ['c45', 'c56']);
    assert.deepEqual(sizes(12), ['c56']);
    assert.deepEqual(sizes(6), []);
    assert.deepEqual(sizes(13), []);
  });

  it('reads an empty list of service resources as any resource, and offers none to one resource asked for', () => {
    assert.deepEqual(
      usableCombinations(rules({ allowedResourceIds: [] })).map((c) => c.id),
      ['c45', 'c56'],
    );
    assert.deepEqual(usableCombinations(rules({ resourceId: 't5' })), []);
    assert.deepEqual(
      offered(rules({ resourceId: 't5' })).map(([, , combinations]) => combinations),
      [[], []],
    );
  });
});
