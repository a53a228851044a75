// test lane: system
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  type BookableBusiness,
  daysFromNow,
  postBooking,
  setupBookable,
} from '../../test/booking-fixtures.ts';
import { bearer, createKey, TEST_PROCESS_ENV } from '../../test/helpers.ts';
import { noOwnPostgres, type OwnPostgres, startOwnPostgres } from '../../test/outage-servers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { type Database, openPostgres } from './db.ts';
import { migrate } from './migrate.ts';

/**
 * PostgreSQL stopped with `pg_ctl stop -m immediate` while bookings come in, then started again:
 * meanwhile every booking is answered 503 `service_unavailable` with `Retry-After` (never 500),
 * the outage is logged once when it begins and once when it ends, and afterwards every booking
 * answered 201 is in the database.
 */

interface LogLine {
  level: number;
  msg: string;
}

interface Answer {
  status: number;
  code?: string;
  retryAfter?: string;
  bookingId?: string;
}

const WORKERS = 4;

describe('PostgreSQL stopped under booking load', { skip: noOwnPostgres, timeout: 240_000 }, () => {
  let server: OwnPostgres;
  let database: Database;
  let app: FastifyInstance;
  let biz: BookableBusiness;
  const logs: LogLine[] = [];

  before(async () => {
    server = await startOwnPostgres();
    // A test app's timeouts, far above what a busy machine may take: this outage is the server
    // gone, not a stall. Nor may a busy machine's event loop shed a booking as overloaded.
    const config = loadConfig({ ...TEST_PROCESS_ENV, DATABASE_URL: server.url });
    database = await openPostgres(server.url, 10, config.dbTimeouts);
    await migrate(database);
    app = await buildApp({
      config,
      database,
      logger: { level: 'info', stream: { write: (line: string) => logs.push(JSON.parse(line)) } },
    });
    await app.ready();
    const bookable = await setupBookable(app);
    // Refused bookings count against a key's limit too: one that no outage on a busy machine can
    // use up, so that every answer is about the database.
    const key = await createKey(app, bookable.tenant, ['write'], { rate_limit_per_minute: 1_000_000 });
    biz = { ...bookable, tenant: { ...bookable.tenant, headers: bearer(key) } };
  });
  after(async () => {
    await app?.close();
    await database?.close();
    await server?.close();
  });

  it('answers 503 with Retry-After while it is down, logs the outage once, and recovers losing no booking', async () => {
    const answers: Answer[] = [];
    let slot = 0;
    // The hours of refused bookings, taken again first: however long the outage lasts on a busy
    // machine, the bookings stay inside the booking window.
    const unused: number[] = [];
    let stopped = false;
    const count = (status: number) => answers.filter((answer) => answer.status === status).length;
    // Each booking has an hour of its own, so none is refused for another one.
    const worker = async () => {
      while (!stopped) {
        const k = unused.pop() ?? slot++;
        const response = await postBooking(app, biz, {
          booking_date: daysFromNow(2 + Math.floor(k / 7)),
          start_time: `${String(9 + (k % 7)).padStart(2, '0')}:00`,
        });
        const body = response.json();
        answers.push({
          status: response.statusCode,
          code: body.error?.code,
          retryAfter: response.headers['retry-after'] as string | undefined,
          bookingId: body.booking?.id,
        });
        if (response.statusCode === 503) {
          unused.push(k);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const until = async (what: string, done: () => boolean) => {
      for (let waited = 0; !done(); waited += 50) {
        assert.ok(waited < 60_000, `${what} within a minute: ${JSON.stringify(answers.slice(-3))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    try {
      await until('bookings made', () => count(201) >= 10);
      await server.stopImmediately();
      await until('bookings refused while it is down', () => count(503) >= 20);
      await server.start();
      const bookedBefore = count(201);
      await until('bookings made after it is back', () => count(201) >= bookedBefore + 10);
    } finally {
      stopped = true;
      await Promise.all(workers);
    }

    const others = answers.filter((answer) => answer.status !== 201 && answer.status !== 503);
    assert.deepEqual(others, [], 'every booking is made or refused as unavailable');
    for (const refused of answers.filter((answer) => answer.status === 503)) {
      assert.equal(refused.code, 'service_unavailable');
      assert.equal(refused.retryAfter, '5');
    }

    const booked = answers.filter((answer) => answer.status === 201).map((answer) => answer.bookingId);
    const { rows } = await server.query('SELECT id FROM bookings WHERE id = ANY($1::uuid[])', [booked]);
    assert.equal(rows.length, booked.length, 'every booking answered 201 is stored');

    const began = logs.filter((line) => line.msg.startsWith('database unreachable:'));
    const ended = logs.filter((line) => line.msg.startsWith('database unreachable no more'));
    assert.equal(began.length, 1, JSON.stringify(began));
    assert.equal(ended.length, 1, JSON.stringify(ended));
    assert.deepEqual(
      logs.filter((line) => line.level >= 50 && line !== began[0]),
      [],
      'no request or job logged an error of its own',
    );
  });
});
