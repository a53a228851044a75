import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classFullMessage, classSeats, heldClasses } from './classes.ts';
import { ANY_MINUTE, at, dayRules, seat } from './day-rules.fixture.ts';
import { explainDay } from './explain.ts';
import { checkStart, daySlots } from './slots.ts';
import type { BusyPeriod, DayRules } from './types.ts';

const YOGA = { serviceId: 'yoga', seats: 12 };
const room = (id: string) => seat(id, 1, 1, { name: `Room ${id}` });

/** The engine's test day, rooms a and b of one place each, a yoga class of 12. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({ resources: [room('a'), room('b')], class: YOGA, ...overrides });

/** A booking of `seats` seats of the class of `serviceId` at 11:00, held on `resourceId`. */
const seatsAtEleven = (resourceId: string, seats: number, serviceId = 'yoga'): BusyPeriod => ({
  resourceId,
  start: at('2026-06-10T11:00:00Z'),
  end: at('2026-06-10T12:00:00Z'),
  seatsOf: { serviceId, start: at('2026-06-10T11:00:00Z'), seats },
});

const slotAt = (found: ReturnType<typeof daySlots>, time: string) =>
  found.slots.find((slot) => slot.time === time)!;

describe('heldClasses', () => {
  it('sums the seats of the class by start, and leaves other services and plain bookings out', () => {
    const held = heldClasses(
      rules({
        busy: [
          seatsAtEleven('a', 2),
          seatsAtEleven('a', 3),
          seatsAtEleven('b', 4, 'pilates'),
          { resourceId: 'b', start: at('2026-06-10T10:00:00Z'), end: at('2026-06-10T11:00:00Z') },
        ],
      }),
    );
    assert.deepEqual([...held], [[at('2026-06-10T11:00:00Z'), { resourceId: 'a', seatsTaken: 5 }]]);
    assert.equal(heldClasses(rules({ class: null, busy: [seatsAtEleven('a', 2)] })).size, 0);
  });
});

describe('classSeats', () => {
  const yoga = { serviceId: 'yoga', seats: 10 };
  it('offers the held class its own resource while its seats seat the party', () => {
    assert.deepEqual(classSeats(yoga, 3, { resourceId: 'a', seatsTaken: 7 }, ['b']), {
      seatsLeft: 3,
      freeResourceIds: ['a'],
    });
    assert.deepEqual(classSeats(yoga, 3, { resourceId: 'a', seatsTaken: 8 }, ['b']), {
      seatsLeft: 2,
      freeResourceIds: [],
    });
    assert.deepEqual(classSeats(yoga, 3, { resourceId: 'a', seatsTaken: 12 }, []), {
      seatsLeft: 0,
      freeResourceIds: [],
    });
  });

  it('lets any free resource start a class with all its seats, none when none is free', () => {
    assert.deepEqual(classSeats(yoga, 3, undefined, ['a', 'b']), {
      seatsLeft: 10,
      freeResourceIds: ['a', 'b'],
    });
    assert.deepEqual(classSeats(yoga, 3, undefined, []), { seatsLeft: 0, freeResourceIds: [] });
    assert.deepEqual(classSeats(yoga, 11, undefined, ['a']), {
      seatsLeft: 10,
      freeResourceIds: [],
    });
  });

  it('names the seats left in its refusal', () => {
    assert.equal(classFullMessage('11:00 on 2026-06-10', 0, 2), 'The class at 11:00 on 2026-06-10 is full.');
    assert.equal(
      classFullMessage('11:00 on 2026-06-10', 1, 2),
      'The class at 11:00 on 2026-06-10 has 1 seat left, too few for a party of 2.',
    );
    assert.match(classFullMessage('11:00', 3, 4), /has 3 seats left/);
  });
});

describe('a class in daySlots, checkStart and explainDay', () => {
  it('offers every start with all seats, a party beyond a resource range included', () => {
    const found = daySlots(rules({ partySize: 4 }));
    assert.deepEqual(
      found.slots.map((slot) => [slot.time, slot.seatsLeft, slot.freeResourceIds]),
      [
        ['10:00', 12, ['a', 'b']],
        ['11:00', 12, ['a', 'b']],
        ['12:00', 12, ['a', 'b']],
      ],
    );
    assert.equal(daySlots(rules({ class: null, partySize: 4 })).slots[0]!.freeResourceIds.length, 0);
  });

  it('offers a held class only on its resource, and counts its seats down', () => {
    const busy = [seatsAtEleven('a', 5), seatsAtEleven('a', 5)];
    const eleven = slotAt(daySlots(rules({ busy, partySize: 2 })), '11:00');
    assert.deepEqual([eleven.seatsLeft, eleven.freeResourceIds], [2, ['a']]);
    const tooMany = slotAt(daySlots(rules({ busy, partySize: 3 })), '11:00');
    assert.deepEqual([tooMany.seatsLeft, tooMany.freeResourceIds], [2, []]);
    const check = checkStart(rules({ busy, partySize: 2 }), '11:00', ANY_MINUTE);
    assert.ok(check.ok);
    assert.deepEqual([check.freeResourceIds, check.seatsLeft], [['a'], 2]);
    const refused = checkStart(rules({ busy, partySize: 3 }), '11:00', ANY_MINUTE);
    assert.deepEqual(refused, {
      ok: false,
      reason: 'slot_unavailable',
      message: 'The class at 11:00 on 2026-06-10 has 2 seats left, too few for a party of 3.',
    });
    const explained = explainDay(rules({ busy, partySize: 3 })).find((time) => time.time === '11:00')!;
    assert.deepEqual(explained.reasons, ['class_full']);
    assert.deepEqual(explainDay(rules({ busy, partySize: 2 }))[1]!.reasons, []);
  });

  it('keeps the resource a class holds busy for other starts, and for another service', () => {
    const busy = [{ ...seatsAtEleven('a', 1), start: at('2026-06-10T10:30:00Z') }];
    busy[0]!.seatsOf!.start = at('2026-06-10T10:30:00Z');
    const found = daySlots(rules({ busy }));
    assert.deepEqual(slotAt(found, '10:00').freeResourceIds, ['b']);
    assert.deepEqual(slotAt(found, '11:00').freeResourceIds, ['b']);
    const pilates = daySlots(
      rules({ busy: [seatsAtEleven('a', 1)], class: { serviceId: 'pilates', seats: 6 } }),
    );
    assert.deepEqual(
      [slotAt(pilates, '11:00').freeResourceIds, slotAt(pilates, '11:00').seatsLeft],
      [['b'], 6],
    );
  });

  it('refuses a party larger than a class that a free room would start', () => {
    const thirteen = rules({ partySize: 13 });
    assert.deepEqual(explainDay(thirteen)[0]!.reasons, ['class_full']);
    const check = checkStart(thirteen, '10:00', ANY_MINUTE);
    assert.ok(!check.ok);
    assert.match(check.message, /has 12 seats left, too few for a party of 13/);
  });

  it('says full when no resource is free and no class is held at the start', () => {
    const busy = ['a', 'b'].map((resourceId) => ({
      resourceId,
      start: at('2026-06-10T10:00:00Z'),
      end: at('2026-06-10T13:00:00Z'),
    }));
    assert.deepEqual(slotAt(daySlots(rules({ busy })), '11:00').seatsLeft, 0);
    const check = checkStart(rules({ busy }), '11:00', ANY_MINUTE);
    assert.ok(!check.ok);
    assert.match(check.message, /No resource for a party of 1 is free/);
    assert.deepEqual(explainDay(rules({ busy }))[1]!.reasons, ['all_resources_busy']);
  });

  it('never offers a party more seats than the class has left (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ room: fc.constantFrom('a', 'b'), seats: fc.integer({ min: 1, max: 4 }) }), {
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 12 }),
        (taken, partySize) => {
          // One class per start: every booking of 11:00 joins the first one's room.
          const first = taken[0]?.room ?? 'a';
          const busy = taken.map((booking) => seatsAtEleven(first, booking.seats));
          const seatsTaken = taken.reduce((sum, booking) => sum + booking.seats, 0);
          const slot = slotAt(daySlots(rules({ busy, partySize })), '11:00');
          const left = Math.max(12 - seatsTaken, 0);
          assert.equal(slot.seatsLeft, taken.length > 0 ? left : 12);
          const offered = slot.freeResourceIds.length > 0;
          assert.equal(offered, partySize <= (taken.length > 0 ? left : 12));
          if (offered && taken.length > 0) assert.deepEqual(slot.freeResourceIds, [first]);
          assert.equal(checkStart(rules({ busy, partySize }), '11:00', ANY_MINUTE).ok, offered);
        },
      ),
    );
  });
});
