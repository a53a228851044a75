import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { generateApiKey } from '../src/platform/auth.ts';
import { type Db, openPGlite } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { dayFromToday } from './seed.ts';

/**
 * `npx node bench/memory.ts`: how much the server's memory grows under a flood of availability
 * questions that are all different, the load that fills per-process caches. Seeds 20 businesses on
 * in-memory PGlite, serves the app on 127.0.0.1 from this process, asks distinct questions (dates
 * x party sizes x views x services x businesses) from 16 concurrent clients for BENCH_SECONDS
 * (default 60), and prints the growth of the resident set. Stops by itself.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BUSINESSES = 20;
const RESOURCES = 30;
const SERVICES = 3;
const DAYS = 60;
const PARTY_SIZES = 8;
const CONCURRENCY = 16;
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const rssMb = () => process.memoryUsage().rss / MB;
/** The JavaScript heap alone, where the caches live (PGlite's memory is a WebAssembly buffer outside it). */
const heapMb = () => process.memoryUsage().heapUsed / MB;

async function seedBusiness(db: Db, index: number) {
  const developer = await db
    .insertInto('developers')
    .values({
      email: `memory-${index}@slotwise.dev`,
      password_hash: 'x',
      first_name: 'Mem',
      last_name: 'Ory',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const business = await db
    .insertInto('businesses')
    .values({
      developer_id: developer.id,
      name: `Memory ${index}`,
      slug: `memory-${index}`,
      timezone: 'Europe/Berlin',
      booking_window_days: DAYS + 5,
      max_capacity: PARTY_SIZES,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const key = generateApiKey('live');
  await db
    .insertInto('api_keys')
    .values({
      business_id: business.id,
      name: 'memory',
      prefix: key.prefix,
      lookup: key.lookup,
      key_hash: key.keyHash,
      scopes: ['read'],
      environment: 'live',
      rate_limit_per_minute: 1_000_000,
    })
    .execute();
  await db
    .insertInto('operating_hours')
    .values(
      [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        business_id: business.id,
        day_of_week: day,
        is_open: true,
        open_time: '10:00',
        close_time: '23:00',
        last_booking_time: null,
      })),
    )
    .execute();
  await db
    .insertInto('resources')
    .values(
      Array.from({ length: RESOURCES }, (_, i) => ({
        business_id: business.id,
        name: `Table ${i + 1}`,
        capacity_min: 1,
        capacity_max: PARTY_SIZES,
        display_order: i + 1,
      })),
    )
    .execute();
  const services = await db
    .insertInto('services')
    .values(
      Array.from({ length: SERVICES }, (_, i) => ({
        business_id: business.id,
        name: `Menu ${i + 1}`,
        duration_minutes: 60 + 30 * i,
      })),
    )
    .returning('id')
    .execute();
  return { businessId: business.id, key: key.key, serviceIds: services.map((s) => s.id) };
}

/** Every question once, shuffled so that businesses and days mix as they would in real traffic. */
function questions(seeded: Awaited<ReturnType<typeof seedBusiness>>[]): { url: string; key: string }[] {
  const all: { url: string; key: string }[] = [];
  for (const { businessId, key, serviceIds } of seeded) {
    for (let day = 1; day <= DAYS; day++) {
      for (let party = 1; party <= PARTY_SIZES; party++) {
        for (const view of ['slots', 'resources']) {
          for (const service of [undefined, ...serviceIds]) {
            const serviceQuery = service ? `&service_id=${service}` : '';
            all.push({
              url: `/v1/availability/${businessId}?date=${dayFromToday(day)}&capacity=${party}&view=${view}${serviceQuery}`,
              key,
            });
          }
        }
      }
    }
  }
  for (let i = all.length - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all;
}

async function main(): Promise<void> {
  const database = await openPGlite();
  await migrate(database);
  const seeded = [];
  for (let i = 0; i < BUSINESSES; i++) seeded.push(await seedBusiness(database.db, i));
  const config = loadConfig({
    JWT_SECRET: 'memory-bench-secret-memory-bench-secret-0123',
    DATABASE_URL: 'postgres://unused',
    LOG_LEVEL: 'warn',
  });
  const app = await buildApp({ config, database });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const asked = questions(seeded);

  const ask = async (question: { url: string; key: string }) => {
    const response = await fetch(`${base}${question.url}`, {
      headers: { authorization: `Bearer ${question.key}` },
    });
    await response.arrayBuffer();
    return response.status;
  };
  // Warm up the process (code, connections, keys) before the baseline.
  for (const question of asked.slice(0, 200)) await ask(question);
  gc();
  const baseline = rssMb();
  const baselineHeap = heapMb();
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  let next = 200;
  let ok = 0;
  let failed = 0;
  let peak = baseline;
  const progress = setInterval(() => {
    const rss = rssMb();
    peak = Math.max(peak, rss);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `${seconds}s: ${ok + failed} questions, RSS +${Math.round(rss - baseline)} MB, heap +${Math.round(heapMb() - baselineHeap)} MB`,
    );
  }, 10_000);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline && next < asked.length) {
        const status = await ask(asked[next++]!);
        if (status === 200) ok++;
        else failed++;
      }
    }),
  );
  clearInterval(progress);
  const elapsed = (Date.now() - started) / 1000;
  peak = Math.max(peak, rssMb());
  const peakHeap = heapMb();
  gc();
  const settled = rssMb();
  const settledHeap = heapMb();
  console.log(
    [
      `${ok + failed} distinct questions in ${elapsed.toFixed(0)} s (${Math.round((ok + failed) / elapsed)}/s), ${failed} not 200`,
      `of ${asked.length} possible (${BUSINESSES} businesses x ${DAYS} days x ${PARTY_SIZES} party sizes x 2 views x ${SERVICES + 1} service choices)`,
      `RSS at start ${Math.round(baseline)} MB, peak +${Math.round(peak - baseline)} MB, after GC +${Math.round(settled - baseline)} MB`,
      `JS heap at start ${Math.round(baselineHeap)} MB, at the end +${Math.round(peakHeap - baselineHeap)} MB, after GC +${Math.round(settledHeap - baselineHeap)} MB`,
    ].join('\n'),
  );
  await app.close();
  await database.close();
}

await main();
