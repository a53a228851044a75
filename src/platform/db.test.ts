import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestApp, ENGINE, eventually, type TestContext } from '../../test/helpers.ts';
import { HINT_CHANNEL } from './change-log.ts';
import { listenOnServer } from './listen.ts';
import { DatabaseUnavailableError, type Outage, outageOf } from './outages.ts';

const ON_SERVER = { skip: ENGINE !== 'postgres' ? 'needs a PostgreSQL server (TEST_DATABASE_URL)' : false };

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

/**
 * A TCP relay to the database that can go silent without closing anything: what a connection
 * sees when the network drops between it and the server (a half-open connection).
 */
async function silenceableRelay(target: URL) {
  const pairs: [net.Socket, net.Socket][] = [];
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    /** Every connection open now stops carrying data, in both directions; new ones work. */
    silence() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    /** New connections are closed at once (a server that is down), until `accept`. */
    refuse() {
      refusing = true;
    },
    accept() {
      refusing = false;
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('LISTEN on a PostgreSQL server', () => {
  it(
    'listens again for hints when the server ends the connection, the caches kept meanwhile',
    ON_SERVER,
    async () => {
      const feed = ctx.app.changes;
      const listening = async () => {
        const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity
        WHERE query LIKE ${`LISTEN ${HINT_CHANNEL}%`} AND datname = current_database()`.execute(
          ctx.database.db,
        );
        return rows.map((row) => row.pid);
      };
      await eventually(async () => (await listening()).length === 1, 'the LISTEN connection to show');
      const [pid] = await listening();
      const before = feed.credentialsVersion();
      assert.ok(before, 'the feed is live');
      await sql`SELECT pg_terminate_backend(${pid})`.execute(ctx.database.db);
      await eventually(async () => {
        const [newPid] = await listening();
        return newPid !== undefined && newPid !== pid;
      }, 'a new connection to listen');
      // Hints only hurry the reading of the log, which loses nothing while they are missed.
      assert.equal(feed.credentialsVersion(), before);
    },
  );

  it('finds a connection that went silent, drops it and listens again', ON_SERVER, async () => {
    const serverUrl = new URL(process.env.TEST_DATABASE_URL as string);
    const relay = await silenceableRelay(serverUrl);
    const channel = `listen_test_${randomBytes(4).toString('hex')}`;
    const events: string[] = [];
    const stop = await listenOnServer(
      relay.url,
      [channel],
      {
        message: (payload) => events.push(`message:${payload}`),
        up: () => events.push('up'),
        down: () => events.push('down'),
      },
      { checkEveryMs: 50, checkTimeoutMs: 200 },
    );
    const notifier = new pg.Client({ connectionString: serverUrl.toString() });
    await notifier.connect();
    try {
      assert.deepEqual(events, ['up']);
      await notifier.query(`NOTIFY ${channel}, 'before'`);
      await eventually(() => events.includes('message:before'), 'the first notification');

      relay.silence();
      await eventually(() => events.filter((e) => e === 'up').length === 2, 'listening again');
      assert.deepEqual(events, ['up', 'message:before', 'down', 'up']);
      await notifier.query(`NOTIFY ${channel}, 'after'`);
      await eventually(() => events.includes('message:after'), 'a notification on the new connection');

      await stop();
      assert.equal(events.at(-1), 'down');
      const stoppedAt = events.length;
      await notifier.query(`NOTIFY ${channel}, 'stopped'`);
      await notifier.query('SELECT pg_sleep(0.3)');
      assert.equal(events.length, stoppedAt, 'nothing arrives, and nothing reconnects, after stop');
    } finally {
      await notifier.end();
      await relay.close();
    }
  });

  it('announces down once while reconnecting fails, and up when it succeeds', ON_SERVER, async () => {
    const relay = await silenceableRelay(new URL(process.env.TEST_DATABASE_URL as string));
    const events: string[] = [];
    const stop = await listenOnServer(
      relay.url,
      [`listen_test_${randomBytes(4).toString('hex')}`],
      { message: () => {}, up: () => events.push('up'), down: () => events.push('down') },
      { checkEveryMs: 50, checkTimeoutMs: 200 },
    );
    try {
      relay.refuse();
      relay.silence();
      await eventually(() => events.includes('down'), 'the silent connection to be dropped');
      // Two retries a second apart, both refused.
      await new Promise((resolve) => setTimeout(resolve, 2_300));
      relay.accept();
      await eventually(() => events.filter((e) => e === 'up').length === 2, 'listening again');
      assert.deepEqual(events, ['up', 'down', 'up']);
    } finally {
      await stop();
      await relay.close();
    }
  });
});

describe('outageOf', () => {
  const withCode = (code: string, message = 'from the server') => Object.assign(new Error(message), { code });
  const cases: [string, unknown, Outage | null][] = [
    [
      'a pool connection not had',
      new DatabaseUnavailableError('unreachable', 'could not connect'),
      'unreachable',
    ],
    ['a pool wait that timed out', new DatabaseUnavailableError('stalled', 'no connection'), 'stalled'],
    ['a refused connection', withCode('ECONNREFUSED'), 'unreachable'],
    ['a reset connection', withCode('ECONNRESET'), 'unreachable'],
    ['admin_shutdown (pg_ctl stop)', withCode('57P01'), 'unreachable'],
    ['crash_shutdown', withCode('57P02'), 'unreachable'],
    ['cannot_connect_now (starting up)', withCode('57P03'), 'unreachable'],
    ['too_many_connections', withCode('53300'), 'unreachable'],
    ['connection_failure (class 08)', withCode('08006'), 'unreachable'],
    ["pg's connection lost mid-query", new Error('Connection terminated unexpectedly'), 'unreachable'],
    [
      "pg's client after a connection error",
      new Error('Client has encountered a connection error and is not queryable'),
      'unreachable',
    ],
    ['lock_not_available (lock_timeout)', withCode('55P03'), 'stalled'],
    ['query_canceled (statement_timeout)', withCode('57014'), 'stalled'],
    ['exclusion_violation', withCode('23P01'), null],
    ['unique_violation', withCode('23505'), null],
    ['serialization_failure', withCode('40001'), null],
    ['a data exception', withCode('22007'), null],
    ['a plain error', new Error('something else'), null],
    ['not an error', 'Connection terminated', null],
  ];
  for (const [what, error, outage] of cases) {
    it(`${what}: ${outage ?? 'no outage'}`, () => assert.equal(outageOf(error), outage));
  }
});
