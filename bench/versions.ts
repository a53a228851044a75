import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onServer, scratchDatabase } from './database.ts';
import { bareInsertLoad, type LoadResult } from './loads.ts';
import { median } from './median.ts';

/**
 * `npm run bench:versions -- <revision>`: bookings of this checkout against those of another
 * revision (a commit, a tag, `main~3`), on PostgreSQL, in interleaved rounds with the bare-INSERT
 * yardstick measured in each round. The revision is checked out into a temporary worktree that
 * shares this checkout's `node_modules`; each version seeds the benchmark's restaurant with its
 * own migrations and seed once, and every round starts each version's server on a fresh copy of
 * that database (`CREATE DATABASE ... TEMPLATE`), so no round books into days an earlier one
 * filled. A round measures bookings from 20 clients (with the server's CPU per booking, from
 * `/proc`), bookings from one client and staff reschedules from one, each `BENCH_SECONDS` long
 * (default 10), like the bare INSERTs; `VERSIONS_ROUNDS` rounds (default 4), the versions' order
 * alternating. Both servers run with `DB_CONCURRENCY_PER_BUSINESS=0` (the same for a revision
 * that has no such share) unless `VERSIONS_SERVER_ENV` (JSON) says otherwise.
 */

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const HERE = fileURLToPath(new URL('..', import.meta.url));
const SERVER_ENV: Record<string, string> = {
  DB_CONCURRENCY_PER_BUSINESS: '0',
  ...(JSON.parse(process.env.VERSIONS_SERVER_ENV ?? '{}') as Record<string, string>),
};

interface RoundResult {
  bookings20: LoadResult;
  cpuMsPerBooking: number;
  bookingsOne: LoadResult;
  reschedules: LoadResult;
}

/** The CPU time (ms) a process has used, user and system, from `/proc` (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** In a child process, within `checkout`: its migrations and seed into a new database. */
async function seedChild(checkout: string, label: string): Promise<void> {
  const { scratchDatabase: scratchOf } = await import(join(checkout, 'bench/database.ts'));
  const { migrate } = await import(join(checkout, 'src/platform/migrate.ts'));
  const { seedBusiness } = await import(join(checkout, 'bench/seed.ts'));
  const { sql } = await import('kysely');
  const scratch = await scratchOf(SERVER_URL, `versions_${label}`);
  const database = await scratch.open();
  await migrate(database);
  const seeded = await seedBusiness(database.db);
  await sql`VACUUM ANALYZE`.execute(database.db);
  await database.close();
  process.stdout.write(
    `${JSON.stringify({ name: new URL(scratch.serverEnv.DATABASE_URL).pathname.slice(1), seeded })}\n`,
  );
}

/** In a child process, within `checkout`: its server on the database `databaseUrl`, and one round's loads. */
async function roundChild(checkout: string, databaseUrl: string, seededJson: string): Promise<void> {
  const { startServer, stopProcess } = await import(join(checkout, 'bench/process.ts'));
  // Revisions before bench/loads.ts kept their loads in bench/run.ts.
  const loads = existsSync(join(checkout, 'bench/loads.ts')) ? 'bench/loads.ts' : 'bench/run.ts';
  const { bookingLoad, rescheduleLoad } = await import(join(checkout, loads));
  const seeded = JSON.parse(seededJson);
  const { child, url } = await startServer({ DATABASE_URL: databaseUrl, ...SERVER_ENV });
  try {
    // Warm-up, on days the round does not measure.
    await bookingLoad(url, seeded, 20, 241, 1);
    const before = cpuMs(child.pid!);
    const bookings20: LoadResult = await bookingLoad(url, seeded, 20, 61);
    const cpuMsPerBooking = (cpuMs(child.pid!) - before) / Math.max(1, bookings20.ok);
    const bookingsOne: LoadResult = await bookingLoad(url, seeded, 1, 121);
    const reschedules: LoadResult = await rescheduleLoad(url, seeded, 61, 181);
    const result: RoundResult = { bookings20, cpuMsPerBooking, bookingsOne, reschedules };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await stopProcess(child);
  }
}

/** Runs this file as a child in `cwd`; answers the last line it printed. */
function child(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const running = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    running.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    running.on('exit', (code) =>
      code === 0
        ? resolve(out.trim().split('\n').at(-1)!)
        : reject(new Error(`${args[0]} in ${cwd} exited with ${code}`)),
    );
  });
}

async function main(revision: string): Promise<void> {
  const rounds = Number(process.env.VERSIONS_ROUNDS ?? 4);
  const worktree = await mkdtemp(join(tmpdir(), 'slotwise-versions-'));
  execFileSync('git', ['worktree', 'add', '--detach', worktree, revision], { cwd: HERE, stdio: 'ignore' });
  symlinkSync(join(HERE, 'node_modules'), join(worktree, 'node_modules'));
  const commit = (cwd: string) =>
    execFileSync('git', ['log', '-1', '--format=%h %s'], { cwd }).toString().trim().slice(0, 90);
  /** Each version, its seeded database (the rounds' template) and its figures of every round. */
  const versionOf = (label: string, checkout: string, title: string) => ({
    label,
    checkout,
    title,
    seed: undefined as { name: string; seeded: unknown } | undefined,
    kept: { ratio: [] as number[], cpu: [] as number[], one: [] as number[], reschedule: [] as number[] },
  });
  const current = versionOf('this', HERE, `this checkout: ${commit(HERE)}`);
  const versions = [versionOf('other', worktree, `${revision}: ${commit(worktree)}`), current];
  try {
    for (const version of versions) {
      process.stderr.write(`[versions] seeding ${version.title}\n`);
      version.seed = JSON.parse(await child(version.checkout, ['seed', version.checkout, version.label]));
    }
    const lines = [
      '| round | version | bare INSERTs/s | bookings/s at 20 | of bare | server CPU per booking | one booking p50 | reschedule p50 |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (let round = 1; round <= rounds; round++) {
      // On a copy of this checkout's database, whose migrations made the exclusion constraint's
      // operator classes (btree_gist), as `npm run bench` measures it.
      const bareDb = await scratchDatabase(SERVER_URL, 'versions_bare', current.seed!.name);
      let bare: LoadResult;
      try {
        const opened = await bareDb.open();
        bare = await bareInsertLoad(opened.db);
        await opened.close();
      } finally {
        await bareDb.drop();
      }
      for (const version of round % 2 ? versions : versions.toReversed()) {
        process.stderr.write(`[versions] round ${round}: ${version.label}\n`);
        const { name, seeded } = version.seed!;
        const copy = await scratchDatabase(SERVER_URL, 'versions_round', name);
        let result: RoundResult;
        try {
          result = JSON.parse(
            await child(version.checkout, [
              'round',
              version.checkout,
              copy.serverEnv.DATABASE_URL!,
              JSON.stringify(seeded),
            ]),
          );
        } finally {
          await copy.drop();
        }
        const ratio = (100 * result.bookings20.rps) / bare.rps;
        version.kept.ratio.push(ratio);
        version.kept.cpu.push(result.cpuMsPerBooking);
        version.kept.one.push(result.bookingsOne.p50);
        version.kept.reschedule.push(result.reschedules.p50);
        const failed = result.bookings20.failed + result.bookingsOne.failed + result.reschedules.failed;
        lines.push(
          `| ${round} | ${version.label} | ${Math.round(bare.rps)} | ${Math.round(result.bookings20.rps)} | ${ratio.toFixed(1)}% | ${result.cpuMsPerBooking.toFixed(2)} ms | ${result.bookingsOne.p50} ms | ${result.reschedules.p50} ms${failed ? ` (${failed} failed)` : ''} |`,
        );
      }
    }
    const summary = versions.map(
      ({ title, kept }) =>
        `| ${title} | ${median(kept.ratio).toFixed(1)}% | ${median(kept.cpu).toFixed(2)} ms | ${median(kept.one)} ms | ${median(kept.reschedule)} ms |`,
    );
    process.stdout.write(
      [
        ...lines,
        '',
        '| medians | bookings at 20, of bare | server CPU per booking | one booking p50 | reschedule p50 |',
        '|---|---:|---:|---:|---:|',
        ...summary,
        '',
      ].join('\n'),
    );
  } finally {
    for (const { seed } of versions) {
      if (seed) await onServer(SERVER_URL, `DROP DATABASE IF EXISTS ${seed.name} WITH (FORCE)`);
    }
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: HERE, stdio: 'ignore' });
    rmSync(worktree, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'seed') await seedChild(args[0]!, args[1]!);
  else if (command === 'round') await roundChild(args[0]!, args[1]!, args[2]!);
  else if (command) await main(command);
  else {
    process.stderr.write('usage: npm run bench:versions -- <revision to compare this checkout with>\n');
    process.exit(2);
  }
  process.exit(0);
}
