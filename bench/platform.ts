import { sql } from 'kysely';
import type { Db } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { type ScratchDatabase, scratchDatabase } from './database.ts';
import {
  availabilityLoad,
  bookingLoad,
  customerSearchLoad,
  type LoadResult,
  monthLoad,
  newQuestions,
  rescheduleLoad,
  statsLoad,
  uncachedAvailabilityLoad,
} from './loads.ts';
import { median } from './median.ts';
import { startServer, stopProcess } from './process.ts';
import { addServiceRules, SEED, type SeededBusiness, type SeedOptions, seedBusinesses } from './seed.ts';

/**
 * The platform scenario of `npm run bench`: 100 businesses on one PostgreSQL, and the median one
 * and the largest one each also alone in a database of its own, seeded from the same options and
 * seed (the same rows). Each figure is measured on both in interleaved rounds, so what it shows is
 * what 99 neighbours cost a business. `BENCH_PLATFORM=0` skips it in `npm run bench`; run alone as
 * `node bench/platform.ts`.
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Rounds of (alone, among, among, alone): four samples of each figure on each side. */
const ROUNDS = 2;
/** A year of history before today and 60 days of live bookings ahead. */
const HISTORY_DAYS = 365;
const LIVE_DAYS = 60;
const BUSINESSES = 100;
/** Index of the median business (16 tables) and the largest (80), both restaurants in scheduled mode. */
const MEDIAN = 49;
const LARGEST = BUSINESSES - 1;

/** Zones with their phones' country and area codes; some with half-hour and quarter-hour offsets or a 30-minute daylight saving shift. */
const ZONES: readonly [string, string][] = [
  ['Europe/Berlin', '+49 30'],
  ['America/New_York', '+1 212'],
  ['Asia/Kolkata', '+91 22'],
  ['Australia/Lord_Howe', '+61 2'],
  ['Pacific/Chatham', '+64 3'],
  ['Europe/London', '+44 20'],
  ['America/Los_Angeles', '+1 310'],
  ['Asia/Tokyo', '+81 3'],
  ['America/Sao_Paulo', '+55 11'],
  ['Asia/Kathmandu', '+977 1'],
];

/**
 * The 100 businesses: resources from 5 to 50 spread evenly on a log scale (median 16), and one of
 * 80; a third each restaurants (tables), salons (chairs, services of 30 to 75 minutes) and clinics
 * (rooms, services of 30 to 60); a fifth of the salons and clinics in dynamic mode; half the
 * restaurants taking deposits; the restaurants of 20 tables or more with even index with service
 * periods, pacing and combinations (`addServiceRules`). The median and the largest are plain
 * restaurants in scheduled mode, so the booking scenarios of `npm run bench` apply to them as they are.
 */
export const PLATFORM: readonly SeedOptions[] = Array.from({ length: BUSINESSES }, (_, k) => {
  const resources = k === LARGEST ? 80 : Math.round(5 * 10 ** (k / (BUSINESSES - 2)));
  const measured = k === MEDIAN || k === LARGEST;
  const kind = measured ? 'restaurant' : (['restaurant', 'salon', 'clinic'] as const)[k % 3]!;
  const [timezone, phonePrefix] = ZONES[k % ZONES.length]!;
  const common = {
    label: `platform-${k}`,
    timezone,
    phonePrefix,
    resources,
    customers: 60 * resources,
    firstDay: -HISTORY_DAYS,
    bookedDays: HISTORY_DAYS + LIVE_DAYS,
    // Room for the booking scenarios on days of their own, up to day 420.
    bookingWindowDays: 430,
    scopes: SEED.scopes,
    seed: 1_000 + k,
  };
  if (kind === 'restaurant') {
    return {
      ...SEED,
      ...common,
      occupancy: 0.17 + (k % 7) * 0.016,
      depositType: measured ? 'none' : (['none', 'charge', 'none', 'authorization_hold'] as const)[k % 4]!,
    };
  }
  return {
    ...common,
    kind,
    bookingMode: k % 5 === 2 ? 'dynamic' : 'scheduled',
    open: kind === 'salon' ? '09:00' : '08:00',
    close: kind === 'salon' ? '19:00' : '18:00',
    capacities: [1],
    sections: [null],
    services: kind === 'salon' ? 4 : 3,
    occupancy: 0.128 + (k % 7) * 0.016,
    durationMinutes: 60,
    intervalMinutes: 15,
    maxCapacity: 1,
  };
});

/** Whether a business of PLATFORM gets service periods, pacing and combinations. */
const withServiceRules = (k: number) =>
  k !== MEDIAN &&
  k !== LARGEST &&
  PLATFORM[k]!.kind === undefined &&
  PLATFORM[k]!.resources >= 20 &&
  k % 2 === 0;

/**
 * Runs a bulk load with the tables' indexes that back no constraint dropped, then builds them
 * again from their own definitions (`pg_indexes`), as a bulk load is done: a million rows each
 * written into a dozen indexes at random places was most of the seed's time, and its WAL of full
 * pages. The constraints' indexes stay, so what they guard is checked while loading.
 */
async function withIndexesBuiltAfter<T>(
  db: Db,
  tables: readonly string[],
  load: () => Promise<T>,
): Promise<T> {
  const { rows } = await sql<{ name: string; definition: string }>`
    SELECT i.indexname AS name, i.indexdef AS definition
    FROM pg_indexes i
    JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = 'public'::regnamespace
    WHERE i.schemaname = 'public' AND i.tablename IN (${sql.join(tables)})
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)`.execute(db);
  for (const { name } of rows) await sql`DROP INDEX ${sql.id(name)}`.execute(db);
  const result = await load();
  for (const { definition } of rows) await sql.raw(definition).execute(db);
  return result;
}

/** Seeds businesses of PLATFORM (all by default) with their rules, then vacuums and analyses, as a database that has run a while is. */
export async function seedPlatform(db: Db, which: readonly number[] = PLATFORM.map((_, k) => k)) {
  const seeded = await withIndexesBuiltAfter(db, ['bookings', 'deposits'], () =>
    seedBusinesses(
      db,
      which.map((k) => PLATFORM[k]!),
    ),
  );
  for (const [i, k] of which.entries()) if (withServiceRules(k)) await addServiceRules(db, seeded[i]!);
  await sql`VACUUM ANALYZE`.execute(db);
  return seeded;
}

interface Side {
  url: string;
  seeded: SeededBusiness;
  questions: ReturnType<typeof newQuestions>;
  month: { n: number };
}

/** One figure's load on one side; `sample` counts that side's earlier samples of the figure. */
type Figure = { name: string; run: (side: Side, sample: number, seconds: number) => Promise<LoadResult> };

const FIGURES: Figure[] = [
  {
    name: 'day, every question new',
    run: (side, _, seconds) => uncachedAvailabilityLoad(side.url, side.seeded, side.questions, seconds),
  },
  { name: 'day, asked before', run: (side, _, seconds) => availabilityLoad(side.url, side.seeded, seconds) },
  {
    name: 'month, every question new, one client',
    run: (side, _, seconds) => monthLoad(side.url, side.seeded, 'new', seconds, side.month),
  },
  {
    name: 'booking, one client',
    run: (side, sample, seconds) => bookingLoad(side.url, side.seeded, 1, 181 + 30 * sample, seconds),
  },
  {
    name: 'booking, 20 clients',
    run: (side, sample, seconds) => bookingLoad(side.url, side.seeded, 20, 61 + 30 * sample, seconds),
  },
  {
    // Moves the bookings the one-client sample of the same number made.
    name: 'reschedule (PATCH), one client',
    run: (side, sample, seconds) =>
      rescheduleLoad(side.url, side.seeded, 181 + 30 * sample, 301 + 30 * sample, seconds),
  },
  {
    name: 'statistics of the past year, one client',
    run: (side, _, seconds) => statsLoad(side.url, side.seeded, -HISTORY_DAYS, -1, seconds),
  },
  {
    name: 'customer search, one client',
    run: (side, _, seconds) => customerSearchLoad(side.url, side.seeded, seconds),
  },
];

interface Measured {
  figure: string;
  alone: { p50: number; p99: number; failed: number };
  among: { p50: number; p99: number; failed: number };
}

/** Each figure on both sides in rounds of (alone, among, among, alone); medians of p50 and of p99. */
async function measure(alone: Side, among: Side): Promise<Measured[]> {
  const seconds = Math.max(3, Math.round(SECONDS / 2));
  const results: Measured[] = [];
  for (const figure of FIGURES) {
    const runs = { alone: [] as LoadResult[], among: [] as LoadResult[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ['alone', 'among', 'among', 'alone'] as const) {
        const sample = runs[side].length;
        runs[side].push(await figure.run(side === 'alone' ? alone : among, sample, seconds));
      }
    }
    const summary = (list: LoadResult[]) => ({
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      failed: list.reduce((sum, run) => sum + run.failed, 0),
    });
    results.push({ figure: figure.name, alone: summary(runs.alone), among: summary(runs.among) });
  }
  return results;
}

const ratio = (among: number, alone: number) => (alone === 0 ? (among === 0 ? 1 : Infinity) : among / alone);

function table(title: string, measured: Measured[], aim: number): string[] {
  const lines = [
    '',
    title,
    '',
    '| figure | alone p50 / p99 ms | among 99 others p50 / p99 ms | ratio p50 / p99 | aim met? |',
    '|---|---:|---:|---:|---|',
  ];
  for (const m of measured) {
    const r50 = ratio(m.among.p50, m.alone.p50);
    const r99 = ratio(m.among.p99, m.alone.p99);
    const failed = m.alone.failed + m.among.failed;
    lines.push(
      `| ${m.figure} | ${m.alone.p50} / ${m.alone.p99} | ${m.among.p50} / ${m.among.p99} | ${r50.toFixed(2)}x / ${r99.toFixed(2)}x | ${r50 <= aim && r99 <= aim ? 'yes' : 'no'} (≤ ${aim}x)${failed > 0 ? `; ${failed} failed` : ''} |`,
    );
  }
  return lines;
}

/** The absolute aims among the 99 others: the year's statistics, a new month, the customer search (p50). */
function absoluteAims(name: string, measured: Measured[]): string[] {
  const p50 = (figure: string) => measured.find((m) => m.figure.startsWith(figure))!.among.p50;
  const aims: [string, string, number][] = [
    ['statistics of the past year', 'statistics', 100],
    ['a new month', 'month', 30],
    ['customer search', 'customer search', 20],
  ];
  return aims.map(
    ([label, figure, limit]) =>
      `| ${name}: ${label} p50 ≤ ${limit} ms | ${p50(figure)} ms | ${p50(figure) <= limit ? 'yes' : 'no'} |`,
  );
}

/** A database holding `which` of PLATFORM, seeded, with the time it took; its seeded businesses in the order of `which`. */
async function seededDatabase(label: string, which?: readonly number[]) {
  const scratch = await scratchDatabase(SERVER_URL, label);
  const started = performance.now();
  const database = await scratch.open();
  try {
    await migrate(database);
    const seeded = await seedPlatform(database.db, which);
    return { scratch, seeded, seconds: (performance.now() - started) / 1000 };
  } finally {
    await database.close();
  }
}

/** Seeds the three databases, measures, and returns the lines of the scenario's tables. */
export async function runPlatform(): Promise<string[]> {
  const scratches: ScratchDatabase[] = [];
  const servers: Awaited<ReturnType<typeof startServer>>[] = [];
  try {
    process.stderr.write('[platform] seeding 100 businesses...\n');
    const platform = await seededDatabase('platform');
    scratches.push(platform.scratch);
    process.stderr.write('[platform] seeding the median and the largest business alone...\n');
    const aloneMedian = await seededDatabase('platform_median', [MEDIAN]);
    scratches.push(aloneMedian.scratch);
    const aloneLargest = await seededDatabase('platform_largest', [LARGEST]);
    scratches.push(aloneLargest.scratch);
    const among = await startServer(platform.scratch.serverEnv);
    servers.push(among);
    const medianServer = await startServer(aloneMedian.scratch.serverEnv);
    servers.push(medianServer);
    const largestServer = await startServer(aloneLargest.scratch.serverEnv);
    servers.push(largestServer);
    const side = (url: string, seeded: SeededBusiness): Side => ({
      url,
      seeded,
      questions: newQuestions(seeded),
      month: { n: 0 },
    });
    process.stderr.write('[platform] the median business, alone and among 99 others...\n');
    const medianFigures = await measure(
      side(medianServer.url, aloneMedian.seeded[0]!),
      side(among.url, platform.seeded[MEDIAN]!),
    );
    process.stderr.write('[platform] the largest business, alone and among 99 others...\n');
    const largestFigures = await measure(
      side(largestServer.url, aloneLargest.seeded[0]!),
      side(among.url, platform.seeded[LARGEST]!),
    );
    const total = platform.seeded.reduce((sum, business) => sum + business.bookings, 0);
    const resources = PLATFORM.map((options) => options.resources);
    const m = platform.seeded[MEDIAN]!;
    const l = platform.seeded[LARGEST]!;
    return [
      '',
      `Platform: ${BUSINESSES} businesses on one PostgreSQL (${Math.min(...resources)} to ${Math.max(...resources)} resources, ${resources.reduce((a, b) => a + b, 0)} in all), ${total.toLocaleString('en-US')} bookings (${HISTORY_DAYS} days of history, ${LIVE_DAYS} ahead), seeded in ${platform.seconds.toFixed(0)} s. The median business (${PLATFORM[MEDIAN]!.resources} tables, ${m.bookings.toLocaleString('en-US')} bookings) and the largest (${PLATFORM[LARGEST]!.resources} tables, ${l.bookings.toLocaleString('en-US')} bookings) are each also seeded alone in a database of their own (${aloneMedian.seconds.toFixed(0)} s and ${aloneLargest.seconds.toFixed(0)} s). Rounds of (alone, among, among, alone), ${ROUNDS * 2} samples of ${Math.max(3, Math.round(SECONDS / 2))} s a side; medians.`,
      ...table(`The median business (${PLATFORM[MEDIAN]!.resources} tables)`, medianFigures, 1.25),
      ...table(`The largest business (${PLATFORM[LARGEST]!.resources} tables)`, largestFigures, 1.5),
      '',
      '| absolute aim, among 99 others | p50 | met? |',
      '|---|---:|---|',
      ...absoluteAims('median', medianFigures),
      ...absoluteAims('largest', largestFigures),
    ];
  } finally {
    for (const server of servers) await stopProcess(server.child);
    for (const scratch of scratches) await scratch.drop();
  }
}

if (import.meta.main) process.stdout.write(`${(await runPlatform()).join('\n')}\n`);
