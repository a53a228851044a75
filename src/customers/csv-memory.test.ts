// test lane: system
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SERVER_HEAP_FLAGS, type StartedProcess, startProcess, stopProcess } from '../../bench/process.ts';
import { bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { createTestApp, ENGINE, TEST_PROCESS_ENV, type TestContext } from '../../test/helpers.ts';
import { openPGlite, type PGliteDatabase } from '../platform/db.ts';

const LOADED = 100_000;

/** The process's resident set in bytes, as the kernel counts it. */
const residentBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/**
 * The resident set once it stops moving: a server just started still compiles PGlite's
 * WebAssembly in the background for some seconds, which takes and then gives back hundreds of MB.
 */
async function settledResidentBytes(pid: number) {
  const deadline = Date.now() + 30_000;
  let last = residentBytes(pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = residentBytes(pid);
    if (Math.abs(now - last) < 1024 * 1024 || Date.now() > deadline) return now;
    last = now;
  }
}

/**
 * The real server (`npm start`'s heap flags) on a database holding 100,000 bookings of one
 * business, loaded as a restore would, without the triggers: the download only reads them.
 */
describe('bookings.csv of 100,000 bookings, from the real server', () => {
  let ctx: TestContext;
  let server: StartedProcess;
  let headers: Record<string, string>;
  const dataDir = mkdtempSync(join(tmpdir(), 'slotwise-csv-'));

  before(async () => {
    ctx = await createTestApp();
    const biz = await setupBookable(ctx.app);
    headers = biz.tenant.headers;
    const { customer_id } = await bookOk(ctx.app, biz, { start_time: '10:00' });
    await ctx.app.db.transaction().execute(async (tx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(tx);
      await sql`
        INSERT INTO bookings (business_id, customer_id, resource_id, booking_date, start_time, end_time,
          duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity, source)
        SELECT ${biz.tenant.businessId}::uuid, ${customer_id}::uuid, ${biz.resources.T4}::uuid, day, '10:00',
          '11:00', 60, day + time '10:00', day + time '11:00', tstzrange(day + time '10:00', day + time '11:00'),
          'completed', 'L' || lpad(i::text, 7, '0'), 2, 'staff'
        FROM generate_series(1, ${LOADED}) AS i, LATERAL (SELECT date '2020-01-01' + i % 1500 AS day) AS d`.execute(
        tx,
      );
    });
    await sql`ANALYZE`.execute(ctx.app.db);
    let database: Record<string, string>;
    if (ENGINE === 'postgres') {
      database = { DATABASE_URL: ctx.databaseUrl! };
    } else {
      // The embedded database the server opens is a folder: the loaded one, written there.
      const onDisk = await openPGlite(dataDir, await (ctx.database as PGliteDatabase).dumpDataDir());
      await onDisk.close();
      database = { DATA_DIR: dataDir };
    }
    server = await startProcess(
      'src/main.ts',
      { ...TEST_PROCESS_ENV, ...database },
      { args: ['serve'], nodeArgs: SERVER_HEAP_FLAGS, readyPath: '/readyz' },
    );
  });

  after(async () => {
    if (server) await stopProcess(server.child);
    await ctx?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Downloads `query`'s CSV, counting its lines and the server's largest resident set meanwhile. */
  async function download(query: string) {
    const pid = server.child.pid!;
    let peak = residentBytes(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid));
    }, 20);
    try {
      const response = await fetch(`${server.url}/v1/manage/bookings.csv${query}`, { headers });
      if (response.status !== 200) assert.fail(`${response.status} ${await response.text()}`);
      let lines = 0;
      for await (const chunk of response.body!)
        lines += (chunk as Uint8Array).filter((byte) => byte === 0x0a).length;
      return { lines, peak: Math.max(peak, residentBytes(pid)) };
    } finally {
      clearInterval(sampler);
    }
  }

  it('streams them without holding them: the resident set grows by less than 50 MB', async () => {
    // The whole download once first, so that what is measured is what the rows cost, not the
    // route's first use nor the database's WebAssembly compiled again for the code the rows run.
    const warm = await download('');
    assert.equal(warm.lines, LOADED + 2);
    const before = await settledResidentBytes(server.child.pid!);
    const { lines, peak } = await download('');
    assert.equal(lines, LOADED + 2, 'the header, the booking made online and the 100,000 loaded');
    const grown = peak - before;
    assert.ok(grown < 50 * 1024 * 1024, `the resident set grew by ${Math.round(grown / 1024 / 1024)} MB`);
  });
});
