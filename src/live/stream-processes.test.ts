// test lane: system
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BOOKING_DAY, guest, setupBookable } from '../../test/booking-fixtures.ts';
import { ENGINE, eventually } from '../../test/helpers.ts';
import { readStream } from '../../test/live-stream.ts';
import { twoServersOnOneDatabase } from '../../test/server-processes.ts';

/** Live updates across real server processes on one PostgreSQL, and a stream at SIGTERM. */
describe('live streams across server processes', {
  skip: ENGINE === 'pglite' && 'PGlite serves one process',
}, () => {
  const served = twoServersOnOneDatabase();

  it("shows a booking made through one process on a stream of the other, and ends it at the other's SIGTERM", async () => {
    const [one, two] = served.servers;
    const biz = await setupBookable(served.ctx.app);
    const live = await readStream(one!.url, biz.tenant.headers);
    assert.equal(live.response.status, 200);
    await live.next('ready');

    const booked = await fetch(`${two!.url}/v1/bookings`, {
      method: 'POST',
      headers: { ...biz.tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        start_time: '12:00',
        capacity: 2,
        ...guest(),
      }),
    });
    assert.equal(booked.status, 201, await booked.clone().text());
    const { booking } = (await booked.json()) as { booking: { id: string } };
    assert.equal(JSON.parse((await live.next('booking.created')).data).id, booking.id);

    const exited = new Promise<number | null>((resolve) => one!.child.once('exit', resolve));
    one!.child.kill('SIGTERM');
    assert.deepEqual(JSON.parse((await live.next('closing')).data), { reason: 'shutdown' });
    await eventually(() => live.ended, 'the stream to end');
    assert.equal(await exited, 0, 'the open stream did not hold the stop: every connection drained in time');
  });
});
