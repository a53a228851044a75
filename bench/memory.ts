import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generateApiKey } from '../src/platform/auth.ts';
import { type Database, type Db, openPGlite, openPostgres } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { dayFromToday } from './seed.ts';

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

const JWT_SECRET = 'memory-bench-secret-memory-bench-secret-0123';

/** The server's resident set in MB, from /proc (Linux), as the operating system counts it. */
function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

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

/** A PGlite folder, or a fresh database on the PostgreSQL server BENCH_DATABASE_URL names; the server's env for it. */
async function openDatabase(): Promise<{
  database: Database;
  serverEnv: Record<string, string>;
  drop: () => Promise<void>;
}> {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'slotwise-memory-'));
    return {
      database: await openPGlite(dir),
      serverEnv: { DATA_DIR: dir },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `slotwise_memory_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    database: await openPostgres(url.toString()),
    serverEnv: { DATABASE_URL: url.toString() },
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function main(): Promise<void> {
  const { database, serverEnv, drop } = await openDatabase();
  await migrate(database);
  const seeded = [];
  for (let i = 0; i < BUSINESSES; i++) seeded.push(await seedBusiness(database.db, i));
  // The server takes the data over: PGlite's folder belongs to one process at a time.
  await database.close();
  const port = await freePort();
  const server = spawn(process.execPath, ['src/main.ts', 'serve'], {
    env: {
      ...process.env,
      ...serverEnv,
      JWT_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; ; tries++) {
      if (server.exitCode !== null || tries > 600) throw new Error('the server did not start');
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await flood(base, server.pid!, questions(seeded));
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    await drop();
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
