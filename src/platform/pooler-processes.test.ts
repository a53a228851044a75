// test lane: system
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { type StartedProcess, startProcess, stopProcess } from '../../bench/process.ts';
import { type BookableBusiness, daysFromNow, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { ENGINE, eventually, TEST_PROCESS_ENV } from '../../test/helpers.ts';
import { noOwnPgBouncer, type OwnPgBouncer, startOwnPgBouncer } from '../../test/outage-servers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { type Database, openPostgres } from './db.ts';

/**
 * Two real server processes behind PgBouncer in transaction pooling, as docs/scaling.md deploys
 * them: DATABASE_URL is PgBouncer, DATABASE_LISTEN_URL PostgreSQL itself. PgBouncer has fewer
 * server connections than the processes have clients, so consecutive transactions of one process
 * run on different server connections, and each server connection serves both processes.
 */

const SERVER_CONNECTIONS = 4;
/**
 * Shorter than the processes' timeouts (TEST_PROCESS_ENV): every request's work runs under
 * timeouts cut to it. Production's 5 s, which a busy machine's requests do not reach.
 */
const DEADLINE_MS = 5000;

const skip = ENGINE === 'pglite' ? 'PGlite serves one process' : noOwnPgBouncer();

describe('server processes behind PgBouncer in transaction pooling', { skip, timeout: 240_000 }, () => {
  const name = `slotwise_bouncer_${randomBytes(4).toString('hex')}`;
  const serverUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const directUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  let bouncer: OwnPgBouncer;
  let servers: StartedProcess[] = [];
  let database: Database;
  let app: FastifyInstance;
  let biz: BookableBusiness;

  /** Runs `text` through PgBouncer on a client of its own. */
  async function throughBouncer<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: bouncer.url });
    await client.connect();
    try {
      return (await client.query<R>(text)).rows;
    } finally {
      await client.end();
    }
  }

  before(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    bouncer = await startOwnPgBouncer(directUrl, SERVER_CONNECTIONS);
    // Started together on a blank database: both migrate it, taking turns.
    servers = await Promise.all(
      [0, 1].map(() =>
        startProcess(
          'src/main.ts',
          {
            DATABASE_URL: bouncer.url,
            DATABASE_LISTEN_URL: directUrl,
            ...TEST_PROCESS_ENV,
            DB_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
          },
          { args: ['serve'], readyPath: '/readyz' },
        ),
      ),
    );
    const config = loadConfig({
      ...TEST_PROCESS_ENV,
      DATABASE_URL: bouncer.url,
      DATABASE_LISTEN_URL: directUrl,
    });
    // The test's own timeouts, as the servers': the database's defaults are short for a busy machine.
    database = await openPostgres(bouncer.url, 4, config.dbTimeouts, directUrl);
    app = await buildApp({ config, database });
    await app.ready();
    biz = await setupBookable(app, { resources: [{ name: 'T2', capacity_min: 1, capacity_max: 2 }] });
  });
  after(async () => {
    await Promise.all(servers.map((server) => stopProcess(server.child)));
    await app?.close();
    await database?.close();
    await bouncer?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const book = (server: StartedProcess, day: string, time: string) =>
    fetch(`${server.url}/v1/bookings`, {
      method: 'POST',
      headers: { ...biz.tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        business_id: biz.tenant.businessId,
        booking_date: day,
        start_time: time,
        capacity: 2,
        ...guest(),
      }),
    }).then(async (response) => ({ status: response.status, body: await response.text() }));

  /**
   * A guest booking as the API asks: a 503 (the database, or the business's share of it, did not
   * answer within the deadline) wrote nothing and says to retry shortly, so the guest does.
   */
  async function bookRetrying(server: StartedProcess, day: string, time: string) {
    for (let attempt = 1; ; attempt++) {
      const answer = await book(server, day, time);
      if (answer.status !== 503 || attempt === 10) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }

  const freeAt = async (server: StartedProcess, day: string, time: string) => {
    const response = await fetch(
      `${server.url}/v1/availability/${biz.tenant.businessId}?booking_date=${day}&capacity=2`,
    );
    assert.equal(response.status, 200);
    const { slots } = (await response.json()) as { slots: { time: string; available: boolean }[] };
    return slots.find((slot) => slot.time === time)?.available === true;
  };

  it('migrated the blank database once, through two processes starting together', async () => {
    const migrations = readdirSync(new URL('../../migrations/', import.meta.url)).filter((file) =>
      /^\d{4}_[\w-]+\.sql$/.test(file),
    );
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_database WHERE datname = $1`, [
      name,
    ]);
    assert.equal(rows[0].n, 1);
    const [recorded] = await throughBouncer<{ n: number }>(
      'SELECT count(*)::int AS n FROM schema_migrations',
    );
    assert.equal(recorded!.n, migrations.length);
    for (const server of servers) assert.equal(server.child.exitCode, null, 'both processes serve');
  });

  it('books one table for exactly one of 20 guests asking at once through both processes', async () => {
    const day = daysFromNow(3);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => bookRetrying(servers[i % 2]!, day, '12:00')),
    );
    const won = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter(
      (answer) => answer.status === 409 && answer.body.includes('slot_unavailable'),
    );
    assert.equal(won.length, 1, JSON.stringify(answers));
    assert.equal(refused.length, answers.length - 1, JSON.stringify(answers));
    const [stored] = await throughBouncer<{ n: number }>(
      `SELECT count(*)::int AS n FROM bookings WHERE booking_date = '${day}' AND status <> 'cancelled'`,
    );
    assert.equal(stored!.n, 1);
  });

  it("shows a booking made through one process in the other's availability at once", async () => {
    const [one, two] = servers;
    const day = daysFromNow(4);
    assert.equal(await freeAt(two!, day, '13:00'), true, 'free, and now cached by the second process');
    const booked = await book(one!, day, '13:00');
    assert.equal(booked.status, 201, booked.body);
    // Well before the cache's own expiry: only the change feed, heard on the direct connection, tells.
    await eventually(async () => !(await freeAt(two!, day, '13:00')), 'the booking to show', 3000);
  });

  it("leaves no request's shortened timeout on PgBouncer's server connections", async () => {
    // Requests of both processes, each under timeouts cut to its deadline, on every server connection.
    const day = daysFromNow(5);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        Promise.all([book(servers[i % 2]!, day, '15:00'), freeAt(servers[i % 2]!, day, '16:00')]),
      ),
    );
    // As many lone statements at once as there are server connections, so each runs on one of its
    // own: each outlasts any cut timeout, and none is cancelled.
    const settings = await Promise.all(
      Array.from({ length: SERVER_CONNECTIONS }, () =>
        throughBouncer<{ lock: string; statement: string }>(
          `SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement,
             pg_sleep(${(DEADLINE_MS + 500) / 1000})`,
        ),
      ),
    );
    for (const [row] of settings) {
      assert.deepEqual([row!.lock, row!.statement], ['0', '0'], 'the server connection has its own timeouts');
    }
  });
});
