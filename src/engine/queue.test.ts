import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { at, dayRules, everyDay, held, seat } from './day-rules.fixture.ts';
import { queueWaits } from './queue.ts';
import type { DayRules } from './types.ts';

const busy = (resourceId: string, start: string, end: string) =>
  held(resourceId, `2026-06-10T${start}:00Z`, `2026-06-10T${end}:00Z`);

/** The engine's test day at 18:00, open 12:00-23:00, bookings of 90 minutes on a 15-minute grid. */
const rules = (overrides: Partial<DayRules> = {}) =>
  dayRules({
    now: at('2026-06-10T18:00:00Z'),
    hours: everyDay('12:00:00', '23:00:00'),
    intervalMinutes: 15,
    durationMinutes: 90,
    minNoticeHours: 2,
    bookingWindowDays: 30,
    partySize: 2,
    resources: [seat('t2', 1, 2), seat('t4', 2, 4)],
    ...overrides,
  });

describe('queueWaits', () => {
  it('quotes no wait when a fitting table is free now, notice and grid aside', () => {
    assert.deepEqual(queueWaits(rules({ now: at('2026-06-10T18:07:30Z') }), [3]), [0]);
  });

  it('quotes the earliest end of a booking on a table that seats the party', () => {
    const day = rules({ busy: [busy('t4', '17:30', '18:40'), busy('t2', '17:00', '18:10')] });
    assert.deepEqual(queueWaits(day, [3]), [40]);
    assert.deepEqual(queueWaits(day, [2]), [10]);
  });

  it('counts the tables of the parties ahead as taken', () => {
    const day = rules({ busy: [busy('t4', '17:30', '18:40'), busy('t2', '17:00', '19:00')] });
    // The first party of 3 takes t4 at 18:40 for 90 minutes; the second waits for 20:10.
    assert.deepEqual(queueWaits(day, [3, 4]), [40, 130]);
  });

  it('waits for a table to be free for the whole booking, not only at its start', () => {
    const day = rules({ busy: [busy('t4', '17:00', '18:30'), busy('t4', '19:00', '21:00')] });
    assert.deepEqual(queueWaits(day, [4]), [180]);
  });

  it('moves a table’s freeing by the buffer before a booking', () => {
    const day = rules({ bufferBeforeMinutes: 10, busy: [busy('t4', '17:30', '18:20')] });
    assert.deepEqual(queueWaits(day, [4]), [30]);
  });

  it('seats a party at a combination when no single table takes it', () => {
    const day = rules({
      combinations: [{ id: 'c', name: 'c', resourceIds: ['t2', 't4'], capacityMin: 5, capacityMax: 6 }],
      busy: [busy('t2', '17:00', '18:15')],
    });
    // The six take both tables from 18:15; a two after them waits until 19:45.
    assert.deepEqual(queueWaits(day, [6, 2]), [15, 105]);
  });

  it('answers null for a party nothing seats before closing, or on a closed day', () => {
    assert.deepEqual(queueWaits(rules(), [9]), [null]);
    assert.deepEqual(queueWaits(rules({ busy: [busy('t4', '17:00', '22:00')] }), [4]), [null]);
    assert.deepEqual(
      queueWaits(rules({ blackouts: [{ startDate: '2026-06-10', endDate: '2026-06-10' }] }), [2]),
      [null],
    );
  });

  it('quotes from the wall clock of the venue’s zone', () => {
    const day = rules({
      timezone: 'Europe/Berlin',
      now: at('2026-06-10T16:00:00Z'),
      busy: [busy('t4', '15:00', '16:45')],
    });
    assert.deepEqual(queueWaits(day, [4]), [45]);
  });
});
