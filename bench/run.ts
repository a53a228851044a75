import { randomUUID } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { placeBooking } from '../src/bookings/bookings.queries.ts';
import { confirmationCode } from '../src/bookings/bookings.service.ts';
import { normalizePhone } from '../src/customers/customers.service.ts';
import { formatMinutes } from '../src/engine/index.ts';
import type { Db } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { rangeLiteral } from '../src/platform/sql.ts';
import { scratchDatabase } from './database.ts';
import { benchEngine, benchRichDay, benchServiceDays } from './engine.bench.ts';
import {
  availabilityLoad,
  BOOKING_CLIENTS,
  BOOKING_TIMES,
  bareInsertLoad,
  bookingLoad,
  CONNECTIONS,
  customerSearchLoad,
  driverLoadResult,
  type LoadResult,
  load,
  monthLoad,
  newQuestions,
  rescheduleLoad,
  SECONDS,
  statsLoad,
  uncachedAvailabilityLoad,
} from './loads.ts';
import { type PartnerLookups, partnerLine, partnerLookups } from './partners.ts';
import { runPlatform } from './platform.ts';
import { startProcess, startServer, stopProcess } from './process.ts';
import {
  addServiceRules,
  COMBINATIONS,
  dayFromToday,
  PACED_COVERS,
  SEED,
  type SeededBusiness,
  seedBusiness,
  seededRandom,
} from './seed.ts';

/**
 * `npm run bench`: seeds a realistic restaurant, starts the real server (`node src/main.ts`) on
 * embedded PGlite and on PostgreSQL, and loads it with autocannon from this process. In the same
 * run it measures a bare Fastify route and the booking transaction's SQL run directly, and prints
 * every figure with its ratio to them. The same restaurant is then switched to dynamic mode for the
 * dynamic surface's point checks and bookings. BENCH_SECONDS (default 10) sets each scenario's length;
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server.
 * After the one-business runs, the platform scenario (bench/platform.ts) measures a median and the
 * largest of 100 businesses on PostgreSQL against each alone; BENCH_PLATFORM=0 skips it.
 */
/** Rounds of the interleaved availability measurement. */
const ROUNDS = 3;
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A start of dynamic mode: any minute from 11:00 to 21:29, 30 to 90 minutes long, so it ends by closing (23:00). */
function dynamicStart(random: () => number): { start_time: string; duration_minutes: number } {
  return {
    start_time: formatMinutes(11 * 60 + Math.floor(random() * 630)),
    duration_minutes: 30 + Math.floor(random() * 61),
  };
}

/** Switches the seeded restaurant to dynamic mode through the API, as its owner would. */
async function switchToDynamic(url: string, seeded: SeededBusiness): Promise<void> {
  const response = await fetch(`${url}/v1/manage/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ booking_mode: 'dynamic' }),
  });
  if (!response.ok) throw new Error(`switching to dynamic mode: ${response.status} ${await response.text()}`);
}

/**
 * Dynamic point checks over the 30 days the availability scenario asks about, each at a random
 * minute and length for 2 or 4: after a day's first question, its rules and busy periods come
 * from the cache, and each request runs the engine's check of one start.
 */
function dynamicAvailabilityLoad(url: string, seeded: SeededBusiness): Promise<LoadResult> {
  const random = seededRandom(7);
  let n = 0;
  return load({
    url,
    headers: { authorization: `Bearer ${seeded.apiKey}` },
    requests: [
      {
        setupRequest: (request) => {
          n++;
          const { start_time, duration_minutes } = dynamicStart(random);
          const query = `date=${dayFromToday(1 + (n % 30))}&start_time=${start_time}&duration_minutes=${duration_minutes}&capacity=${n % 2 ? 2 : 4}`;
          return {
            ...request,
            method: 'GET',
            path: `/v1/dynamic/availability/${seeded.businessId}?${query}`,
          };
        },
      },
    ],
  });
}

/**
 * Dynamic bookings at random minutes and lengths on 30 days nothing else books (121-150). At the
 * rates measured here that is a hundred or two a day, about fifteen of them at any moment, far
 * below the 50 tables, so they seldom conflict.
 */
function dynamicBookingLoad(url: string, seeded: SeededBusiness): Promise<LoadResult> {
  const random = seededRandom(11);
  let n = 0;
  return load({
    url,
    headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          n++;
          return {
            ...request,
            method: 'POST',
            path: '/v1/dynamic/bookings',
            body: JSON.stringify({
              business_id: seeded.businessId,
              booking_date: dayFromToday(121 + (n % 30)),
              ...dynamicStart(random),
              capacity: 2,
              first_name: 'Load',
              last_name: 'Test',
              email: 'load@example.com',
              phone: `+49 172 ${1_000_000 + n}`,
            }),
          };
        },
      },
    ],
  });
}

/**
 * The one statement the service sends to place a booking (`placeBooking`), sent straight through
 * the driver: no HTTP, validation, auth, caches or engine. The candidate tables are the ones this
 * load has not booked yet at that time, smallest first, as the service's caches would order them;
 * the monthly quota is counted as in the service. It books days 211-270, which nothing else does:
 * room for 24,000 bookings.
 */
async function bookingSqlLoad(db: Db, seeded: SeededBusiness): Promise<LoadResult> {
  const tables = await db
    .selectFrom('resources')
    .select('id')
    .where('business_id', '=', seeded.businessId)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .where('capacity_max', '>=', 2)
    .orderBy('capacity_max')
    .orderBy('display_order')
    .execute();
  const { developer_id } = await db
    .selectFrom('businesses')
    .select('developer_id')
    .where('id', '=', seeded.businessId)
    .executeTakeFirstOrThrow();
  const month = `${new Date().toISOString().slice(0, 7)}-01`;
  const bookedAt = new Map<string, number>();
  let n = 0;
  let failed = 0;
  const latencies: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      n++;
      const i = n;
      const date = dayFromToday(211 + (i % 60));
      const time = BOOKING_TIMES[Math.floor(i / 30) % BOOKING_TIMES.length]!;
      const booked = bookedAt.get(`${date} ${time}`) ?? 0;
      bookedAt.set(`${date} ${time}`, booked + 1);
      const start = Date.parse(`${date}T${time}:00+01:00`);
      const end = start + SEED.durationMinutes * 60_000;
      const phone = `+49 171 ${1_000_000 + i}`;
      const started = performance.now();
      try {
        await placeBooking(db, {
          id: randomUUID(),
          business_id: seeded.businessId,
          service_id: null,
          booking_date: date,
          start_time: time,
          end_time: time,
          duration_minutes: SEED.durationMinutes,
          starts_at: new Date(start).toISOString(),
          ends_at: new Date(end).toISOString(),
          during: rangeLiteral(start, end),
          status: 'confirmed',
          capacity: 2,
          source: 'online',
          customer_notes: null,
          guest_first_name: 'Load',
          guest_last_name: 'Test',
          guest_email: 'load@example.com',
          customer: {
            first_name: 'Load',
            last_name: 'Test',
            phone,
            phone_normalized: normalizePhone(phone),
            email: 'load@example.com',
          },
          trusted: true,
          candidates: tables.slice(booked).map((table) => [table.id]),
          codes: Array.from({ length: 5 }, confirmationCode),
          actor: 'api_key:bench',
          action: 'booking.created',
          quota: { developer_id, month, limit: 50_000, plan_id: 'bench' },
        });
        latencies.push(performance.now() - started);
      } catch (error) {
        if (failed++ === 0)
          process.stderr.write(`first failure of the direct booking SQL: ${(error as Error).message}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return driverLoadResult(latencies, failed);
}

/** The bare route and the API's asked-before availability in turns, so the box's noise hits both alike; medians. */
async function interleavedAvailability(
  bareUrl: string,
  url: string,
  seeded: SeededBusiness,
): Promise<{ bare: number; api: number; rounds: string[] }> {
  const seconds = Math.max(3, Math.round(SECONDS / 2));
  const bare: number[] = [];
  const api: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bare.push((await load({ url: `${bareUrl}/bare`, duration: seconds })).rps);
    api.push((await availabilityLoad(url, seeded, seconds)).rps);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    bare: median(bare),
    api: median(api),
    rounds: api.map((rps, i) => `${Math.round((100 * rps) / bare[i]!)}%`),
  };
}

/**
 * A class of 12 and a service holding one of the first 25 tables and one of the other 25, made on
 * the seeded business through the API; their ids.
 */
async function serviceKinds(url: string, seeded: SeededBusiness): Promise<[string, string]> {
  const create = async (body: object) => {
    const response = await fetch(`${url}/v1/manage/services`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ duration_minutes: 90, ...body }),
    });
    if (response.status !== 201) throw new Error(`a bench service was refused: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const half = Math.floor(seeded.resourceIds.length / 2);
  return [
    await create({ name: 'Bench class', seats: 12 }),
    await create({
      name: 'Bench pair',
      requirements: [
        { name: 'First', resource_ids: seeded.resourceIds.slice(0, half) },
        { name: 'Second', resource_ids: seeded.resourceIds.slice(half) },
      ],
    }),
  ];
}

/** Medians of interleaved rounds of new days of a plain business and of the bistro beside it. */
interface RichDay {
  plain: { rps: number; p50: number };
  rich: { rps: number; p50: number };
  /** The bistro's throughput as a share of the plain one's, per round. */
  rounds: string[];
}

/**
 * New days (never asked before, so computed from the database) of two businesses of the same 50
 * tables and bookings, in turns so the box's noise hits both alike: a plain one, and the bistro
 * with two service periods, pacing and 10 combinations.
 */
async function interleavedRichDay(
  url: string,
  plain: { seeded: SeededBusiness; questions: ReturnType<typeof newQuestions> },
  rich: { seeded: SeededBusiness; questions: ReturnType<typeof newQuestions> },
): Promise<RichDay> {
  const seconds = Math.max(3, Math.round(SECONDS / 2));
  const plainRuns: LoadResult[] = [];
  const richRuns: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    plainRuns.push(await uncachedAvailabilityLoad(url, plain.seeded, plain.questions, seconds));
    richRuns.push(await uncachedAvailabilityLoad(url, rich.seeded, rich.questions, seconds));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = (runs: LoadResult[]) => ({
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
  });
  return {
    plain: summary(plainRuns),
    rich: summary(richRuns),
    rounds: richRuns.map((run, i) => `${Math.round((100 * run.rps) / plainRuns[i]!.rps)}%`),
  };
}

interface EngineRun {
  engine: 'PGlite' | 'PostgreSQL';
  seeded: SeededBusiness;
  availability: LoadResult;
  uncached: LoadResult;
  bookings: LoadResult;
  dynamicAvailability: LoadResult;
  dynamicBookings: LoadResult;
  bookingSql: LoadResult;
  year: SeededBusiness;
  stats: LoadResult;
  search: LoadResult;
  interleaved: { bare: number; api: number; rounds: string[] };
  richDay: RichDay;
  /** New days asked for a class of 12 and for a service of two groups, each beside plain ones. */
  classDay: RichDay;
  groupsDay: RichDay;
  partners: PartnerLookups;
  monthNew: LoadResult;
  monthAgain: LoadResult;
  bookings20: LoadResult;
  bookingsOne: LoadResult;
  reschedules: LoadResult;
  bareInserts: LoadResult | null;
}

async function runOn(engine: EngineRun['engine'], bareUrl: string): Promise<EngineRun> {
  const scratch = await scratchDatabase(engine === 'PGlite' ? undefined : SERVER_URL, 'bench');
  try {
    let database = await scratch.open();
    await migrate(database);
    process.stderr.write(`[${engine}] seeding...\n`);
    const seeded = await seedBusiness(database.db);
    const year = await seedBusiness(database.db, { ...SEED, label: 'year', bookedDays: 365 });
    const bistro = await seedBusiness(database.db, { ...SEED, label: 'bistro' });
    await addServiceRules(database.db, bistro);
    // A database that has held its data for a while has been vacuumed and analysed: the planner
    // knows the tables' sizes (without it, a year's statistics took four times as long).
    await sql`VACUUM ANALYZE`.execute(database.db);
    await database.close();
    const { child, url } = await startServer(scratch.serverEnv);
    let availability: LoadResult;
    let uncached: LoadResult;
    let bookings: LoadResult;
    let dynamicAvailability: LoadResult;
    let dynamicBookings: LoadResult;
    let stats: LoadResult;
    let search: LoadResult;
    let interleaved: EngineRun['interleaved'];
    let richDay: RichDay;
    let classDay: RichDay;
    let groupsDay: RichDay;
    let partners: PartnerLookups;
    let monthNew: LoadResult;
    let monthAgain: LoadResult;
    let bookings20: LoadResult;
    let bookingsOne: LoadResult;
    let reschedules: LoadResult;
    try {
      process.stderr.write(`[${engine}] availability...\n`);
      availability = await availabilityLoad(url, seeded);
      process.stderr.write(`[${engine}] availability, uncached...\n`);
      const plainQuestions = newQuestions(seeded);
      uncached = await uncachedAvailabilityLoad(url, seeded, plainQuestions);
      process.stderr.write(`[${engine}] availability, interleaved with the bare route...\n`);
      interleaved = await interleavedAvailability(bareUrl, url, seeded);
      process.stderr.write(`[${engine}] new days of the bistro, interleaved with the plain restaurant...\n`);
      richDay = await interleavedRichDay(
        url,
        { seeded, questions: plainQuestions },
        { seeded: bistro, questions: newQuestions(bistro) },
      );
      process.stderr.write(`[${engine}] new days of a class and of a service of two groups...\n`);
      const [yoga, colour] = await serviceKinds(url, seeded);
      // The plain side goes on through the plain questions, so none is asked twice.
      classDay = await interleavedRichDay(
        url,
        { seeded, questions: plainQuestions },
        { seeded, questions: newQuestions(seeded, `&service_id=${yoga}`) },
      );
      groupsDay = await interleavedRichDay(
        url,
        { seeded, questions: plainQuestions },
        { seeded, questions: newQuestions(seeded, `&service_id=${colour}`) },
      );
      process.stderr.write(`[${engine}] a partner's availability lookups...\n`);
      partners = await partnerLookups(url, seeded);
      process.stderr.write(`[${engine}] a month of availability...\n`);
      monthNew = await monthLoad(url, seeded, 'new');
      monthAgain = await monthLoad(url, seeded, 'again');
      process.stderr.write(`[${engine}] bookings...\n`);
      bookings = await bookingLoad(url, seeded);
      bookings20 = await bookingLoad(url, seeded, BOOKING_CLIENTS, 151);
      bookingsOne = await bookingLoad(url, seeded, 1, 181);
      process.stderr.write(`[${engine}] staff reschedules...\n`);
      reschedules = await rescheduleLoad(url, seeded, 181, 300);
      await switchToDynamic(url, seeded);
      process.stderr.write(`[${engine}] dynamic availability...\n`);
      dynamicAvailability = await dynamicAvailabilityLoad(url, seeded);
      process.stderr.write(`[${engine}] dynamic bookings...\n`);
      dynamicBookings = await dynamicBookingLoad(url, seeded);
      process.stderr.write(`[${engine}] statistics of a year...\n`);
      stats = await statsLoad(url, year);
      process.stderr.write(`[${engine}] customer search...\n`);
      search = await customerSearchLoad(url, seeded);
    } finally {
      await stopProcess(child);
    }
    process.stderr.write(`[${engine}] booking SQL direct...\n`);
    database = await scratch.open();
    const bookingSql = await bookingSqlLoad(database.db, seeded);
    const bareInserts = engine === 'PostgreSQL' ? await bareInsertLoad(database.db) : null;
    await database.close();
    return {
      engine,
      seeded,
      availability,
      uncached,
      bookings,
      dynamicAvailability,
      dynamicBookings,
      bookingSql,
      year,
      stats,
      search,
      interleaved,
      richDay,
      classDay,
      groupsDay,
      partners,
      monthNew,
      monthAgain,
      bookings20,
      bookingsOne,
      reschedules,
      bareInserts,
    };
  } finally {
    await scratch.drop();
  }
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (a: number, b: number) => `${fmt((100 * a) / b)}%`;

async function main() {
  process.stderr.write('engine alone...\n');
  const engine = benchEngine();
  const richEngine = benchRichDay();
  const serviceEngine = benchServiceDays();
  process.stderr.write('bare route...\n');
  const bareServer = await startProcess('bench/bare-server.ts', {}, { readyPath: '/bare' });
  const runs: EngineRun[] = [];
  let bare: LoadResult;
  const postgres = await postgresReachable();
  try {
    bare = await load({ url: `${bareServer.url}/bare` });
    runs.push(await runOn('PGlite', bareServer.url));
    if (postgres) runs.push(await runOn('PostgreSQL', bareServer.url));
    else process.stderr.write(`PostgreSQL at ${SERVER_URL} is not reachable: skipped\n`);
  } finally {
    await stopProcess(bareServer.child);
  }
  // PostgreSQL only: 1.6 million bookings are not what the embedded engine of one process is for.
  const platform = postgres && process.env.BENCH_PLATFORM !== '0' ? await runPlatform() : [];

  const lines = [
    `Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${SECONDS} s per scenario, ${CONNECTIONS} connections.`,
    `Seeded: ${SEED.resources} tables in ${SEED.sections.length} sections, ${SEED.bookedDays} days of bookings (${runs.map((r) => `${fmt(r.seeded.bookings)} on ${r.engine}, ${fmt(100 * r.seeded.occupancy)}% of table time`).join('; ')}).`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | ok | failed | ratio |',
    '|---|---:|---:|---:|---:|---:|---|',
    `| bare Fastify JSON route | ${fmt(bare.rps)} | ${bare.p50} | ${bare.p99} | ${bare.ok} | ${bare.failed} | 100% (yardstick) |`,
  ];
  for (const run of runs) {
    const a = run.availability;
    const u = run.uncached;
    const b = run.bookings;
    const s = run.bookingSql;
    const da = run.dynamicAvailability;
    const db = run.dynamicBookings;
    lines.push(
      `| ${run.engine}: availability, 60 questions asked again and again | ${fmt(a.rps)} | ${a.p50} | ${a.p99} | ${a.ok} | ${a.failed} | ${pct(a.rps, bare.rps)} of bare route |`,
      `| ${run.engine}: availability, every question new (computed from the database) | ${fmt(u.rps)} | ${u.p50} | ${u.p99} | ${u.ok} | ${u.failed} | ${pct(u.rps, bare.rps)} of bare route |`,
      `| ${run.engine}: booking transaction SQL, direct | ${fmt(s.rps)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${s.ok} | ${s.failed} | yardstick for bookings |`,
      `| ${run.engine}: bookings over HTTP (non-conflicting) | ${fmt(b.rps)} | ${b.p50} | ${b.p99} | ${b.ok} | ${b.failed} | ${pct(b.rps, s.rps)} of direct SQL |`,
      `| ${run.engine}: dynamic availability, any minute and length over 30 days | ${fmt(da.rps)} | ${da.p50} | ${da.p99} | ${da.ok} | ${da.failed} | ${pct(da.rps, bare.rps)} of bare route |`,
      `| ${run.engine}: dynamic bookings over HTTP (any minute and length, non-conflicting) | ${fmt(db.rps)} | ${db.p50} | ${db.p99} | ${db.ok} | ${db.failed} | ${pct(db.rps, s.rps)} of direct SQL |`,
      `| ${run.engine}: statistics of a year (${fmt(run.year.bookings)} bookings), one client | ${fmt(run.stats.rps)} | ${run.stats.p50} | ${run.stats.p99} | ${run.stats.ok} | ${run.stats.failed} | aim: p99 under 100 ms on PostgreSQL |`,
      `| ${run.engine}: customer search (${fmt(SEED.customers)} customers; parts of names, emails, phones), one client | ${fmt(run.search.rps)} | ${run.search.p50} | ${run.search.p99} | ${run.search.ok} | ${run.search.failed} | aim: p50 under 20 ms |`,
      `| ${run.engine}: availability asked before, interleaved rounds (medians) | ${fmt(run.interleaved.api)} | | | | | ${pct(run.interleaved.api, run.interleaved.bare)} of bare route (${fmt(run.interleaved.bare)} req/s); rounds ${run.interleaved.rounds.join(', ')} |`,
      `| ${run.engine}: new days asked for a class of 12, interleaved rounds (medians) | ${fmt(run.classDay.rich.rps)} | ${run.classDay.rich.p50} | | | | ${pct(run.classDay.rich.rps, run.classDay.plain.rps)} of the same days without a service (${fmt(run.classDay.plain.rps)} req/s, p50 ${run.classDay.plain.p50} ms); rounds ${run.classDay.rounds.join(', ')}; aim: at least 80% (at most 1.25× the time) |`,
      `| ${run.engine}: new days asked for a service of one of 25 tables and one of the other 25, interleaved rounds (medians) | ${fmt(run.groupsDay.rich.rps)} | ${run.groupsDay.rich.p50} | | | | ${pct(run.groupsDay.rich.rps, run.groupsDay.plain.rps)} of the same days without a service (${fmt(run.groupsDay.plain.rps)} req/s, p50 ${run.groupsDay.plain.p50} ms); rounds ${run.groupsDay.rounds.join(', ')}; aim: at least 80% (at most 1.25× the time) |`,
      `| ${run.engine}: new days of the bistro (2 periods, ${PACED_COVERS} covers per grid time, ${COMBINATIONS} combinations), interleaved rounds (medians) | ${fmt(run.richDay.rich.rps)} | ${run.richDay.rich.p50} | | | | ${pct(run.richDay.rich.rps, run.richDay.plain.rps)} of the same restaurant without them (${fmt(run.richDay.plain.rps)} req/s, p50 ${run.richDay.plain.p50} ms); rounds ${run.richDay.rounds.join(', ')}; aim: at least 80% |`,
      partnerLine(run.engine, run.partners),
      `| ${run.engine}: a month of availability, every question new, one client | ${fmt(run.monthNew.rps)} | ${run.monthNew.p50} | ${run.monthNew.p99} | ${run.monthNew.ok} | ${run.monthNew.failed} | aim: p50 under 30 ms |`,
      `| ${run.engine}: a month of availability, asked before, one client | ${fmt(run.monthAgain.rps)} | ${run.monthAgain.p50} | ${run.monthAgain.p99} | ${run.monthAgain.ok} | ${run.monthAgain.failed} | |`,
      `| ${run.engine}: bookings over HTTP, ${BOOKING_CLIENTS} clients | ${fmt(run.bookings20.rps)} | ${run.bookings20.p50} | ${run.bookings20.p99} | ${run.bookings20.ok} | ${run.bookings20.failed} | ${run.bareInserts ? `${pct(run.bookings20.rps, run.bareInserts.rps)} of bare INSERTs` : ''} |`,
      `| ${run.engine}: bookings over HTTP, one client | ${fmt(run.bookingsOne.rps)} | ${run.bookingsOne.p50} | ${run.bookingsOne.p99} | ${run.bookingsOne.ok} | ${run.bookingsOne.failed} | aim: p50 under 3 ms, p99 under 10 ms |`,
      `| ${run.engine}: staff reschedules over HTTP (PATCH), one client | ${fmt(run.reschedules.rps)} | ${run.reschedules.p50} | ${run.reschedules.p99} | ${run.reschedules.ok} | ${run.reschedules.failed} | |`,
    );
    if (run.bareInserts) {
      const i = run.bareInserts;
      lines.push(
        `| ${run.engine}: bare INSERTs with an exclusion constraint, ${BOOKING_CLIENTS} clients, direct | ${fmt(i.rps)} | ${fmt(i.p50, 1)} | ${fmt(i.p99, 1)} | ${i.ok} | ${i.failed} | yardstick for bookings at ${BOOKING_CLIENTS} clients |`,
      );
    }
  }
  lines.push(
    '',
    `Engine alone: one day of 200 resources and 2,000 busy periods in ${fmt(engine.msPerDay, 3)} ms (mean of ${engine.iterations} runs).`,
    `Engine alone, 50 of those resources for a party of 2: a class of 12 (a third of the bookings its seats) in ${fmt(serviceEngine.seatsMs, 3)} ms and a service needing one of 25 stylists and one of 25 chairs in ${fmt(serviceEngine.requirementsMs, 3)} ms, against ${fmt(serviceEngine.plainMs, 3)} ms for plain bookings: ${(serviceEngine.seatsMs / serviceEngine.plainMs).toFixed(2)}× and ${(serviceEngine.requirementsMs / serviceEngine.plainMs).toFixed(2)}× its time (interleaved rounds, medians; rounds ${serviceEngine.rounds.join(', ')}; aim: at most 1.25×).`,
    `Engine alone, 50 of those tables for a party of 6: the bistro's day (2 periods, pacing, 10 combinations) in ${fmt(richEngine.richMs, 3)} ms against ${fmt(richEngine.plainMs, 3)} ms for the plain day: ${pct(richEngine.plainMs, richEngine.richMs)} of its speed (interleaved rounds, medians; rounds ${richEngine.rounds.join(', ')}; aim: at least 80%).`,
  );
  lines.push(...platform);
  process.stdout.write(`${lines.join('\n')}\n`);
}

// Imported by bench/profile.ts for its loads; run as `npm run bench`.
if (import.meta.main) await main();
