import { readFileSync } from 'node:fs';
import { migrate } from '../src/platform/migrate.ts';
import { scratchDatabase } from './database.ts';
import { startServer, stopProcess } from './process.ts';
import { dayFromToday, SEED, type SeededBusiness, seedBusiness } from './seed.ts';

/**
 * `npx node bench/memory.ts`: how much the server's memory grows under a flood of availability
 * questions that are all different, the load that fills per-process caches. Seeds 20 businesses
 * from this process into a PGlite folder, starts the real server on it (`node src/main.ts`, on
 * 127.0.0.1), asks distinct questions (dates x party sizes x views x services x businesses) from
 * 16 concurrent clients for BENCH_SECONDS (default 60), and prints the growth of the server's
 * resident set, read from outside as the operating system counts it. Stops by itself. With
 * BENCH_DATABASE_URL (a PostgreSQL server) the data goes to a database of its own there instead,
 * dropped at the end.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BUSINESSES = 20;
const RESOURCES = 30;
const SERVICES = 3;
const DAYS = 60;
const PARTY_SIZES = 8;
const CONCURRENCY = 16;

/** The server's resident set in MB, from /proc (Linux), as the operating system counts it. */
function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Every question once, shuffled so that businesses and days mix as they would in real traffic. */
function questions(seeded: SeededBusiness[]): { url: string; key: string }[] {
  const all: { url: string; key: string }[] = [];
  for (const { businessId, apiKey: key, serviceIds } of seeded) {
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
  const scratch = await scratchDatabase(process.env.BENCH_DATABASE_URL, 'memory');
  try {
    const database = await scratch.open();
    await migrate(database);
    const seeded = [];
    for (let i = 0; i < BUSINESSES; i++) {
      seeded.push(
        await seedBusiness(database.db, {
          ...SEED,
          label: `memory-${i}`,
          open: '10:00',
          resources: RESOURCES,
          capacities: [PARTY_SIZES],
          sections: [null],
          services: SERVICES,
          customers: 0,
          bookedDays: 0,
          durationMinutes: 60,
          bookingWindowDays: DAYS + 5,
          maxCapacity: PARTY_SIZES,
          scopes: ['read'],
        }),
      );
    }
    // The server takes the data over: PGlite's folder belongs to one process at a time.
    await database.close();
    const server = await startServer(scratch.serverEnv);
    try {
      await flood(server.url, server.child.pid!, questions(seeded));
    } finally {
      await stopProcess(server.child);
    }
  } finally {
    await scratch.drop();
  }
}

async function flood(base: string, pid: number, asked: { url: string; key: string }[]): Promise<void> {
  const ask = async (question: { url: string; key: string }) => {
    const response = await fetch(`${base}${question.url}`, {
      headers: { authorization: `Bearer ${question.key}` },
    });
    await response.arrayBuffer();
    return response.status;
  };
  // Warm up the server (code, connections, keys) before the baseline.
  const WARM_UP = 200;
  for (const question of asked.slice(0, WARM_UP)) await ask(question);
  const baseline = rssMbOf(pid);
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  let next = WARM_UP;
  let ok = 0;
  let failed = 0;
  let peak = baseline;
  const sample = setInterval(() => {
    peak = Math.max(peak, rssMbOf(pid));
  }, 1000);
  const progress = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `${seconds}s: ${ok + failed} questions, server RSS +${Math.round(rssMbOf(pid) - baseline)} MB`,
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
  clearInterval(sample);
  clearInterval(progress);
  const elapsed = (Date.now() - started) / 1000;
  const end = rssMbOf(pid);
  peak = Math.max(peak, end);
  console.log(
    [
      `${ok + failed} distinct questions in ${elapsed.toFixed(0)} s (${Math.round((ok + failed) / elapsed)}/s), ${failed} not 200`,
      `of ${asked.length} possible (${BUSINESSES} businesses x ${DAYS} days x ${PARTY_SIZES} party sizes x 2 views x ${SERVICES + 1} service choices)`,
      `server RSS after warm-up ${Math.round(baseline)} MB, peak +${Math.round(peak - baseline)} MB, at the end +${Math.round(end - baseline)} MB`,
    ].join('\n'),
  );
}

await main();
