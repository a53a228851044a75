// test lane: system
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { BOOKING_DAY, bookOk, postBooking, setupBookable } from '../../test/booking-fixtures.ts';
import { ENGINE, eventually, TEST_PROCESS_ENV } from '../../test/helpers.ts';
import { readStream } from '../../test/live-stream.ts';
import { noOwnPostgres, type OwnPostgres, startOwnPostgres } from '../../test/outage-servers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { type Database, openPostgres } from '../platform/db.ts';
import { migrate } from '../platform/migrate.ts';

/**
 * A live stream while PostgreSQL restarts (`pg_ctl stop -m immediate`, then start): the change log
 * keeps what is committed, so the stream stays open and sends what is booked once it is back.
 */
describe('a live stream across a PostgreSQL restart', {
  skip: noOwnPostgres ?? (ENGINE === 'pglite' && 'the restart is of a PostgreSQL server'),
  timeout: 120_000,
}, () => {
  let server: OwnPostgres;
  let database: Database;
  let app: FastifyInstance;
  let url: string;

  before(async () => {
    server = await startOwnPostgres();
    const config = loadConfig({ ...TEST_PROCESS_ENV, DATABASE_URL: server.url });
    database = await openPostgres(server.url, 5, config.dbTimeouts);
    await migrate(database);
    app = await buildApp({ config, database });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app?.close();
    await database?.close();
    await server?.close();
  });

  it('keeps the stream open and sends the bookings made after the restart', async () => {
    const biz = await setupBookable(app);
    const live = await readStream(url, biz.tenant.headers);
    try {
      assert.equal(live.response.status, 200);
      await live.next('ready');
      const first = await bookOk(app, biz);
      assert.equal(JSON.parse((await live.next('booking.created')).data).id, first.id);
      const heard = live.messages.length;

      await server.stopImmediately();
      await server.start();
      let second: string | undefined;
      await eventually(
        async () => {
          const response = await postBooking(app, biz, { booking_date: BOOKING_DAY, start_time: '15:00' });
          if (response.statusCode === 201) second = response.json().booking.id;
          return second !== undefined;
        },
        'a booking once PostgreSQL is back',
        60_000,
      );
      assert.equal(JSON.parse((await live.next('booking.created', heard)).data).id, second);
      assert.deepEqual(
        live.messages.filter((message) => message.event === 'closing'),
        [],
        'the stream was never ended',
      );
    } finally {
      live.close();
    }
  });
});
