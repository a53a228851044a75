import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestContext } from '../../test/helpers.ts';
import { buildApp } from '../app.ts';

let ctx: TestContext;
let logged: FastifyInstance;
const lines: string[] = [];
before(async () => {
  ctx = await createTestApp();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  logged = await buildApp({ config: ctx.config, database: ctx.database, logger: { level: 'info', stream } });
  await logged.ready();
});
after(async () => {
  await logged.close();
  await ctx.close();
});

describe('request log', () => {
  it('writes one line per request, once it is answered, with its method, URL, status and time', async () => {
    await logged.inject({ method: 'GET', url: '/v1/no-such-route?x=one-line' });
    const requests = lines.filter((line) => line.includes('one-line')).map((line) => JSON.parse(line));
    assert.equal(requests.length, 1, lines.join(''));
    assert.equal(requests[0].msg, 'request completed');
    assert.equal(requests[0].req.method, 'GET');
    assert.equal(requests[0].req.url, '/v1/no-such-route?x=one-line');
    assert.equal(requests[0].res.statusCode, 404);
    assert.equal(typeof requests[0].responseTime, 'number');
  });

  it('writes the URL of a request without the client secret it carries', async () => {
    await logged.inject({
      method: 'GET',
      url: '/simulated-processor/payment_intents/pi_123?client_secret=pi_123_secret_abcdef&x=1',
    });
    const requests = lines.filter((line) => line.includes('/simulated-processor/payment_intents/pi_123'));
    assert.ok(requests.length > 0, lines.join(''));
    for (const line of requests) {
      assert.ok(!line.includes('pi_123_secret_abcdef'), line);
      assert.ok(line.includes('client_secret=[redacted]&x=1'), line);
    }
  });

  it("writes the URL of the invitation page without the link's token", async () => {
    await logged.inject({ method: 'GET', url: '/staff/accept?token=inv1tat10nT0ken&x=1' });
    const requests = lines.filter((line) => line.includes('/staff/accept'));
    assert.ok(requests.length > 0, lines.join(''));
    for (const line of requests) {
      assert.ok(!line.includes('inv1tat10nT0ken'), line);
      assert.ok(line.includes('token=[redacted]&x=1'), line);
    }
  });

  it("writes the URL of a calendar feed without the feed's token", async () => {
    await logged.inject({ method: 'GET', url: '/calendar/fe3dT0kenfe3dT0ken.ics' });
    const requests = lines.filter((line) => line.includes('/calendar/'));
    assert.ok(requests.length > 0, lines.join(''));
    for (const line of requests) {
      assert.ok(!line.includes('fe3dT0ken'), line);
      assert.ok(line.includes('/calendar/[redacted]'), line);
    }
  });
});
