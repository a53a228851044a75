import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { openPostgres } from '../src/platform/db.ts';
import { migrate } from '../src/platform/migrate.ts';
import { startOwnPgBouncer, startOwnPostgres } from '../test/outage-servers.ts';
import { type StartedProcess, startServer, stopProcess } from './process.ts';
import { availabilityLoad, bookingLoad, type LoadResult } from './run.ts';
import { seedBusiness } from './seed.ts';

/**
 * `node bench/pooler.ts`: one server process straight to PostgreSQL against two server processes
 * through PgBouncer in transaction pooling (DATABASE_LISTEN_URL straight to PostgreSQL), on the
 * bench restaurant in a PostgreSQL of its own. In turns (A B B A ...), so the machine's noise hits
 * both alike: bookings at 20 clients, then availability of days asked before at 50; medians of
 * the rounds, and the CPU time the server processes and PgBouncer spent per request (from
 * /proc/<pid>/stat). BENCH_SECONDS (default 10) sets each load's length, BENCH_ROUNDS (default 3)
 * the rounds of each setup.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BOOKING_CLIENTS = 20;
const AVAILABILITY_CLIENTS = 50;
/** PgBouncer's server connections: as many as the one direct process's pool holds. */
const POOL_SIZE = 10;
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface Setup {
  name: string;
  servers: StartedProcess[];
  /** Processes whose CPU counts besides the servers' (PgBouncer). */
  others: number[];
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** CPU milliseconds per answered request: the servers, and the others (PgBouncer). */
  serverMs: number;
  otherMs: number;
}

/** Runs `run` against each server at once, their clients split evenly, and adds the results up. */
async function spread(
  setup: Setup,
  run: (url: string, index: number) => Promise<LoadResult>,
): Promise<Measured> {
  const pids = setup.servers.map((server) => server.child.pid!);
  const before = pids.map(cpuSeconds);
  const othersBefore = setup.others.map(cpuSeconds);
  const results = await Promise.all(setup.servers.map((server, i) => run(server.url, i)));
  const server = pids.map(cpuSeconds).reduce((sum, value, i) => sum + value - before[i]!, 0);
  const other = setup.others.map(cpuSeconds).reduce((sum, value, i) => sum + value - othersBefore[i]!, 0);
  const ok = results.reduce((sum, result) => sum + result.ok, 0);
  return {
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    p50: Math.max(...results.map((result) => result.p50)),
    p99: Math.max(...results.map((result) => result.p99)),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
    serverMs: (1000 * server) / ok,
    otherMs: (1000 * other) / ok,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(name: string, runs: Measured[]): string {
  const pick = (key: keyof Measured) => median(runs.map((run) => run[key]));
  return `${name}: ${Math.round(pick('rps'))} req/s (rounds ${runs.map((run) => Math.round(run.rps)).join(', ')}), p50 ${pick('p50')} ms, p99 ${pick('p99')} ms, ${runs.reduce((sum, run) => sum + run.failed, 0)} failed, server CPU ${pick('serverMs').toFixed(2)} ms/req, PgBouncer CPU ${pick('otherMs').toFixed(3)} ms/req`;
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
    bouncer = await startOwnPgBouncer(direct, POOL_SIZE);
    setups.push({
      name: 'one process, direct',
      servers: [await startServer({ DATABASE_URL: direct })],
      others: [],
    });
    const pooled = { DATABASE_URL: bouncer.url, DATABASE_LISTEN_URL: direct };
    setups.push({
      name: 'two processes, PgBouncer',
      servers: [await startServer(pooled), await startServer(pooled)],
      others: [bouncer.pid],
    });
    // Every process asks each day once before the rounds: the rounds measure days asked before.
    for (const setup of setups) await spread(setup, (url) => availabilityLoad(url, seeded, 3, 10));
    const bookings = new Map<Setup, Measured[]>(setups.map((setup) => [setup, []]));
    const availability = new Map<Setup, Measured[]>(setups.map((setup) => [setup, []]));
    // Each load books 30 days of its own (from day 61 on), split between the setup's processes.
    let firstDay = 61;
    const order = Array.from({ length: ROUNDS * 2 }, (_, i) => setups[[0, 1, 1, 0][i % 4]!]!);
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
