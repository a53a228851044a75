import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { expandScopes, type Lapse, type Principal } from './auth.ts';
import { AppError } from './errors.ts';
import { type LapsedCheck, LiveEvents, MAX_UNREAD_BYTES, parseLivePayload } from './live-events.ts';

const LIMITS = {
  perBusiness: 2,
  perSandboxBusiness: 1,
  perDeveloper: 10,
  perIp: 10,
  perProcess: 3,
  heartbeatMs: 60_000,
  recheckMs: 60_000,
};
const nothingLapsed: LapsedCheck = async () => new Map();
const live = (limits = LIMITS, lapsed = nothingLapsed) => {
  const events = new LiveEvents(limits, () => Date.parse('2026-05-01T12:00:00Z'), lapsed);
  events.up();
  return events;
};
/** A key's principal for business `businessId` of developer `developerId` (by default its own). */
const key = (businessId: string, developerId = `dev-${businessId}`, sandbox = false) =>
  ({
    kind: 'api_key',
    businessId,
    developerId,
    userId: null,
    scopes: expandScopes(['read']),
    role: null,
    actor: 'api_key:test',
    credentialId: `key:${businessId}`,
    rateLimitPerMinute: null,
    subscription: {} as Principal['subscription'],
    sandbox,
  }) satisfies Principal;
const IP = '192.0.2.1';
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
    events.openStream(key('A'), IP, a).start();
    events.openStream(key('B'), IP, b).start();
    read(a);
    read(b);
    events.apply('A:booking.created:x1:2026-05-02:');
    assert.match(read(a), /^id: 2\nevent: booking\.created\ndata: \{"type":"booking\.created","id":"x1"/);
    assert.equal(read(b), '');
  });

  it('refuses past the business cap (429) and the process cap (503); an ended stream frees its place', () => {
    const events = live();
    const first = new PassThrough();
    events.openStream(key('A'), IP, first);
    events.openStream(key('A'), IP, new PassThrough());
    assert.throws(() => events.openStream(key('A'), IP, new PassThrough()), refusal('rate_limit_exceeded'));
    events.openStream(key('B'), IP, new PassThrough());
    assert.throws(() => events.openStream(key('C'), IP, new PassThrough()), refusal('service_unavailable'));
    first.destroy();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        assert.equal(events.open, 2);
        events.openStream(key('C'), IP, new PassThrough());
        resolve();
      }),
    );
  });

  it("refuses past a sandbox business's, a developer's and a client address's caps (429), before the process's", () => {
    const events = live({ ...LIMITS, perDeveloper: 2, perIp: 2, perProcess: 2 });
    events.openStream(key('S', 'dev-1', true), '192.0.2.1', new PassThrough());
    assert.throws(
      () => events.openStream(key('S', 'dev-1', true), '192.0.2.2', new PassThrough()),
      refusal('rate_limit_exceeded'),
      'one stream for a sandbox business here',
    );
    events.openStream(key('T', 'dev-1'), '192.0.2.2', new PassThrough());
    assert.throws(
      () => events.openStream(key('U', 'dev-1'), '192.0.2.3', new PassThrough()),
      refusal('rate_limit_exceeded'),
      "the developer's two are open",
    );
    assert.throws(
      () => events.openStream(key('V'), '192.0.2.1', new PassThrough()),
      refusal('service_unavailable'),
      'the process is full',
    );
    const roomy = live({ ...LIMITS, perIp: 2, perProcess: 100 });
    roomy.openStream(key('A'), IP, new PassThrough());
    roomy.openStream(key('B'), IP, new PassThrough());
    assert.throws(() => roomy.openStream(key('C'), IP, new PassThrough()), refusal('rate_limit_exceeded'));
    roomy.openStream(key('C'), '192.0.2.9', new PassThrough());
  });

  it('ends the streams whose credential lapsed at a recheck, saying why, and frees their places', async () => {
    const kept = key('A');
    const revoked = key('A');
    const moved = key('B');
    const reasons = new Map<Principal, Lapse>([
      [revoked, 'credential_revoked'],
      [moved, 'role_changed'],
    ]);
    const events = live(LIMITS, async () => reasons);
    const [keptOut, revokedOut, movedOut] = [new PassThrough(), new PassThrough(), new PassThrough()];
    events.openStream(kept, IP, keptOut);
    events.openStream(revoked, IP, revokedOut);
    events.openStream(moved, IP, movedOut);
    await events.recheck();
    assert.match(read(revokedOut), /event: closing\ndata: \{"reason":"credential_revoked"\}/);
    assert.match(read(movedOut), /event: closing\ndata: \{"reason":"role_changed"\}/);
    assert.ok(revokedOut.writableEnded && movedOut.writableEnded);
    assert.ok(!keptOut.writableEnded);
    assert.equal(events.open, 1);
    events.openStream(key('A'), IP, new PassThrough());
  });

  it('drops a reader that stopped reading instead of buffering for it', () => {
    const events = live();
    const stalled = new PassThrough({ highWaterMark: 1024 });
    events.openStream(key('A'), IP, stalled);
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
    events.openStream(key('A'), IP, out);
    events.stop();
    assert.match(read(out), /event: closing\ndata: \{"reason":"shutdown"\}/);
    assert.ok(out.writableEnded);
    assert.throws(() => events.openStream(key('A'), IP, new PassThrough()), refusal('service_unavailable'));
  });

  it('opens no stream before the feed listens', () => {
    const events = new LiveEvents(LIMITS, Date.now, nothingLapsed);
    assert.throws(() => events.openStream(key('A'), IP, new PassThrough()), refusal('service_unavailable'));
  });
});
