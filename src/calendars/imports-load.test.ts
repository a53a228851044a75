// test lane: system
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { setupBookable } from '../../test/booking-fixtures.ts';
import { hostile } from '../../test/calendar-fixtures.ts';
import { createTestApp, ENGINE, type TestContext } from '../../test/helpers.ts';
import { SYNC_JOB } from './imports.jobs.ts';

/**
 * A bounded load test on PostgreSQL: several businesses' hostile calendars synced at once while
 * another business's availability is read over a real port, on 127.0.0.1. It stops by itself
 * once every hostile sync has ended, or at the deadline.
 */
const ON_SERVER = { skip: ENGINE !== 'postgres' ? 'needs a PostgreSQL server (TEST_DATABASE_URL)' : false };

const HOSTILE_BUSINESSES = 4;
/**
 * The syncs parse one calendar at a time, each for at most the parser's CPU budget (5 s); a
 * machine running two suites at once, each with its lanes and their processes, leaves this file
 * a quarter of a core or less: four times that, for them all. What is checked is that they end
 * (no hang) and that the other business's reads stay fast, not how soon.
 */
const DEADLINE_MS = 4 * HOSTILE_BUSINESSES * 5_000;
/**
 * Reads every 60 ms for the first 250, then every second: at most 295 in any minute, under the
 * 300 a minute one client address may make, however long the syncs take.
 */
const readPause = (reads: number) => (reads < 250 ? 60 : 1000);

/** 2.9 KB of transparent events: nothing busy, 200,000 instances. */
const HOSTILE = hostile(() => ['TRANSP:TRANSPARENT']);

const calendars = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/calendar' }).end(HOSTILE);
});
let ctx: TestContext;
let calendarBase: string;
let apiBase: string;

before(async () => {
  if (ENGINE !== 'postgres') return;
  await new Promise<void>((resolve) => calendars.listen(0, '127.0.0.1', resolve));
  calendarBase = `http://127.0.0.1:${(calendars.address() as AddressInfo).port}`;
  ctx = await createTestApp({ webhookAllowPrivateUrls: true });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  apiBase = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(async () => {
  if (ENGINE !== 'postgres') return;
  calendars.closeAllConnections();
  await new Promise((resolve) => calendars.close(resolve));
  await ctx.close();
});

const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

describe('hostile calendars under load', ON_SERVER, () => {
  it("leaves another business's availability answering fast while several hostile calendars are synced", async () => {
    const quiet = await setupBookable(ctx.app);
    const hostile = [];
    for (let i = 0; i < HOSTILE_BUSINESSES; i++) {
      const biz = await setupBookable(ctx.app);
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/v1/manage/calendar-imports',
        headers: biz.tenant.headers,
        payload: { url: `${calendarBase}/${i}.ics`, resource_id: Object.values(biz.resources)[0] },
      });
      assert.equal(created.statusCode, 201, created.body);
      hostile.push({ headers: biz.tenant.headers, id: created.json().id as string });
    }
    // Every business asks for its sync at once; the reads of the quiet one go on meanwhile.
    const synced = Promise.all(
      hostile.map(({ headers, id }) =>
        fetch(`${apiBase}/v1/manage/calendar-imports/${id}/sync`, { method: 'POST', headers }),
      ),
    ).then(async (answers) => {
      await ctx.app.jobs.kick(SYNC_JOB);
      return answers.map((answer) => answer.status);
    });
    let done = false;
    void synced.finally(() => (done = true));

    const latencies: number[] = [];
    const started = performance.now();
    for (let day = 0; !done && performance.now() - started < DEADLINE_MS; day = (day + 1) % 60) {
      const date = new Date(Date.now() + (day + 1) * 86_400_000).toISOString().slice(0, 10);
      const asked = performance.now();
      const response = await fetch(
        `${apiBase}/v1/availability/${quiet.tenant.businessId}?date=${date}&capacity=2`,
      );
      assert.equal(response.status, 200, await response.text());
      await response.arrayBuffer().catch(() => undefined);
      latencies.push(performance.now() - asked);
      // Paced below the anonymous reads' 300 a minute, however long the syncs take on a busy machine.
      await sleep(readPause(latencies.length));
    }
    assert.ok(done, `the hostile syncs ended within ${DEADLINE_MS} ms`);
    assert.deepEqual(
      await synced,
      hostile.map(() => 202),
    );

    for (const { headers, id } of hostile) {
      const listed = await ctx.app.inject({ method: 'GET', url: '/v1/manage/calendar-imports', headers });
      assert.equal(
        listed.json().items.find((item: { id: string }) => item.id === id).last_error,
        'too_complex',
      );
    }
    const p50 = percentile(latencies, 50);
    const max = Math.max(...latencies);
    assert.ok(latencies.length >= 20, `${latencies.length} reads`);
    assert.ok(p50 < 100, `p50 ${Math.round(p50)} ms over ${latencies.length} reads`);
    // What it guards against froze every read for the whole sync (15-30 s); two suites running
    // at once have made one read take 2.6 s. Whether a parse runs off the event loop at all is
    // imports.test.ts's to tell, against the same polling without a sync.
    assert.ok(max < 5000, `slowest read ${Math.round(max)} ms`);
  });
});
