// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type StartedProcess, startProcess } from '../bench/process.ts';
import { daysFromNow, guest, setupBookable } from './booking-fixtures.ts';
import {
  bearer,
  createKeyWithId,
  createTestApp,
  ENGINE,
  TEST_PROCESS_ENV,
  type TestContext,
} from './helpers.ts';

/** What one request of the load came to: an HTTP answer, or the network error that ended it. */
type Outcome = { status: number; code?: string; at: number } | { error: string; at: number };

const WORKERS = 8;
const TIMES = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'];

/** The error code under fetch's "fetch failed". */
const networkError = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? String(error);
};

describe('SIGTERM under booking load', {
  skip: ENGINE === 'pglite' && 'the server process needs its own database: set TEST_DATABASE_URL',
  // The server's start (startProcess) may take minutes on a machine running two suites.
  timeout: 300_000,
}, () => {
  let ctx: TestContext;
  let server: StartedProcess;

  before(async () => {
    ctx = await createTestApp();
    server = await startProcess(
      'src/main.ts',
      { ...TEST_PROCESS_ENV, DATABASE_URL: ctx.databaseUrl! },
      { args: ['serve'], readyPath: '/readyz' },
    );
  });
  after(async () => {
    if (server?.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await ctx.close();
  });

  it('answers every request it accepted, flushes key usage and exits 0', async () => {
    const biz = await setupBookable(ctx.app);
    const { key, id: keyId } = await createKeyWithId(ctx.app, biz.tenant, ['write'], {
      rate_limit_per_minute: 1_000_000,
    });
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    const outcomes: Outcome[] = [];
    let stopAfter = Number.POSITIVE_INFINITY;
    let sent = 0;

    const worker = async (w: number) => {
      // Each worker goes on until the server refuses to connect (it stopped listening) or has exited.
      for (;;) {
        const n = sent++;
        const body = {
          business_id: biz.tenant.businessId,
          booking_date: daysFromNow(1 + ((n >> 3) % 28)),
          start_time: TIMES[(n + w) % TIMES.length],
          capacity: 2,
          ...guest(),
        };
        try {
          const response = await fetch(`${server.url}/v1/bookings`, {
            method: 'POST',
            headers: { ...bearer(key), 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const answer = (await response.json()) as { error?: { code: string } };
          outcomes.push({ status: response.status, code: answer.error?.code, at: Date.now() });
        } catch (error) {
          outcomes.push({ error: networkError(error), at: Date.now() });
          return;
        }
        if (Date.now() > stopAfter) return;
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    while (outcomes.filter((o) => 'status' in o && o.status === 201).length < 40) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    // Enough for the server to drain and exit; a worker still answered after that would be a bug too.
    stopAfter = signalledAt + 15_000;
    await load;
    assert.equal(await exited, 0, 'exit code');

    const failed = outcomes.filter((o) => 'error' in o && o.error !== 'ECONNREFUSED');
    assert.deepEqual(failed, [], 'no accepted request was reset or left unanswered');
    for (const outcome of outcomes) {
      if (!('status' in outcome)) continue;
      assert.ok(
        outcome.status === 201 || (outcome.status === 409 && outcome.code === 'slot_unavailable'),
        JSON.stringify(outcome),
      );
    }
    const answeredAfter = outcomes.filter((o) => 'status' in o && o.at > signalledAt);
    assert.ok(answeredAfter.length > 0, 'requests in flight at SIGTERM were finished');

    const created = outcomes.filter((o) => 'status' in o && o.status === 201).length;
    const stored = await ctx.app.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', biz.tenant.businessId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), created, 'every booking answered 201 is stored, and only those');
    const usage = await ctx.app.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    assert.ok(usage.last_used_at, 'the key use was flushed at shutdown');
  });
});
