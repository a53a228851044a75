import { performance } from 'node:perf_hooks';
import type {
  Arrival,
  BusyPeriod,
  DayRules,
  EngineCombination,
  EngineResource,
  HoursRow,
} from '../src/engine/index.ts';
import { daySlots, freeOptions } from '../src/engine/index.ts';
import { median } from './median.ts';
import { seededRandom } from './seed.ts';

const RESOURCES = 200;
const BUSY_PERIODS = 2000;
const WARMUP_ITERATIONS = 200;
const ITERATIONS = 2000;

/** A busy Saturday of one business: 200 resources, 2,000 held ranges and blocks (about two thirds of opening hours), a 15-minute grid. */
export function buildBenchDay(): DayRules {
  const random = seededRandom(20_260_613);
  const pick = (n: number) => Math.floor(random() * n);
  const resources: EngineResource[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    const capacityMax = 2 + pick(9);
    resources.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: `Table ${i + 1}`,
      capacityMin: 1 + pick(2),
      capacityMax,
      displayOrder: pick(50),
      isActive: random() > 0.03,
    });
  }
  // 2026-06-13 10:00 to 23:00 in Europe/Berlin (UTC+2) is 08:00Z to 21:00Z.
  const opens = Date.UTC(2026, 5, 13, 8, 0);
  const quarter = 15 * 60_000;
  const busy: BusyPeriod[] = [];
  for (let i = 0; i < BUSY_PERIODS; i++) {
    const start = opens + pick(48) * quarter;
    busy.push({ resourceId: resources[pick(RESOURCES)]!.id, start, end: start + (2 + pick(4)) * quarter });
  }
  const hours: HoursRow[] = [];
  for (let day = 0; day < 7; day++) {
    hours.push({
      dayOfWeek: day,
      isOpen: true,
      openTime: '10:00:00',
      closeTime: '23:00:00',
      lastBookingTime: null,
    });
  }
  return {
    date: '2026-06-13',
    timezone: 'Europe/Berlin',
    now: Date.UTC(2026, 5, 12, 9, 0),
    hours,
    blackouts: [{ startDate: '2026-12-24', endDate: '2026-12-26' }],
    intervalMinutes: 15,
    durationMinutes: 90,
    bufferBeforeMinutes: 10,
    bufferAfterMinutes: 15,
    minNoticeHours: 2,
    bookingWindowDays: 60,
    partySize: 2,
    resources,
    allowedResourceIds: null,
    resourceId: null,
    busy,
  };
}

/** Times daySlots for the bench day: milliseconds per computed day. */
export function benchEngine(): { iterations: number; msPerDay: number } {
  const rules = buildBenchDay();
  let freePairs = 0;
  for (let i = 0; i < WARMUP_ITERATIONS; i++) freePairs += daySlots(rules).slots.length;
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    for (const slot of daySlots(rules).slots) freePairs += slot.freeResourceIds.length;
  }
  const elapsed = performance.now() - started;
  // Using the result keeps the work from being optimised away.
  if (freePairs === 0) throw new Error('The bench day has no free slots');
  return { iterations: ITERATIONS, msPerDay: elapsed / ITERATIONS };
}

const ROUNDS = 5;
const RICH_TABLES = 50;

/**
 * The bench day cut to 50 tables, plain, and the same day as the bistro runs it: lunch 12:00-14:30
 * every 15 minutes and dinner 18:00-22:30 every 30, two hours for parties of 5 or more, 20 covers
 * per grid time (the day's bookings arriving at its starts) and 10 combinations of two tables.
 */
export function buildRichDays(): { plain: DayRules; rich: DayRules } {
  const day = buildBenchDay();
  const resources = day.resources.slice(0, RICH_TABLES).map((resource) => ({ ...resource, isActive: true }));
  const ids = new Set(resources.map((resource) => resource.id));
  const busy = day.busy
    .filter((period) => ids.has(period.resourceId))
    .map((period) => ({ ...period, kind: 'booking' as const }));
  const plain: DayRules = { ...day, resources, busy, partySize: 6 };
  const arrivals: Arrival[] = busy.map((period, i) => ({
    bookingId: `booking-${i}`,
    start: period.start,
    partySize: 1 + (i % 6),
  }));
  const combinations: EngineCombination[] = Array.from({ length: 10 }, (_, i) => ({
    id: `combination-${i}`,
    name: `Joined ${i + 1}`,
    resourceIds: [resources[2 * i]!.id, resources[2 * i + 1]!.id],
    capacityMin: 5,
    capacityMax: resources[2 * i]!.capacityMax + resources[2 * i + 1]!.capacityMax,
  }));
  const period = (id: string, startTime: string, endTime: string, intervalMinutes: number) => ({
    id,
    name: id,
    daysOfWeek: [0, 1, 2, 3, 4, 5, 6],
    startTime,
    endTime,
    lastStartTime: null,
    intervalMinutes,
    turnTimes: null,
    resourceIds: [],
    maxCoversPerSlot: 20,
  });
  const rich: DayRules = {
    ...plain,
    turnTimes: [{ minParty: 5, maxParty: 50, durationMinutes: 120 }],
    periods: [period('Lunch', '12:00:00', '14:30:00', 15), period('Dinner', '18:00:00', '22:30:00', 30)],
    combinations,
    arrivals,
  };
  return { plain, rich };
}

/** Milliseconds per day of the plain and the bistro day, timed in interleaved rounds; medians. */
export function benchRichDay(): { plainMs: number; richMs: number; rounds: string[] } {
  const { plain, rich } = buildRichDays();
  let options = 0;
  const time = (rules: DayRules) => {
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      for (const slot of daySlots(rules).slots)
        options += slot.freeResourceIds.length + slot.freeCombinationIds.length;
    }
    return (performance.now() - started) / ITERATIONS;
  };
  for (let i = 0; i < WARMUP_ITERATIONS; i++)
    options += daySlots(plain).slots.length + daySlots(rich).slots.length;
  const plainMs: number[] = [];
  const richMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    plainMs.push(time(plain));
    richMs.push(time(rich));
  }
  if (options === 0) throw new Error('The bench days have no free slots');
  return {
    plainMs: median(plainMs),
    richMs: median(richMs),
    rounds: richMs.map((ms, i) => `${Math.round((100 * plainMs[i]!) / ms)}%`),
  };
}

/**
 * The bench day cut to 50 resources, for a party of 2: as plain bookings, as a class of 12 (a
 * third of the day's bookings being seats of classes of it at their starts), and as a service
 * needing one of the first 25 resources and one of the last 25 at once.
 */
export function buildServiceDays(): { plain: DayRules; seats: DayRules; requirements: DayRules } {
  const day = buildBenchDay();
  const resources = day.resources.slice(0, RICH_TABLES).map((resource) => ({ ...resource, isActive: true }));
  const ids = resources.map((resource) => resource.id);
  const busy = day.busy.filter((period) => ids.includes(period.resourceId));
  const plain: DayRules = { ...day, resources, busy, partySize: 2 };
  const seats: DayRules = {
    ...plain,
    class: { serviceId: 'class', seats: 12 },
    busy: busy.map((period, i) =>
      i % 3 === 0
        ? { ...period, seatsOf: { serviceId: 'class', start: period.start, seats: 1 + (i % 4) } }
        : period,
    ),
  };
  const requirements: DayRules = {
    ...plain,
    requirements: [
      { name: 'Stylist', resourceIds: ids.slice(0, 25), count: 1 },
      { name: 'Chair', resourceIds: ids.slice(25), count: 1 },
    ],
  };
  return { plain, seats, requirements };
}

/** Milliseconds per day of the plain, the class and the two-group day, timed in interleaved rounds; medians. */
export function benchServiceDays(): {
  plainMs: number;
  seatsMs: number;
  requirementsMs: number;
  rounds: string[];
} {
  const days = buildServiceDays();
  let options = 0;
  const time = (rules: DayRules) => {
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      for (const slot of daySlots(rules).slots) options += freeOptions(slot);
    }
    return (performance.now() - started) / ITERATIONS;
  };
  for (let i = 0; i < WARMUP_ITERATIONS; i++) {
    for (const rules of Object.values(days)) options += daySlots(rules).slots.length;
  }
  const plainMs: number[] = [];
  const seatsMs: number[] = [];
  const requirementsMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    plainMs.push(time(days.plain));
    seatsMs.push(time(days.seats));
    requirementsMs.push(time(days.requirements));
  }
  if (options === 0) throw new Error('The bench days have no free slots');
  return {
    plainMs: median(plainMs),
    seatsMs: median(seatsMs),
    requirementsMs: median(requirementsMs),
    rounds: plainMs.map(
      (ms, i) => `${(seatsMs[i]! / ms).toFixed(2)}×/${(requirementsMs[i]! / ms).toFixed(2)}×`,
    ),
  };
}
