import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, beforeEach } from 'node:test';
import { type TestContext, useTestApp } from './helpers.ts';

/**
 * A small local stand-in for Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`),
 * so tests run the real SDK against it: it records each call's form fields and basic-auth user and
 * password, answers Twilio's message JSON, and can be told to answer the next calls with an error
 * status and Twilio's error shape.
 */
export interface RecordedSms {
  accountSid: string;
  username: string;
  password: string;
  form: Record<string, string>;
}

export class FakeTwilio {
  readonly calls: RecordedSms[] = [];
  private server: Server | undefined;
  private failures: number[] = [];

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
    // Longer than the SDK's client keeps an idle connection (Node's agent: 5 s), so the client
    // always ends one first. At 5 s each, this server's timer, set first, could close a connection
    // just as the client sent on it: ECONNRESET, an SMS left for its retry a minute later.
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next calls are answered with these statuses, one each, before calls succeed again. */
  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  reset(): void {
    this.calls.length = 0;
    this.failures = [];
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(request.url ?? '');
    const json = (status: number, body: object) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || !match) {
      json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      return;
    }
    let text = '';
    for await (const chunk of request) text += chunk;
    const [username = '', password = ''] = Buffer.from(
      (request.headers.authorization ?? '').replace(/^Basic /, ''),
      'base64',
    )
      .toString()
      .split(':');
    const form = Object.fromEntries(new URLSearchParams(text));
    this.calls.push({ accountSid: match[1]!, username, password, form });
    const failure = this.failures.shift();
    if (failure) {
      json(failure, {
        code: failure === 400 ? 21211 : 20500,
        message:
          failure === 400
            ? `The 'To' number ${form.To} is not a valid phone number.`
            : 'Internal Server Error',
        more_info: 'https://www.twilio.com/docs/errors',
        status: failure,
      });
      return;
    }
    json(201, {
      sid: `SM${randomBytes(16).toString('hex')}`,
      account_sid: match[1],
      to: form.To,
      from: form.From ?? null,
      messaging_service_sid: form.MessagingServiceSid ?? null,
      body: form.Body,
      status: 'queued',
      num_segments: '1',
      date_created: new Date().toUTCString(),
    });
  }
}

/** An account and sender for the SDK pointed at the fake (with its `apiBase`). */
export const TEST_TWILIO = {
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  authToken: 'twilio-test-token',
  from: '+15005550006',
  messagingServiceSid: undefined,
};

/**
 * A test file's fake Twilio and an app whose SMS go to it, with the file's hooks: started before
 * its first test, emptied before each (and the app's clock the real one again after each),
 * stopped after the last.
 */
export function useTwilioApp(): { ctx: TestContext; twilio: FakeTwilio } {
  const twilio = new FakeTwilio();
  const ctx = useTestApp(async () => {
    await twilio.start();
    return { twilio: { ...TEST_TWILIO, apiBase: twilio.url } };
  });
  after(() => twilio.stop());
  beforeEach(() => twilio.reset());
  afterEach(() => {
    ctx.app.clock.now = () => Date.now();
  });
  return { ctx, twilio };
}
