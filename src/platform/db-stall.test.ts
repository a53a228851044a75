// test lane: system
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import {
  type BookableBusiness,
  daysFromNow,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { createTestApp, ENGINE, TEST_PROCESS_ENV, type TestContext } from '../../test/helpers.ts';
import { noOwnPostgres, type OwnPostgres, startOwnPostgres } from '../../test/outage-servers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { type Database, openPostgres } from './db.ts';
import type { DbTimeouts } from './deadline.ts';
import { migrate } from './migrate.ts';

/**
 * A stalled database (a lock held for long, a statement that does not end, a pool with no free
 * connection) answers 503 `service_unavailable` with `Retry-After` once the timeout passes,
 * instead of holding every request for as long as the stall lasts.
 */

/**
 * Short timeouts, so the tests wait little; production's default is 5 s each. Each is still far
 * above what a statement of these tests takes on a PostgreSQL of their own.
 */
const TIMEOUTS: DbTimeouts = { lockMs: 500, statementMs: 1000, acquireMs: 500 };
const POOL_SIZE = 4;

function assertUnavailable(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 503, response.body);
  assert.equal(response.json().error.code, 'service_unavailable');
  assert.equal(response.headers['retry-after'], '5');
}

interface LogLine {
  level: number;
  msg: string;
}

/** Waits until `hold` is told to end, holding what the callback took meanwhile. */
function holder() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

/**
 * Takes every connection of `database`'s pool, each in a loan of its own, until `released`;
 * resolves once all are held, with the end of the loans.
 */
async function takeEveryConnection(database: Database, released: Promise<void>) {
  let holding = 0;
  const loans = Promise.all(
    Array.from({ length: POOL_SIZE }, () =>
      database.db.connection().execute(async (connection) => {
        await sql`SELECT 1`.execute(connection);
        holding++;
        await released;
      }),
    ),
  );
  while (holding < POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 20));
  return { returned: loans };
}

/**
 * Opens every connection of the pool before a test: on a busy machine, making one may take longer
 * than the test's short acquire timeout, which is an outage of its own (unreachable), logged as one.
 */
async function fillWithConnections(database: Database): Promise<void> {
  await (await takeEveryConnection(database, Promise.resolve())).returned;
}

describe('the database stalled (PostgreSQL)', { skip: noOwnPostgres, timeout: 180_000 }, () => {
  let server: OwnPostgres;
  let database: Database;
  let app: FastifyInstance;
  let biz: BookableBusiness;
  const logs: LogLine[] = [];
  let slot = 0;
  /** A booking of its own hour: bookings of these tests never collide with each other. */
  const book = () => {
    const k = slot++;
    return postBooking(app, biz, {
      booking_date: daysFromNow(2 + Math.floor(k / 7)),
      start_time: `${String(9 + (k % 7)).padStart(2, '0')}:00`,
    });
  };

  before(async () => {
    server = await startOwnPostgres();
    database = await openPostgres(server.url, POOL_SIZE, TIMEOUTS);
    await migrate(database);
    const config = {
      ...loadConfig({ ...TEST_PROCESS_ENV, DATABASE_URL: server.url }),
      dbTimeouts: TIMEOUTS,
      // One business's 30 requests at once must each meet the stall itself, not its share's queue
      // (src/platform/fair-share.test.ts).
      dbConcurrencyPerBusiness: 0,
    };
    app = await buildApp({
      config,
      database,
      logger: { level: 'info', stream: { write: (line: string) => logs.push(JSON.parse(line)) } },
    });
    app.get('/test/slow', { schema: { hide: true } }, async () => {
      await sql`SELECT pg_sleep(3)`.execute(app.db);
      return { slept: true };
    });
    await app.ready();
    biz = await setupBookable(app);
  });
  beforeEach(() => fillWithConnections(database));
  after(async () => {
    await app?.close();
    await database?.close();
    await server?.close();
  });

  describe('503', () => {
    it('answers 30 bookings at once while a lock on the bookings table outlasts the lock timeout, then books again', async () => {
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE bookings IN ACCESS EXCLUSIVE MODE');
        const logged = logs.length;
        // The lock is released only after every answer came: a request waiting for it never would.
        const responses = await Promise.all(Array.from({ length: 30 }, book));
        for (const response of responses) assertUnavailable(response);
        const errors = logs.slice(logged).filter((line) => line.level >= 50);
        assert.deepEqual(
          errors.map((line) => line.msg.split(':')[0]),
          ['database stalled'],
          'one line for the stall, none for the requests',
        );
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      const booked = await book();
      assert.equal(booked.statusCode, 201, booked.body);
    });

    it('answers a statement that outlasts the statement timeout', async () => {
      assertUnavailable(await app.inject({ method: 'GET', url: '/test/slow' }));
    });

    it('answers a request for which no pooled connection comes free in time', async () => {
      const hold = holder();
      const { returned } = await takeEveryConnection(database, hold.released);
      try {
        assertUnavailable(
          await app.inject({ method: 'GET', url: '/v1/manage/business', headers: biz.tenant.headers }),
        );
      } finally {
        hold.release();
        await returned;
      }
      const read = await app.inject({
        method: 'GET',
        url: '/v1/manage/business',
        headers: biz.tenant.headers,
      });
      assert.equal(read.statusCode, 200, read.body);
    });

    it('logs nothing but the stalls as errors', () => {
      const errors = logs.filter((line) => line.level >= 50);
      assert.ok(errors.length > 0);
      for (const line of errors) assert.ok(line.msg.startsWith('database stalled'), line.msg);
    });
  });

  describe('one deadline for all the database waits of a request', () => {
    /** The default timeouts; the deadline is shorter than any of them. */
    const DEFAULTS: DbTimeouts = { lockMs: 5000, statementMs: 5000, acquireMs: 5000 };
    const DEADLINE_MS = 1000;
    /**
     * What is checked is that the waits are not added up, not how fast the answer is: added up,
     * the answer would come after a whole lock timeout (5 s) on top of the pool's wait; a busy
     * machine may delay the right answer (at the 1 s deadline) by seconds, never by that much.
     */
    const WITHIN_MS = DEFAULTS.lockMs - 1000;
    let bounded: Database;
    let boundedApp: FastifyInstance;

    before(async () => {
      bounded = await openPostgres(server.url, POOL_SIZE, DEFAULTS);
      boundedApp = await buildApp({
        config: {
          ...loadConfig({ ...TEST_PROCESS_ENV, DATABASE_URL: server.url }),
          dbTimeouts: DEFAULTS,
          dbRequestDeadlineMs: DEADLINE_MS,
        },
        database: bounded,
      });
      await boundedApp.ready();
    });
    beforeEach(() => fillWithConnections(bounded));
    after(async () => {
      await boundedApp?.close();
      await bounded?.close();
    });

    /** Takes every pooled connection of `bounded` until `ms` have passed since all were held. */
    async function fillPool(ms: number) {
      const hold = holder();
      const { returned } = await takeEveryConnection(bounded, hold.released);
      setTimeout(hold.release, ms);
      return returned;
    }

    /** A booking of its own hour, through the app with the deadline, and how long its answer took. */
    async function timedBooking() {
      const k = slot++;
      const started = Date.now();
      const response = await postBooking(boundedApp, biz, {
        booking_date: daysFromNow(2 + Math.floor(k / 7)),
        start_time: `${String(9 + (k % 7)).padStart(2, '0')}:00`,
      });
      return { response, tookMs: Date.now() - started };
    }

    async function withBookingsLocked<T>(run: () => Promise<T>): Promise<T> {
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE bookings IN ACCESS EXCLUSIVE MODE');
        return await run();
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
    }

    it('answers 503 at the deadline when the pool stays full past it and a lock is held', async () => {
      await withBookingsLocked(async () => {
        const freed = fillPool(1500);
        const { response, tookMs } = await timedBooking();
        assertUnavailable(response);
        assert.ok(tookMs < WITHIN_MS, `answered after ${tookMs} ms`);
        await freed;
      });
    });

    it('counts the wait for a connection against the wait for a lock', async () => {
      await withBookingsLocked(async () => {
        const freed = fillPool(500);
        const { response, tookMs } = await timedBooking();
        assertUnavailable(response);
        assert.ok(tookMs < WITHIN_MS, `answered after ${tookMs} ms`);
        await freed;
      });
    });

    it('leaves no shortened timeout behind on a pooled connection', async () => {
      await withBookingsLocked(async () => {
        const freed = fillPool(500);
        assertUnavailable((await timedBooking()).response);
        await freed;
      });
      let reading = 0;
      const release = holder();
      const settings = Array.from({ length: POOL_SIZE }, () =>
        bounded.db.connection().execute(async (connection) => {
          const { rows } = await sql<{ lock: string; statement: string }>`
            SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement`.execute(
            connection,
          );
          reading++;
          await release.released;
          return rows[0];
        }),
      );
      while (reading < POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 20));
      release.release();
      for (const row of await Promise.all(settings)) assert.deepEqual(row, { lock: '5s', statement: '5s' });
      const booked = await timedBooking();
      assert.equal(booked.response.statusCode, 201, booked.response.body);
    });
  });

  describe('migrations', () => {
    it('run free of the statement timeout, which applies again after them', async () => {
      await database.runScript('SELECT pg_sleep(1.5)');
      await assert.rejects(sql`SELECT pg_sleep(1.5)`.execute(database.db), { code: '57014' });
    });
  });
});

describe('the database stalled (PGlite)', {
  skip: ENGINE === 'pglite' ? false : "PGlite's own pool: runs in the suite on PGlite",
  timeout: 60_000,
}, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp({ dbTimeouts: { lockMs: 0, statementMs: 0, acquireMs: 500 } });
  });
  after(() => ctx.close());

  describe('503', () => {
    it('answers a request at its deadline when that comes before the acquire timeout', async () => {
      const bounded = await createTestApp({
        dbTimeouts: { lockMs: 0, statementMs: 0, acquireMs: 5000 },
        dbRequestDeadlineMs: 500,
      });
      try {
        const biz = await setupBookable(bounded.app);
        const hold = holder();
        const taken = bounded.database.db.connection().execute(() => hold.released);
        try {
          const started = Date.now();
          const response = await postBooking(bounded.app, biz);
          const tookMs = Date.now() - started;
          assertUnavailable(response);
          // Not the acquire timeout's 5 s: the deadline's 500 ms, however late a busy machine answers.
          assert.ok(tookMs < 5000 - 1000, `answered after ${tookMs} ms`);
        } finally {
          hold.release();
          await taken;
        }
        const booked = await postBooking(bounded.app, biz);
        assert.equal(booked.statusCode, 201, booked.body);
      } finally {
        await bounded.close();
      }
    });

    it('answers a request that waited longer than the acquire timeout for the one connection', async () => {
      const biz = await setupBookable(ctx.app);
      const hold = holder();
      const taken = ctx.database.db.connection().execute(() => hold.released);
      try {
        assertUnavailable(await postBooking(ctx.app, biz));
      } finally {
        hold.release();
        await taken;
      }
      const booked = await postBooking(ctx.app, biz);
      assert.equal(booked.statusCode, 201, booked.body);
    });
  });
});
