// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type StartedProcess, startProcess, stopProcess } from '../../bench/process.ts';
import { type BookableBusiness, daysFromNow, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { createTestApp, ENGINE, TEST_PROCESS_ENV, type TestContext } from '../../test/helpers.ts';

/** CHANGE_FEED_MAX_LAG_MS's default: the bound within which another process's booking shows. */
const MAX_LAG_MS = 1000;

/**
 * Cached availability across real server processes on one PostgreSQL: a booking made through one
 * shows in another's answers within the lag bound, whether or not the wake-up hints arrive.
 */
describe('cached availability across server processes', {
  skip: ENGINE === 'pglite' && 'PGlite serves one process',
}, () => {
  let ctx: TestContext;
  /** Hints on; hints off; hints off and a poll only every minute (the lag bound alone holds). */
  const servers: StartedProcess[] = [];
  const settings: Record<string, string>[] = [
    {},
    { CHANGE_FEED_HINTS: 'false' },
    { CHANGE_FEED_HINTS: 'false', CHANGE_FEED_POLL_MS: '60000' },
  ];

  before(async () => {
    ctx = await createTestApp();
    for (const env of settings) {
      servers.push(
        await startProcess(
          'src/main.ts',
          { ...TEST_PROCESS_ENV, DATABASE_URL: ctx.databaseUrl!, ...env },
          { args: ['serve'], readyPath: '/readyz' },
        ),
      );
    }
  });
  after(async () => {
    // The one killed by a test has exited already.
    const running = servers.filter(({ child }) => child.exitCode === null && child.signalCode === null);
    await Promise.all(running.map((server) => stopProcess(server.child)));
    await ctx.close();
  });

  const day = daysFromNow(9);
  const noonLeft = async (server: StartedProcess, biz: BookableBusiness) => {
    const response = await fetch(
      `${server.url}/v1/availability/${biz.tenant.businessId}?date=${day}&capacity=2`,
    );
    const body = (await response.json()) as { slots: { time: string; remaining_resources: number }[] };
    return body.slots.find((slot) => slot.time === '12:00')!.remaining_resources;
  };
  const book = async (server: StartedProcess, biz: BookableBusiness) => {
    const response = await fetch(`${server.url}/v1/bookings`, {
      method: 'POST',
      headers: { ...biz.tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        business_id: biz.tenant.businessId,
        booking_date: day,
        start_time: '12:00',
        capacity: 2,
        ...guest(),
      }),
    });
    assert.equal(response.status, 201, await response.text());
  };

  /**
   * The reader's day is cached first; after the writer's booking is answered, the reader is asked
   * until it shows it: the first answer that does was asked for within the lag bound.
   */
  const seenWithinLag = async (writer: StartedProcess, reader: StartedProcess, afterBooking?: () => void) => {
    const biz = await setupBookable(ctx.app);
    assert.equal(await noonLeft(reader, biz), 3);
    assert.equal(await noonLeft(reader, biz), 3);
    await book(writer, biz);
    const booked = performance.now();
    afterBooking?.();
    for (;;) {
      const asked = performance.now() - booked;
      if ((await noonLeft(reader, biz)) === 2) {
        assert.ok(asked < MAX_LAG_MS, `seen ${Math.round(asked)} ms after the booking was answered`);
        return;
      }
      assert.ok(asked < MAX_LAG_MS, `still not seen ${Math.round(asked)} ms after the booking was answered`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('shows a booking made through another process within the lag bound, hints on', async () => {
    await seenWithinLag(servers[0]!, servers[1]!);
  });

  it('shows it within the bound when every hint is lost (hints off)', async () => {
    await seenWithinLag(servers[1]!, servers[0]!);
  });

  it('shows it within the bound by reading the database while the last poll is older than the bound', async () => {
    await seenWithinLag(servers[0]!, servers[2]!);
  });

  it('shows it within the bound when the writing process is killed between its commit and any hint', async () => {
    const writer = servers[1]!;
    await seenWithinLag(writer, servers[0]!, () => writer.child.kill('SIGKILL'));
  });
});
