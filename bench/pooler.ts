import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { openPostgres } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { startOwnPgBouncer, startOwnPostgres } from '../test/outage-servers.ts';
import { availabilityLoad, bookingLoad, type LoadResult } from './loads.ts';
import { type StartedProcess, startServer, stopProcess } from './process.ts';
import { seedBusiness } from './seed.ts';

/**
 * `node bench/pooler.ts`: one server process straight to PostgreSQL, two straight to it, and two
 * through PgBouncer in transaction pooling (DATABASE_LISTEN_URL straight to PostgreSQL), on the
 * bench restaurant in a PostgreSQL of its own. In turns (A B C C B A ...), so the machine's noise hits
 * both alike: bookings at 20 clients, then availability of days asked before at 50; medians of
 * the rounds, and the CPU time the server processes, PgBouncer and PostgreSQL spent per
 * request (from /proc/<pid>/stat). BENCH_SECONDS (default 10) sets each load's length, BENCH_ROUNDS (default 3)
 * the rounds of each setup.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BOOKING_CLIENTS = 20;
const AVAILABILITY_CLIENTS = 50;
/** PgBouncer's server connections: as many as the one direct process's pool holds. */
const POOL_SIZE = 10;
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command's name: [1] is the parent, [11..14] the CPU ticks. */
const statOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = statOf(pid);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The PostgreSQL postmaster started with `-p <port>`. */
function postmasterOf(port: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (command[0]?.endsWith('/postgres') && command.join(' ').includes(`-p ${port} `))
        return Number(entry);
    } catch {}
  }
  throw new Error(`no postmaster on port ${port}`);
}

/** CPU seconds of a PostgreSQL server: the postmaster, its backends alive, and those that ended. */
function clusterCpuSeconds(postmaster: number): number {
  const own = statOf(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statOf(Number(entry));
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / TICKS_PER_SECOND;
}

interface Setup {
  name: string;
  servers: StartedProcess[];
  /** PgBouncer's process, if any. */
  bouncer?: number;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU milliseconds per answered request: the server processes, PgBouncer, PostgreSQL. */
  serverMs: number;
  bouncerMs: number;
  postgresMs: number;
}

let postmaster = 0;

/** Runs `run` against each server at once, their clients split evenly, and adds the results up. */
async function spread(
  setup: Setup,
  run: (url: string, index: number) => Promise<LoadResult>,
): Promise<Measured> {
  const pids = setup.servers.map((server) => server.child.pid!);
  const before = pids.map(cpuSeconds);
  const bouncerBefore = setup.bouncer ? cpuSeconds(setup.bouncer) : 0;
  const postgresBefore = clusterCpuSeconds(postmaster);
  const results = await Promise.all(setup.servers.map((server, i) => run(server.url, i)));
  const server = pids.map(cpuSeconds).reduce((sum, value, i) => sum + value - before[i]!, 0);
  const bouncer = setup.bouncer ? cpuSeconds(setup.bouncer) - bouncerBefore : 0;
  const postgres = clusterCpuSeconds(postmaster) - postgresBefore;
  const ok = results.reduce((sum, result) => sum + result.ok, 0);
  return {
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    p50: Math.max(...results.map((result) => result.p50)),
    p99: Math.max(...results.map((result) => result.p99)),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
    serverMs: (1000 * server) / ok,
    bouncerMs: (1000 * bouncer) / ok,
    postgresMs: (1000 * postgres) / ok,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(name: string, runs: Measured[]): string {
  const pick = (key: keyof Measured) => median(runs.map((run) => run[key]));
  return `${name}: ${Math.round(pick('rps'))} req/s (rounds ${runs.map((run) => Math.round(run.rps)).join(', ')}), p50 ${pick('p50')} ms, p99 ${pick('p99')} ms, ${runs.reduce((sum, run) => sum + run.failed, 0)} failed, CPU per request: servers ${pick('serverMs').toFixed(2)} ms, PgBouncer ${pick('bouncerMs').toFixed(2)} ms, PostgreSQL ${pick('postgresMs').toFixed(2)} ms`;
}

async function main() {
  const postgres = await startOwnPostgres();
  let bouncer: Awaited<ReturnType<typeof startOwnPgBouncer>> | undefined;
  const setups: Setup[] = [];
  try {
    await postgres.query('CREATE DATABASE slotwise_pooler');
    const direct = postgres.url.replace(/\/postgres$/, '/slotwise_pooler');
    const database = await openPostgres(direct, 10);
    await migrate(database);
    process.stderr.write('seeding...\n');
    const seeded = await seedBusiness(database.db);
    await sql`VACUUM ANALYZE`.execute(database.db);
    await database.close();
    postmaster = postmasterOf(new URL(direct).port);
    bouncer = await startOwnPgBouncer(direct, POOL_SIZE);
    setups.push({ name: 'one process, direct', servers: [await startServer({ DATABASE_URL: direct })] });
    // What a second process brings without PgBouncer: a pool of its own each (10 + 10 connections).
    setups.push({
      name: 'two processes, direct',
      servers: [await startServer({ DATABASE_URL: direct }), await startServer({ DATABASE_URL: direct })],
    });
    const pooled = { DATABASE_URL: bouncer.url, DATABASE_LISTEN_URL: direct };
    setups.push({
      name: 'two processes, PgBouncer',
      servers: [await startServer(pooled), await startServer(pooled)],
      bouncer: bouncer.pid,
    });
    // Every process asks each day once before the rounds: the rounds measure days asked before.
    for (const setup of setups) await spread(setup, (url) => availabilityLoad(url, seeded, 3, 10));
    const bookings = new Map<Setup, Measured[]>(setups.map((setup) => [setup, []]));
    const availability = new Map<Setup, Measured[]>(setups.map((setup) => [setup, []]));
    // Each load books 30 days of its own (from day 61 on), split between the setup's processes.
    let firstDay = 61;
    const order = Array.from({ length: ROUNDS }, (_, round) =>
      round % 2 ? [...setups].reverse() : setups,
    ).flat();
    for (const setup of order) {
      process.stderr.write(`${setup.name}...\n`);
      const days = firstDay;
      const share = 30 / setup.servers.length;
      bookings
        .get(setup)!
        .push(
          await spread(setup, (url, i) =>
            bookingLoad(url, seeded, BOOKING_CLIENTS / setup.servers.length, days + i * share),
          ),
        );
      firstDay += 30;
      availability
        .get(setup)!
        .push(
          await spread(setup, (url) =>
            availabilityLoad(url, seeded, SECONDS, AVAILABILITY_CLIENTS / setup.servers.length),
          ),
        );
    }
    for (const setup of setups) {
      process.stdout.write(
        `${summary(`bookings at ${BOOKING_CLIENTS} clients, ${setup.name}`, bookings.get(setup)!)}\n`,
      );
      process.stdout.write(
        `${summary(`availability asked before at ${AVAILABILITY_CLIENTS} clients, ${setup.name}`, availability.get(setup)!)}\n`,
      );
    }
  } finally {
    for (const setup of setups) for (const server of setup.servers) await stopProcess(server.child);
    await bouncer?.close();
    await postgres.close();
  }
}

await main();
