// test lane: system
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { COMPILE_CACHE } from '../../test/compile-cache.ts';
import { createTestApp, ENGINE, eventually, TEST_PROCESS_ENV, type TestContext } from '../../test/helpers.ts';
import { assertSigned, Receiver } from './receiver.fixture.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const LEASE_MS = 60_000;

let ctx: TestContext;
let receiver: Receiver;
before(async () => {
  ctx = await createTestApp({ webhookAllowPrivateUrls: true });
  receiver = await Receiver.start();
});
after(async () => {
  await receiver.close();
  await ctx.close();
});

/** `node src/main.ts worker` with `env`; its exit code or signal, and what it wrote. */
function worker(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...TEST_PROCESS_ENV,
      ...COMPILE_CACHE,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, output: () => output };
}

describe('node src/main.ts worker', () => {
  it('refuses to start without DATABASE_URL, in one line', async () => {
    const run = worker({});
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output(), /^slotwise: worker needs DATABASE_URL[^\n]*\n$/);
  });

  it('killed in the middle of a delivery: the delivery is sent again once its lease has lapsed', async (t) => {
    if (ENGINE !== 'postgres' || !ctx.databaseUrl) {
      t.skip('needs a PostgreSQL server that a second process can share');
      return;
    }
    const biz = await setupBookable(ctx.app);
    const endpoint = (
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/webhooks',
        headers: biz.tenant.headers,
        payload: { url: receiver.url, events: ['booking.created'] },
      })
    ).json();
    receiver.answer = (n) => (n === 1 ? 'hang' : { status: 200 });
    await bookOk(ctx.app, biz);

    const run = worker({
      DATABASE_URL: ctx.databaseUrl,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    // A failure below must not leave the worker running: its jobs would keep this file's process alive.
    t.after(() => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    });
    // A worker's start (its imports, the migrations' check) takes seconds alone, and over a minute
    // on a machine running two suites.
    await eventually(
      () => receiver.received.length === 1,
      `the worker to post the event (${run.output()})`,
      180_000,
    );
    assert.match(run.output(), /worker is running the scheduled jobs/);
    run.child.kill('SIGKILL');
    const [, signal] = await run.exited;
    assert.equal(signal, 'SIGKILL');

    const claimed = await ctx.app.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'locked_until'])
      .executeTakeFirstOrThrow();
    assert.equal(claimed.status, 'pending');
    assert.equal(claimed.attempts, 1);
    await ctx.app.jobs.runAll();
    assert.equal(receiver.received.length, 1, 'the dead worker still holds the lease');

    const start = Date.now();
    ctx.app.clock.now = () => start + LEASE_MS + 1_000;
    await ctx.app.jobs.runAll();
    assert.equal(receiver.received.length, 2);
    const [first, second] = receiver.received;
    assert.equal(second!.body, first!.body, 'the same event again');
    assertSigned(second!, endpoint.secret);
    const delivered = await ctx.app.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .executeTakeFirstOrThrow();
    assert.deepEqual(delivered, { status: 'delivered', attempts: 2 });
  });
});
