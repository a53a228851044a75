import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small local stand-in for Stripe's HTTP API: the endpoints `StripeProcessor` calls, answered in
 * Stripe's JSON shapes and error shape, so tests run the real SDK against it. It reads the SDK's
 * form bodies (`a[b][0][c]=`), replays the first answer to a repeated `Idempotency-Key` (a
 * different body under the same key is Stripe's `idempotency_error`), records every request, and
 * can be told to fail or decline. A saved card `pm_card_chargeDeclined` is always declined, as in
 * Stripe's test mode.
 */

type Json = Record<string, unknown>;
type Form = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  body: Form;
  idempotencyKey: string | undefined;
}

interface Answer {
  status: number;
  body: Json;
}

class StripeFailure extends Error {
  readonly status: number;
  readonly body: Json;
  constructor(status: number, error: Json) {
    super(String(error.message));
    this.status = status;
    this.body = { error };
  }
}

const invalid = (code: string, message: string, extra: Json = {}) =>
  new StripeFailure(400, { type: 'invalid_request_error', code, message, ...extra });
const missing = (what: string, id: string) =>
  new StripeFailure(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${what}: '${id}'`,
  });

/** `a[b][0][c]=v` pairs as nested objects; objects keyed 0, 1, ... become arrays. */
export function parseForm(text: string): Form {
  const root: Form = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root;
    for (const [index, part] of path.entries()) {
      if (index === path.length - 1) {
        node[part] = value;
      } else {
        node[part] ??= {};
        node = node[part] as Form;
      }
    }
  }
  return arraysOf(root) as Form;
}

function arraysOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Form).map(([k, v]) => [k, arraysOf(v)] as const);
  const indexed = entries.length > 0 && entries.every(([k], i) => k === String(i));
  return indexed ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const objectId = (prefix: string) =>
  `${prefix}_${[...randomBytes(24)].map((byte) => ALPHABET[byte % ALPHABET.length]).join('')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly objects = new Map<string, Json>();
  private readonly answers = new Map<string, { fingerprint: string; answer: Answer }>();
  private failures: Answer[] = [];
  private declines = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `count` requests answer 500 `api_error` (the SDK retries those). */
  failNext(count = 1, status = 500): void {
    for (let i = 0; i < count; i++) {
      this.failures.push({
        status,
        body: { error: { type: 'api_error', message: 'An unexpected error occurred (fake).' } },
      });
    }
  }

  /** The next `count` payments confirmed at creation are declined, whatever the card. */
  declineNext(count = 1): void {
    this.declines += count;
  }

  /** Requests of one method and path pattern, e.g. `('POST', /\/capture$/)`. */
  requestsTo(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /** What the account's owner does on Stripe's onboarding pages. */
  completeOnboarding(accountId: string): Json {
    const account = this.objects.get(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    Object.assign(account, { details_submitted: true, charges_enabled: true, payouts_enabled: true });
    return account;
  }

  /**
   * What the payer does on Stripe's checkout page of a plan: the session completes and an active
   * subscription with the session's metadata exists. The events about them are the test's to send.
   */
  completeSubscriptionCheckout(sessionId: string): { session: Json; subscription: Json } {
    const session = this.objects.get(sessionId);
    if (session?.object !== 'checkout.session' || session.status !== 'open') {
      throw new Error(`no open checkout session ${sessionId}`);
    }
    const start = nowSeconds();
    const subscription = this.store({
      id: objectId('sub'),
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      items: {
        object: 'list',
        data: [{ current_period_start: start, current_period_end: start + 30 * 86_400 }],
      },
      metadata: session.metadata,
      created: start,
      livemode: false,
    });
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: subscription.id });
    return { session, subscription };
  }

  reset(): void {
    this.requests.length = 0;
    this.objects.clear();
    this.answers.clear();
    this.failures = [];
    this.declines = 0;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    const method = request.method ?? 'GET';
    const body = method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(text);
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method, path: url.pathname, body, idempotencyKey });
    const send = (answer: Answer, replayed = false) => {
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(6).toString('hex')}`,
        ...(replayed && { 'idempotent-replayed': 'true' }),
      });
      response.end(JSON.stringify(answer.body));
    };
    if (!request.headers.authorization?.startsWith('Bearer sk_')) {
      return send({
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } },
      });
    }
    const failure = this.failures.shift();
    if (failure) return send(failure);
    const fingerprint = `${method} ${url.pathname} ${text}`;
    const earlier = idempotencyKey && method === 'POST' ? this.answers.get(idempotencyKey) : undefined;
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) {
        return send({
          status: 400,
          body: {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
            },
          },
        });
      }
      return send(earlier.answer, true);
    }
    let answer: Answer;
    try {
      answer = { status: 200, body: this.route(method, url.pathname, body) };
    } catch (error) {
      if (!(error instanceof StripeFailure)) throw error;
      answer = { status: error.status, body: error.body };
    }
    if (idempotencyKey && method === 'POST') this.answers.set(idempotencyKey, { fingerprint, answer });
    send(answer);
  }

  private store(object: Json): Json {
    this.objects.set(object.id as string, object);
    return object;
  }

  private find(id: string, type: string, what: string): Json {
    const object = this.objects.get(id);
    if (object?.object !== type) throw missing(what, id);
    return object;
  }

  private route(method: string, path: string, body: Form): Json {
    const parts = path.split('/').filter(Boolean);
    // Two resources have two-segment names: /v1/checkout/sessions, /v1/billing_portal/sessions.
    if (parts[1] === 'checkout' || parts[1] === 'billing_portal')
      parts.splice(1, 2, `${parts[1]}/${parts[2]}`);
    const [version, resource, id, action] = parts;
    if (version !== 'v1') throw invalid('url_invalid', `Unrecognized request URL (${method}: ${path})`);
    const key = `${method} ${resource}${id ? '/:id' : ''}${action ? `/${action}` : ''}`;
    switch (key) {
      case 'POST payment_intents':
        return this.createPaymentIntent(body);
      case 'GET payment_intents/:id':
        return this.find(id!, 'payment_intent', 'payment_intent');
      case 'POST payment_intents/:id/capture':
        return this.movePaymentIntent(id!, ['requires_capture'], (pi) => ({
          status: 'succeeded',
          amount_received: pi.amount,
          amount_capturable: 0,
        }));
      case 'POST payment_intents/:id/cancel':
        return this.movePaymentIntent(
          id!,
          ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'],
          () => ({ status: 'canceled', amount_capturable: 0 }),
        );
      case 'POST setup_intents':
        return this.createSetupIntent(body);
      case 'POST refunds':
        return this.createRefund(body);
      case 'POST checkout/sessions':
        return this.createCheckoutSession(body);
      case 'POST checkout/sessions/:id/expire': {
        const session = this.find(id!, 'checkout.session', 'checkout.session');
        if (session.status !== 'open') {
          throw invalid('', `Only Checkout Sessions with a status in ["open"] can be expired.`);
        }
        return Object.assign(session, { status: 'expired' });
      }
      case 'DELETE subscriptions/:id': {
        const subscription = this.find(id!, 'subscription', 'subscription');
        if (subscription.status === 'canceled') {
          throw invalid('', `A canceled subscription can only update its cancellation_details and metadata.`);
        }
        const now = nowSeconds();
        return Object.assign(subscription, { status: 'canceled', canceled_at: now, ended_at: now });
      }
      case 'POST customers':
        return this.store({
          id: objectId('cus'),
          object: 'customer',
          email: body.email ?? null,
          name: body.name ?? null,
          metadata: body.metadata ?? {},
          created: nowSeconds(),
          livemode: false,
        });
      case 'POST billing_portal/sessions': {
        this.find(String(body.customer), 'customer', 'customer');
        const portal = objectId('bps');
        return this.store({
          id: portal,
          object: 'billing_portal.session',
          customer: body.customer,
          return_url: body.return_url,
          url: `https://billing.stripe.com/p/session/test_${portal}`,
          created: nowSeconds(),
          livemode: false,
        });
      }
      case 'POST accounts':
        return this.store({
          id: objectId('acct'),
          object: 'account',
          type: body.type ?? 'express',
          email: body.email ?? null,
          details_submitted: false,
          charges_enabled: false,
          payouts_enabled: false,
          metadata: body.metadata ?? {},
          created: nowSeconds(),
        });
      case 'GET accounts/:id':
        return this.find(id!, 'account', 'account');
      case 'POST account_links': {
        const account = this.find(String(body.account), 'account', 'account');
        if (body.type !== 'account_onboarding') throw invalid('parameter_invalid_string', 'Invalid type');
        return {
          object: 'account_link',
          url: `https://connect.stripe.com/setup/e/${account.id}/${objectId('link')}`,
          expires_at: nowSeconds() + 300,
          created: nowSeconds(),
        };
      }
      default:
        throw invalid('url_invalid', `Unrecognized request URL (${method}: ${path})`);
    }
  }

  private createPaymentIntent(body: Form): Json {
    if (!body.currency) throw invalid('parameter_missing', 'Missing required param: currency.');
    if (!(Number(body.amount) >= 50)) {
      throw invalid('amount_too_small', 'Amount must be at least €0.50 eur', { param: 'amount' });
    }
    const id = objectId('pi');
    const manual = body.capture_method === 'manual';
    const confirm = body.confirm === 'true';
    const declined = confirm && (body.payment_method === 'pm_card_chargeDeclined' || this.declines > 0);
    if (declined && this.declines > 0) this.declines--;
    const amount = Number(body.amount);
    const status =
      !confirm || declined ? 'requires_payment_method' : manual ? 'requires_capture' : 'succeeded';
    const error = {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    };
    const intent = this.store({
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: status === 'requires_capture' ? amount : 0,
      amount_received: status === 'succeeded' ? amount : 0,
      currency: body.currency,
      capture_method: body.capture_method ?? 'automatic_async',
      client_secret: `${id}_secret_${objectId('x').slice(2)}`,
      customer: body.customer ?? null,
      payment_method: body.payment_method ?? null,
      metadata: body.metadata ?? {},
      status,
      transfer_data: body.transfer_data ?? null,
      last_payment_error: declined ? error : null,
      created: nowSeconds(),
      livemode: false,
    });
    if (declined) throw new StripeFailure(402, { ...error, payment_intent: intent });
    return intent;
  }

  private movePaymentIntent(id: string, from: string[], changes: (intent: Json) => Json): Json {
    const intent = this.find(id, 'payment_intent', 'payment_intent');
    if (!from.includes(String(intent.status))) {
      throw invalid(
        'payment_intent_unexpected_state',
        `This PaymentIntent's status is ${intent.status}; the operation is not allowed.`,
        { payment_intent: intent },
      );
    }
    return Object.assign(intent, changes(intent));
  }

  private createSetupIntent(body: Form): Json {
    const id = objectId('seti');
    return this.store({
      id,
      object: 'setup_intent',
      client_secret: `${id}_secret_${objectId('x').slice(2)}`,
      customer: body.customer ?? null,
      usage: body.usage ?? 'off_session',
      payment_method: null,
      metadata: body.metadata ?? {},
      status: 'requires_payment_method',
      created: nowSeconds(),
      livemode: false,
    });
  }

  private createRefund(body: Form): Json {
    const intent = this.find(String(body.payment_intent), 'payment_intent', 'payment_intent');
    if (intent.status !== 'succeeded') {
      throw invalid('payment_intent_unexpected_state', 'This PaymentIntent has no charge to refund.');
    }
    return this.store({
      id: objectId('re'),
      object: 'refund',
      amount: intent.amount_received,
      payment_intent: intent.id,
      status: 'succeeded',
      created: nowSeconds(),
    });
  }

  private createCheckoutSession(body: Form): Json {
    const items = (body.line_items ?? []) as { price_data?: { unit_amount?: string; currency?: string } }[];
    const price = items[0]?.price_data;
    if (!price?.unit_amount || !body.success_url) {
      throw invalid('parameter_missing', 'Missing required param: line_items[0][price_data].');
    }
    if (body.mode === 'subscription' && !body.customer && !body.customer_email) {
      throw invalid('parameter_missing', 'Missing required param: customer.');
    }
    const id = objectId('cs_test');
    return this.store({
      id,
      object: 'checkout.session',
      mode: body.mode,
      amount_total: Number(price.unit_amount) * Number((items[0] as { quantity?: string }).quantity ?? 1),
      currency: price.currency,
      customer: body.customer ?? null,
      customer_email: body.customer_email ?? null,
      expires_at: body.expires_at ? Number(body.expires_at) : nowSeconds() + 86_400,
      metadata: body.metadata ?? {},
      payment_intent: null,
      subscription: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      created: nowSeconds(),
      livemode: false,
    });
  }
}

export const startFakeStripe = () => new FakeStripe().start();
