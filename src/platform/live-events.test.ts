import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { AppError } from './errors.ts';
import { LiveEvents, MAX_UNREAD_BYTES, parseLivePayload } from './live-events.ts';

const LIMITS = { perBusiness: 2, perProcess: 3, heartbeatMs: 60_000 };
const live = () => {
  const events = new LiveEvents(LIMITS, () => Date.parse('2026-05-01T12:00:00Z'));
  events.up();
  return events;
};
const refusal = (code: string) => (error: unknown) => error instanceof AppError && error.code === code;
const read = (out: PassThrough) => String(out.read() ?? '');

describe('LiveEvents', () => {
  it('reads a payload, with and without date and booking, and refuses a malformed one', () => {
    const at = new Date('2026-05-01T12:00:00Z');
    assert.deepEqual(parseLivePayload('b1:booking.created:x1:2026-05-02:', at), {
      type: 'booking.created',
      id: 'x1',
      business_id: 'b1',
      booking_date: '2026-05-02',
      at: '2026-05-01T12:00:00.000Z',
    });
    assert.deepEqual(parseLivePayload('b1:deposit.updated:d1::x1', at)?.booking_id, 'x1');
    assert.equal(parseLivePayload('b1:block.deleted:k1::', at)?.booking_date, undefined);
    assert.equal(parseLivePayload('probe', at), null);
  });

  it("sends a business's events to its streams only", () => {
    const events = live();
    const a = new PassThrough();
    const b = new PassThrough();
    events.openStream('A', a, undefined).start();
    events.openStream('B', b, undefined).start();
    read(a);
    read(b);
    events.apply('A:booking.created:x1:2026-05-02:');
    assert.match(read(a), /^id: 2\nevent: booking\.created\ndata: \{"type":"booking\.created","id":"x1"/);
    assert.equal(read(b), '');
  });

  it('refuses past the business cap (429) and the process cap (503); an ended stream frees its place', () => {
    const events = live();
    const first = new PassThrough();
    events.openStream('A', first, undefined);
    events.openStream('A', new PassThrough(), undefined);
    assert.throws(() => events.openStream('A', new PassThrough(), undefined), refusal('rate_limit_exceeded'));
    events.openStream('B', new PassThrough(), undefined);
    assert.throws(() => events.openStream('C', new PassThrough(), undefined), refusal('service_unavailable'));
    first.destroy();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        assert.equal(events.open, 2);
        events.openStream('C', new PassThrough(), undefined);
        resolve();
      }),
    );
  });

  it('drops a reader that stopped reading instead of buffering for it', () => {
    const events = live();
    const stalled = new PassThrough({ highWaterMark: 1024 });
    events.openStream('A', stalled, undefined);
    let sent = 0;
    while (!stalled.destroyed && sent < 10_000) {
      events.apply(`A:booking.updated:${sent++}:2026-05-02:`);
    }
    assert.ok(stalled.destroyed, 'the stalled stream was dropped');
    assert.ok(stalled.writableLength <= MAX_UNREAD_BYTES + 1024);
    assert.equal(events.open, 0);
  });

  it('ends every stream at stop with a closing event, and opens none after', () => {
    const events = live();
    const out = new PassThrough();
    events.openStream('A', out, undefined);
    events.stop();
    assert.match(read(out), /event: closing\ndata: \{"reason":"shutdown"\}/);
    assert.ok(out.writableEnded);
    assert.throws(() => events.openStream('A', new PassThrough(), undefined), refusal('service_unavailable'));
  });

  it('opens no stream before the feed listens', () => {
    const events = new LiveEvents(LIMITS, Date.now);
    assert.throws(() => events.openStream('A', new PassThrough(), undefined), refusal('service_unavailable'));
  });
});
