import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request the receiver got: its headers, raw body and parsed event. */
export interface Received {
  /** The path and query the request was sent to. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; created_at: string; business_id: string; data: Record<string, unknown> };
}

/** How the receiver answers its n-th request (from 1): a status and headers, or no answer at all. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A webhook receiver on 127.0.0.1 for the delivery tests. It answers as `answer` says (200 by
 * default) and keeps every request. A hanging request is answered only when the receiver closes.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (n: number, received: Received) => Answer = () => ({ status: 200 });
  private readonly hanging: ServerResponse[] = [];
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received = { path: request.url ?? '', headers: request.headers, body, event: JSON.parse(body) };
      this.received.push(received);
      const answer = this.answer(this.received.length, received);
      if (answer === 'hang') {
        this.hanging.push(response);
        return;
      }
      const send = () => response.writeHead(answer.status, answer.headers).end('ok');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** The types of the events received, in order of arrival. */
  types(): string[] {
    return this.received.map((r) => r.event.type);
  }

  /**
   * Forgets what the last test sent, including a request it sent that this receiver has not read
   * yet. A request cut off by its sender's timeout is already in the kernel, but a test process
   * that only awaited in-process work since (PGlite, `inject`) never polled for it, and the
   * receiver would read it during the next test. Three turns of the event loop accept the
   * connection, read the request and end it; then the answers still held are dropped.
   */
  async reset(): Promise<void> {
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    for (const response of this.hanging.splice(0)) response.destroy();
    this.received.length = 0;
    this.answer = () => ({ status: 200 });
  }

  async close(): Promise<void> {
    for (const response of this.hanging.splice(0)) response.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/**
 * Verifies a delivery as a receiver would: the Standard Webhooks signature with the
 * `standardwebhooks` package (an implementation independent of the service's) and the hex
 * `x-service-signature`, both with `secret`.
 */
export function assertSigned(received: Received, secret: string): void {
  const headers = {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  };
  assert.equal(headers['webhook-id'], received.event.id, 'webhook-id is the event id');
  const timestamp = Number(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - timestamp) <= 300) {
    assert.deepEqual(new Webhook(secret).verify(received.body, headers), received.event);
  } else {
    // The package judges the timestamp against the real clock; a test that moved the app's clock
    // far ahead compares the package's own signature instead.
    const expected = new Webhook(secret).sign(
      headers['webhook-id'],
      new Date(timestamp * 1000),
      received.body,
    );
    assert.ok(headers['webhook-signature'].split(' ').includes(expected), 'a v1 signature with the secret');
  }
  assert.equal(
    received.headers['x-service-signature'],
    createHmac('sha256', secret).update(received.body).digest('hex'),
    'x-service-signature is the hex HMAC-SHA256 of the raw body',
  );
}
