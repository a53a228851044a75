import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrate } from '../src/platform/migrate.ts';
import { startOwnPostgres } from '../test/outage-servers.ts';
import { scratchDatabase } from './database.ts';
import { availabilityLoad, bookingLoad, type LoadResult, load } from './loads.ts';
import { startProcess, startServer, stopProcess } from './process.ts';
import { seedBusiness } from './seed.ts';

/**
 * `npm run bench:profile`: where the time of a booking and of an asked-before day goes. Starts a
 * PostgreSQL of its own with `pg_stat_statements` tracking the statements inside functions too,
 * seeds the benchmark's restaurant, and runs the real server under `--cpu-prof` for each scenario:
 * bookings from one client, bookings from 20, availability asked before from 50, and the bare
 * route of `npm run bench` (its own process) for comparison. For each it
 * prints the server's CPU time per request by where it was spent (the project's modules, each
 * package, Node's internals, garbage collection) and, for bookings, the database's time per
 * statement. BENCH_SECONDS (default 10) sets each scenario's length; BENCH_SCENARIOS, a word or
 * comma-separated words (`bookings`, `availability`, `bare`), runs only the scenarios whose title
 * holds one of them.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds of the monotonic clock, which `process.hrtime` reads too. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the monotonic clock of the profiles' sample times, in microseconds. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** The CPU time (ms) a process has used so far, as the kernel's scheduler counts it (Linux). */
function cpuMsOf(pid: number | undefined): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Where a function's code lives, as the table groups it. */
function placeOf(url: string, functionName: string): string {
  if (functionName === '(idle)' || functionName === '(garbage collector)' || functionName === '(program)')
    return functionName;
  const project = url.match(/\/(src|bench)\/(.+?)(\.ts|\.js)?$/);
  if (project && !url.includes('node_modules')) return `${project[1]}/${project[2]}`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  return url ? url : `(native) ${functionName || '(anonymous)'}`;
}

/** The parts of the work a place belongs to, the request's hooks each on its own, for each profile's summary. */
const PARTS: [string, RegExp][] = [
  ['socket writes', /^\(native\) (writev|writeUtf8String)$/],
  [
    'credential (key hash, verified-key cache)',
    /^(src\/platform\/(auth|access)|node:internal\/crypto\/.*|lru-cache)$/,
  ],
  ['rate limits', /^(src\/platform\/rate-limit|@fastify\/rate-limit)$/],
  ['metrics', /^(src\/platform\/metrics|prom-client|fastify-metrics)$/],
  ['idempotency', /^src\/platform\/idempotency$/],
  ['text guard', /^src\/platform\/text-guard$/],
  ['change feed', /^src\/platform\/change-feed$/],
  ['request validation', /^(ajv|ajv-formats|src\/platform\/(validation|schemas))$/],
  ['reply serialisation', /^fast-json-stringify$/],
  ['availability engine and caches', /^src\/availability\/.*$/],
  ['bookings', /^src\/bookings\/.*$/],
  [
    'database driver and query builder',
    /^(pg|pg-protocol|pg-pool|pg-types|kysely|@electric-sql\/pglite|wasm:.*)$/,
  ],
  ['Fastify and its router', /^(fastify|find-my-way|avvio|secure-json-parse|@fastify\/.*)$/],
  ["the project's other code", /^src\/.*$/],
  ["Node's HTTP, streams, events", /^node:.*$/],
  ['garbage collection and V8', /^\((garbage collector|program)\)$/],
];
const partOf = (place: string) => PARTS.find(([, pattern]) => pattern.test(place))?.[0] ?? 'other';

/** Self time (ms) by place and by function, from a `.cpuprofile`, of the samples taken from `from` on. */
function selfTimes(profile: CpuProfile, from: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from) continue;
    const node = byId.get(profile.samples[i]!)!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const { url, functionName } = node.callFrame;
    const place = placeOf(url, functionName);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${place}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    total += ms;
  }
  return { byPlace, byFunction, total };
}

const fmt = (n: number, digits = 3) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function partsLine(byPlace: Map<string, number>, busy: number, requests: number): string {
  const parts = new Map<string, number>();
  for (const [place, ms] of byPlace) {
    if (place === '(idle)') continue;
    const part = partOf(place);
    parts.set(part, (parts.get(part) ?? 0) + ms);
  }
  return [...parts]
    .sort((a, b) => b[1] - a[1])
    .map(([part, ms]) => `${part} ${fmt(ms / requests)} ms (${fmt((100 * ms) / busy, 0)}%)`)
    .join('; ');
}

/**
 * The profile of the measured half (the samples from `from` on: start-up, module loading and the
 * warm-up left out), per request of that half; `cpuMs` is the server's CPU time over the same
 * half as the kernel counts it, which the profile's busy time should come close to.
 */
function printProfile(title: string, dir: string, result: LoadResult, from: number, cpuMs: number | null) {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile was written in ${dir}`);
  const requests = result.ok + result.failed;
  const { byPlace, byFunction, total } = selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')), from);
  const busy = total - (byPlace.get('(idle)') ?? 0);
  const kernel = cpuMs === null ? '' : `, ${fmt(cpuMs / requests)} ms by the kernel's count`;
  const lines = [
    `### ${title}`,
    '',
    `${fmt(result.rps, 0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${requests} requests measured; server CPU ${fmt(busy / requests)} ms per request in the profile${kernel} (${fmt((100 * busy) / total, 0)}% of the profile's wall time busy)`,
    '',
    `By part: ${partsLine(byPlace, busy, requests)}`,
    '',
    '| where | CPU ms per request | share of busy time |',
    '|---|---:|---:|',
  ];
  const rows = [...byPlace].filter(([place]) => place !== '(idle)').sort((a, b) => b[1] - a[1]);
  for (const [place, ms] of rows.slice(0, 20)) {
    lines.push(`| ${place} | ${fmt(ms / requests)} | ${fmt((100 * ms) / busy, 1)}% |`);
  }
  lines.push('', '| function (self time) | CPU ms per request | share |', '|---|---:|---:|');
  const functions = [...byFunction]
    .filter(([name]) => !name.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1]);
  for (const [name, ms] of functions.slice(0, 25)) {
    lines.push(`| ${name.replaceAll('|', '\\|')} | ${fmt(ms / requests)} | ${fmt((100 * ms) / busy, 1)}% |`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

async function printStatements(
  query: (text: string) => Promise<{ rows: Record<string, unknown>[] }>,
  bookings: number,
) {
  const { rows } = await query(`
    SELECT toplevel, calls, plans, total_plan_time, total_exec_time, mean_exec_time,
      regexp_replace(query, '\\s+', ' ', 'g') AS query
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`);
  const lines = [
    `### The database's time per booking (pg_stat_statements, ${bookings} bookings)`,
    '',
    '| statement | top level | calls per booking | mean ms | ms per booking | plans per call | planning ms per booking |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const text = String(row.query).slice(0, 110).replaceAll('|', '\\|');
    lines.push(
      `| \`${text}\` | ${row.toplevel ? 'yes' : 'inside'} | ${fmt(Number(row.calls) / bookings, 2)} | ${fmt(Number(row.mean_exec_time))} | ${fmt(Number(row.total_exec_time) / bookings)} | ${fmt(Number(row.plans) / Math.max(1, Number(row.calls)), 2)} | ${fmt(Number(row.total_plan_time) / bookings)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/**
 * Samples, every 10 milliseconds until `stop` resolves, what the database's other active sessions
 * wait for (`pg_stat_activity`, a lock's kind from `pg_locks`), so that waits inside a statement show
 * apart from its work: the count of each wait per sample taken.
 */
async function sampleWaits(
  query: (text: string) => Promise<{ rows: Record<string, unknown>[] }>,
  stop: Promise<unknown>,
): Promise<{ samples: number; waits: Map<string, number> }> {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  const waits = new Map<string, number>();
  let samples = 0;
  while (!done) {
    const { rows } = await query(`
      SELECT coalesce(a.wait_event_type || ': ' || a.wait_event, 'on CPU or ready') || coalesce(' (' || (
          SELECT string_agg(DISTINCT l.locktype, ', ') FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted
        ) || ')', '') || ' in ' || coalesce(substring(a.query from 'slotwise_[a-z_]+'), left(a.query, 30)) AS wait
      FROM pg_stat_activity a
      WHERE a.datname = current_database() AND a.state = 'active' AND a.pid <> pg_backend_pid()`);
    samples++;
    for (const row of rows) waits.set(String(row.wait), (waits.get(String(row.wait)) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { samples, waits };
}

function printWaits({ samples, waits }: { samples: number; waits: Map<string, number> }) {
  const lines = [
    `### What the database's active sessions were doing (${samples} samples of pg_stat_activity)`,
    '',
    '| state or wait (lock kind) in statement | sessions per sample |',
    '|---|---:|',
  ];
  for (const [wait, count] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    lines.push(`| ${wait.replaceAll('|', '\\|')} | ${fmt(count / Math.max(1, samples), 2)} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

async function main() {
  const own = await startOwnPostgres([
    'shared_preload_libraries=pg_stat_statements',
    'pg_stat_statements.track=all',
    // Planning counted apart: a statement of a PL/pgSQL function planned anew on every call shows here.
    'pg_stat_statements.track_planning=on',
    'track_functions=all',
  ]);
  const scratch = await scratchDatabase(own.url, 'profile');
  const profiles = mkdtempSync(join(tmpdir(), 'slotwise-profile-'));
  try {
    const database = await scratch.open();
    await migrate(database);
    process.stderr.write('seeding...\n');
    const seeded = await seedBusiness(database.db);
    await sql`VACUUM ANALYZE`.execute(database.db);
    await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`.execute(database.db);
    const query = (text: string) => sql.raw<Record<string, unknown>>(text).execute(database.db);

    // Each booking run takes 30 days of its own (bookingLoad), so none runs out of free tables.
    let firstDay = 61;
    const bookings = (url: string, clients: number) => {
      firstDay += 30;
      return bookingLoad(url, seeded, clients, firstDay - 30);
    };
    const scenarios: {
      title: string;
      run: (url: string) => Promise<LoadResult>;
      statements: boolean;
      bare?: boolean;
    }[] = [
      {
        title: 'Bookings over HTTP, one client',
        run: (url) => bookings(url, 1),
        statements: true,
      },
      {
        title: 'Bookings over HTTP, 20 clients',
        run: (url) => bookings(url, 20),
        statements: true,
      },
      {
        title: 'Availability asked before, 50 connections',
        run: (url) => availabilityLoad(url, seeded),
        statements: false,
      },
      {
        title: 'The bare route (the yardstick of availability), 50 connections',
        run: (url) => load({ url: `${url}/bare` }),
        statements: false,
        bare: true,
      },
    ];
    const only = process.env.BENCH_SCENARIOS?.toLowerCase().split(',').filter(Boolean);
    const chosen = only
      ? scenarios.filter(({ title }) => only.some((word) => title.toLowerCase().includes(word)))
      : scenarios;
    for (const [i, scenario] of chosen.entries()) {
      const dir = join(profiles, String(i));
      process.stderr.write(`${scenario.title}...\n`);
      const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
      const { child, url } = scenario.bare
        ? await startProcess('bench/bare-server.ts', {}, { readyPath: '/bare', nodeArgs })
        : await startServer(scratch.serverEnv, nodeArgs);
      let result: LoadResult;
      let from: number;
      let cpuMs: number | null;
      let waits: Awaited<ReturnType<typeof sampleWaits>> | null = null;
      try {
        // The first half warms the caches and the JIT; the second is measured.
        await scenario.run(url);
        await query('SELECT pg_stat_statements_reset()');
        from = monotonicMicros();
        const cpuBefore = cpuMsOf(child.pid);
        const running = scenario.run(url);
        const sampling = scenario.statements ? sampleWaits(query, running) : null;
        result = await running;
        const cpuAfter = cpuMsOf(child.pid);
        waits = await sampling;
        cpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
      } finally {
        await stopProcess(child);
      }
      printProfile(scenario.title, dir, result, from, cpuMs);
      if (scenario.statements) await printStatements(query, result.ok);
      if (waits) printWaits(waits);
    }
    await database.close();
  } finally {
    await scratch.drop().catch(() => {});
    await own.close();
    rmSync(profiles, { recursive: true, force: true });
  }
}

await main();
