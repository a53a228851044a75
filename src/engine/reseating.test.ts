import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_RESEATS, planReseating, type SeatedBooking } from './reseating.ts';
import { takesParty } from './slots.ts';
import type { DayRules, EngineResource } from './types.ts';

const at = (time: string) => Date.parse(`2026-06-10T${time}:00Z`);

const table = (id: string, capacityMin: number, capacityMax: number): EngineResource => ({
  id,
  name: id,
  capacityMin,
  capacityMax,
  displayOrder: 0,
  isActive: true,
});

/** Wednesday 2026-06-10 in UTC, open 12:00-23:00, with `resources`. */
const rules = (resources: EngineResource[], overrides: Partial<DayRules> = {}): DayRules => ({
  date: '2026-06-10',
  timezone: 'UTC',
  now: at('08:00'),
  hours: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    isOpen: true,
    openTime: '12:00',
    closeTime: '23:00',
    lastBookingTime: null,
  })),
  blackouts: [],
  intervalMinutes: 30,
  durationMinutes: 90,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minNoticeHours: 0,
  bookingWindowDays: 60,
  partySize: 2,
  resources,
  busy: [],
  ...overrides,
});

const booking = (
  id: string,
  resourceId: string,
  from: string,
  to: string,
  partySize = 2,
  movable = true,
) => ({
  id,
  resourceId,
  start: at(from),
  end: at(to),
  startsAt: at(from),
  partySize,
  movable,
});

const T2 = table('t2', 1, 2);
const T4 = table('t4', 1, 4);
const T6 = table('t6', 2, 6);
const SEVEN = { start: at('19:00'), end: at('20:30') };

describe('planReseating', () => {
  it('moves the two-top off the four-top so a party of four fits', () => {
    const plan = planReseating(rules([T2, T4]), SEVEN, ['t4'], [booking('lea', 't4', '18:30', '20:00')], []);
    assert.deepEqual(plan, { resourceId: 't4', moves: [{ bookingId: 'lea', from: 't4', to: 't2' }] });
  });

  it('moves nothing that is locked, seated or started, nor onto a block or a table too small', () => {
    const seated = [booking('lea', 't4', '18:30', '20:00', 2, false)];
    assert.equal(planReseating(rules([T2, T4]), SEVEN, ['t4'], seated, []), null);
    const blocked = [{ resourceId: 't2', start: at('19:30'), end: at('21:00') }];
    assert.equal(
      planReseating(rules([T2, T4]), SEVEN, ['t4'], [booking('lea', 't4', '18:30', '20:00')], blocked),
      null,
    );
    const three = [booking('lea', 't4', '18:30', '20:00', 3)];
    assert.equal(planReseating(rules([T2, T4]), SEVEN, ['t4'], three, []), null);
    const fixedOnTarget = [{ resourceId: 't4', start: at('20:00'), end: at('21:00') }];
    assert.equal(planReseating(rules([T2, T4]), SEVEN, ['t4'], [], fixedOnTarget), null);
  });

  it('chains moves in an order one move at a time allows, at most three', () => {
    // The six-top's party of four moves to the four-top once its two-top has moved to the two-top.
    const seated = [booking('six', 't6', '19:00', '20:30', 4), booking('four', 't4', '19:00', '20:30', 2)];
    const plan = planReseating(rules([T2, T4, T6]), SEVEN, ['t6'], seated, []);
    assert.deepEqual(plan, {
      resourceId: 't6',
      moves: [
        { bookingId: 'four', from: 't4', to: 't2' },
        { bookingId: 'six', from: 't6', to: 't4' },
      ],
    });
    // A ladder: each table's party fits only it and the next one, so room at the first shifts all.
    const ladder = [1, 2, 3, 4, 5].map((size) => table(`l${size}`, size, size + 1));
    const parties = (count: number) =>
      ladder.slice(0, count).map((on, i) => booking(`p${i}`, on.id, '19:00', '20:30', i + 2));
    assert.equal(planReseating(rules(ladder), SEVEN, ['l1'], parties(4), []), null);
    assert.deepEqual(
      planReseating(rules(ladder.slice(0, 4)), SEVEN, ['l1'], parties(3), [])?.moves.map(
        (move) => move.bookingId,
      ),
      ['p2', 'p1', 'p0'],
    );
  });

  it('keeps a moved booking inside the resources its service period allows', () => {
    const periods = [
      {
        id: 'dinner',
        name: 'Dinner',
        daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
        startTime: '18:00',
        endTime: '23:00',
        lastStartTime: null,
        intervalMinutes: null,
        turnTimes: null,
        resourceIds: ['t4'],
      },
    ];
    const plan = planReseating(
      rules([T2, T4], { periods }),
      SEVEN,
      ['t4'],
      [booking('lea', 't4', '18:30', '20:00')],
      [],
    );
    assert.equal(plan, null);
  });

  it('makes only valid moves on random days (property)', () => {
    const tables = fc.array(
      fc.record({ min: fc.integer({ min: 1, max: 3 }), extra: fc.integer({ min: 0, max: 4 }) }),
      { minLength: 2, maxLength: 6 },
    );
    const bookings = fc.array(
      fc.record({
        table: fc.nat(5),
        from: fc.integer({ min: 12, max: 21 }),
        hours: fc.integer({ min: 1, max: 2 }),
        party: fc.integer({ min: 1, max: 7 }),
        movable: fc.boolean(),
      }),
      { maxLength: 14 },
    );
    fc.assert(
      fc.property(
        tables,
        bookings,
        fc.integer({ min: 12, max: 21 }),
        fc.integer({ min: 1, max: 7 }),
        (shapes, wanted, hour, party) => {
          const resources = shapes.map((shape, i) => table(`t${i}`, shape.min, shape.min + shape.extra));
          // A day as the exclusion constraint keeps it: each booking fits its table, none overlap on one.
          const seated: SeatedBooking[] = [];
          for (const [i, want] of wanted.entries()) {
            const on = resources[want.table % resources.length]!;
            const candidate = booking(
              `b${i}`,
              on.id,
              `${want.from}:00`,
              `${want.from + want.hours}:00`,
              want.party,
              want.movable,
            );
            if (!takesParty(on, want.party)) continue;
            if (
              seated.some(
                (other) =>
                  other.resourceId === on.id && other.start < candidate.end && candidate.start < other.end,
              )
            )
              continue;
            seated.push(candidate);
          }
          const held = { start: at(`${hour}:00`), end: at(`${hour + 1}:30`) };
          const targets = resources
            .filter((resource) => takesParty(resource, party))
            .map((resource) => resource.id);
          const plan = planReseating(rules(resources), held, targets, seated, []);
          if (!plan) return;
          assert.ok(plan.moves.length <= MAX_RESEATS);
          assert.equal(new Set(plan.moves.map((move) => move.bookingId)).size, plan.moves.length);
          const where = new Map(seated.map((b) => [b.id, b.resourceId]));
          const clashes = (resourceId: string, range: { start: number; end: number }, self?: string) =>
            seated.some(
              (b) =>
                b.id !== self && where.get(b.id) === resourceId && b.start < range.end && range.start < b.end,
            );
          for (const move of plan.moves) {
            const moved = seated.find((b) => b.id === move.bookingId)!;
            assert.ok(moved.movable, `${moved.id} may not move`);
            assert.equal(move.from, moved.resourceId);
            const to = resources.find((resource) => resource.id === move.to)!;
            assert.ok(takesParty(to, moved.partySize), `${moved.id} does not fit ${to.id}`);
            // Each move on its own is one the exclusion constraint accepts.
            assert.ok(!clashes(move.to, moved, moved.id), `${moved.id} lands on a taken ${move.to}`);
            where.set(moved.id, move.to);
          }
          assert.ok(targets.includes(plan.resourceId));
          assert.ok(!clashes(plan.resourceId, held), 'the new party lands on a taken table');
        },
      ),
    );
  });
});
