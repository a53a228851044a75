import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ANY_MINUTE, at, dayRules, everyDay, held, seat } from './day-rules.fixture.ts';
import { explainDay } from './explain.ts';
import {
  completeSets,
  disjointSets,
  missingRequirements,
  requirementsAsked,
  setsToTry,
} from './requirements.ts';
import { checkStart, daySlots, freeOptions } from './slots.ts';
import type { DayRules, Requirement } from './types.ts';

const resource = (id: string, displayOrder = 0) => seat(id, 1, 1, { name: id, displayOrder });

const STYLIST: Requirement = { name: 'Stylist', resourceIds: ['s1', 's2', 's3'], count: 1 };
const CHAIR: Requirement = { name: 'Chair', resourceIds: ['c1', 'c2'], count: 1 };

/** The engine's test day open 10:00-12:00; three stylists, two chairs, a sink. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    hours: everyDay('10:00', '12:00'),
    resources: ['s1', 's2', 's3', 'c1', 'c2', 'sink'].map((id, i) => resource(id, i)),
    requirements: [STYLIST, CHAIR],
    ...overrides,
  });

const tenToEleven = (resourceId: string) => held(resourceId, '2026-06-10T10:00:00Z', '2026-06-10T11:00:00Z');

describe('requirements helpers', () => {
  it('counts the sets every group can give at once', () => {
    assert.equal(
      completeSets(
        [STYLIST, CHAIR],
        [
          ['s1', 's2', 's3'],
          ['c1', 'c2'],
        ],
      ),
      2,
    );
    assert.equal(completeSets([STYLIST, { ...CHAIR, count: 2 }], [['s1'], ['c1', 'c2']]), 1);
    assert.equal(completeSets([STYLIST, CHAIR], [['s1'], []]), 0);
    assert.equal(completeSets([], []), 0);
  });

  it('lists the sets to try, best first and capped, and the disjoint ones', () => {
    assert.deepEqual(
      setsToTry(
        [STYLIST, CHAIR],
        [
          ['s1', 's2'],
          ['c1', 'c2'],
        ],
        10,
      ),
      [
        ['s1', 'c1'],
        ['s1', 'c2'],
        ['s2', 'c1'],
        ['s2', 'c2'],
      ],
    );
    assert.deepEqual(
      setsToTry(
        [STYLIST, CHAIR],
        [
          ['s1', 's2'],
          ['c1', 'c2'],
        ],
        3,
      ).length,
      3,
    );
    assert.deepEqual(setsToTry([{ ...STYLIST, count: 2 }], [['s1', 's2', 's3']], 10), [['s1', 's2']]);
    assert.deepEqual(setsToTry([], [], 10), []);
    const pairs = { ...STYLIST, count: 2 };
    assert.deepEqual(setsToTry([pairs], [['s1', 's2', 's3', 's4']], 10), [
      ['s1', 's2'],
      ['s3', 's4'],
    ]);
    assert.deepEqual(disjointSets([pairs], [['s1', 's2', 's3', 's4']]), [
      ['s1', 's2'],
      ['s3', 's4'],
    ]);
    // A group the caller has no free list for has nothing free.
    assert.deepEqual(setsToTry([STYLIST, CHAIR], [['s1']], 10), []);
    assert.equal(completeSets([STYLIST, CHAIR], [['s1']]), 0);
    assert.deepEqual(missingRequirements([STYLIST, CHAIR], [['s1']]), ['Chair']);
    assert.deepEqual(
      disjointSets(
        [STYLIST, CHAIR],
        [
          ['s1', 's2', 's3'],
          ['c1', 'c2'],
        ],
      ),
      [
        ['s1', 'c1'],
        ['s2', 'c2'],
      ],
    );
  });

  it('names the groups short of resources, and narrows the group of an asked resource', () => {
    assert.deepEqual(missingRequirements([STYLIST, CHAIR], [['s1'], []]), ['Chair']);
    assert.deepEqual(missingRequirements([STYLIST, { ...CHAIR, count: 2 }], [[], ['c1']]), [
      'Stylist',
      'Chair',
    ]);
    assert.deepEqual(requirementsAsked([STYLIST, CHAIR], 'c2'), [STYLIST, { ...CHAIR, resourceIds: ['c2'] }]);
    assert.equal(requirementsAsked([], 'c2'), null);
    assert.deepEqual(requirementsAsked([STYLIST], null), [STYLIST]);
  });
});

describe('requirements in daySlots, checkStart and explainDay', () => {
  it("offers each group's free resources and the sets they make, none of the other resources", () => {
    const slot = daySlots(rules({ busy: [tenToEleven('c1'), tenToEleven('s2')] })).slots[0]!;
    assert.deepEqual(slot.freeByRequirement, [['s1', 's3'], ['c2']]);
    assert.deepEqual([slot.freeResourceIds, slot.freeCombinationIds, freeOptions(slot)], [[], [], 1]);
    const check = checkStart(rules({ busy: [tenToEleven('c1')] }), '10:00', ANY_MINUTE);
    assert.ok(check.ok);
    assert.deepEqual(
      [check.freeByRequirement, check.requirementSets, check.freeResourceIds, check.freeCombinationIds],
      [[['s1', 's2', 's3'], ['c2']], 1, [], []],
    );
  });

  it('refuses a time a group has nothing free at, naming the group', () => {
    const busy = [tenToEleven('c1'), tenToEleven('c2')];
    assert.equal(freeOptions(daySlots(rules({ busy })).slots[0]!), 0);
    assert.deepEqual(checkStart(rules({ busy }), '10:00', ANY_MINUTE), {
      ok: false,
      reason: 'slot_unavailable',
      message: 'No Chair for a party of 1 is free on 2026-06-10 at 10:00.',
    });
    const [ten, eleven] = explainDay(rules({ busy }));
    assert.deepEqual([ten!.reasons, ten!.missingRequirements], [['requirement_busy'], ['Chair']]);
    assert.deepEqual([eleven!.reasons, eleven!.requirementSets], [[], 2]);
    const none = explainDay(rules({ requirements: [STYLIST, { ...CHAIR, resourceIds: ['gone'] }] }))[0]!;
    assert.deepEqual(none.reasons, ['no_resource_fits_party']);
    // Exactly as many chairs as a booking needs, both taken: busy, not too few.
    const pair = explainDay(rules({ busy, requirements: [STYLIST, { ...CHAIR, count: 2 }] }))[0]!;
    assert.deepEqual(pair.reasons, ['requirement_busy']);
    const everything = [...busy, ...['s1', 's2', 's3'].map(tenToEleven)];
    const both = checkStart(rules({ busy: everything }), '10:00', ANY_MINUTE);
    assert.ok(!both.ok);
    assert.equal(both.message, 'No Stylist and no Chair for a party of 1 is free on 2026-06-10 at 10:00.');
  });

  it("lists a group's free resources best fit first, whatever the group's own order", () => {
    const reversed = [{ ...STYLIST, resourceIds: ['s3', 's1', 's2'] }, CHAIR];
    assert.deepEqual(daySlots(rules({ requirements: reversed })).slots[0]!.freeByRequirement, [
      ['s1', 's2', 's3'],
      ['c1', 'c2'],
    ]);
  });

  it('offers nothing at a time its pacing is full for, and says so', () => {
    const periods = [
      {
        id: 'day',
        name: 'Day',
        daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
        startTime: '10:00',
        endTime: '12:00',
        lastStartTime: null,
        intervalMinutes: null,
        turnTimes: null,
        resourceIds: [],
        maxBookingsPerSlot: 1,
      },
    ];
    const day = rules({ periods, arrivals: [{ start: at('2026-06-10T10:00:00Z'), partySize: 1 }] });
    const slot = daySlots(day).slots[0]!;
    assert.deepEqual([slot.freeByRequirement, freeOptions(slot)], [[[], []], 0]);
    const [ten] = explainDay(day);
    assert.deepEqual(
      [ten!.reasons, ten!.freeByRequirement, ten!.requirementSets, ten!.freeResourceIds],
      [['pacing'], [[], []], 0, []],
    );
    assert.deepEqual(explainDay(rules())[0]!.freeResourceIds, []);
  });

  it('narrows the group of a resource asked for', () => {
    const slot = daySlots(rules({ resourceId: 'c2' })).slots[0]!;
    assert.deepEqual(slot.freeByRequirement, [['s1', 's2', 's3'], ['c2']]);
  });

  it('agrees with explainDay and checkStart on every time (property)', () => {
    const ids = ['s1', 's2', 's3', 'c1', 'c2', 'sink'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom(...ids), hour: fc.integer({ min: 10, max: 11 }) }), {
          maxLength: 8,
        }),
        fc.integer({ min: 1, max: 2 }),
        (taken, chairs) => {
          const busy = taken.map(({ id, hour }) => ({
            resourceId: id,
            start: at(`2026-06-10T${hour}:00:00Z`),
            end: at(`2026-06-10T${hour + 1}:00:00Z`),
          }));
          const day = rules({ busy, requirements: [STYLIST, { ...CHAIR, count: chairs }] });
          const slots = daySlots(day).slots;
          const explained = explainDay(day);
          for (const [i, slot] of slots.entries()) {
            const hour = Number(slot.time.slice(0, 2));
            const held = (id: string) => taken.some((t) => t.id === id && t.hour === hour);
            const stylists = ['s1', 's2', 's3'].filter((id) => !held(id)).length;
            const freeChairs = ['c1', 'c2'].filter((id) => !held(id)).length;
            const expected = Math.min(stylists, Math.floor(freeChairs / chairs));
            assert.equal(freeOptions(slot), expected);
            assert.equal(explained[i]!.reasons.length === 0, expected > 0);
            assert.equal(checkStart(day, slot.time, ANY_MINUTE).ok, expected > 0);
          }
        },
      ),
    );
  });
});
