import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import { decrypt } from '../platform/secrets.ts';
import { signatureHeaders } from './signing.rules.ts';
import { type ResolvedAddress, UnresolvedHost, UnsafeTarget, type WebhookTargets } from './target.adapter.ts';
import {
  type ClaimedDelivery,
  claimDue,
  countUnfinishedDeliveries,
  type DeliveryOutcome,
  deleteOldDeliveries,
  recordOutcome,
  setEndpointStatus,
} from './webhooks.queries.ts';

export interface DispatcherOptions {
  /** How long an attempt may take, connection to answer. */
  timeoutMs?: number;
  /**
   * How long a claim is held. Longer than any attempt (resolving the host and the timeout), so a
   * live dispatcher's claim never lapses; a dead one's lapses and the delivery is sent again.
   */
  leaseMs?: number;
  /** Deliveries claimed, and sent side by side, at a time. */
  batchSize?: number;
}

const DEFAULTS = { timeoutMs: 10_000, leaseMs: 60_000, batchSize: 10 };
/** A receiver's `Retry-After` is honoured up to this far ahead. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** Each wait of the schedule is spread by up to this fraction either way, so retries do not come in waves. */
const JITTER = 0.1;
const RETENTION_MS = 30 * 86_400_000;

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/**
 * What the delivery log says of a failed attempt: a class, never the peer's own words (a TLS
 * alert, a banner, an address), which would make the log a way to probe other hosts' ports.
 */
export type FailureClass =
  | 'timeout'
  | 'connection_refused'
  | 'connection_error'
  | 'tls_error'
  | 'dns_error'
  | 'url_not_allowed'
  | `http_${number}`;

/** An attempt that failed before any answer, and why, by class. */
class AttemptFailed extends Error {
  readonly failure: FailureClass;

  constructor(failure: FailureClass, cause: unknown) {
    super(failure, { cause });
    this.failure = failure;
  }
}

/**
 * POSTs the body to `url`, connecting to `target` (the address that was checked) whatever the
 * host name resolves to by now. Redirects are not followed: a 3xx is an answer like any non-2xx.
 * The promise settles with the status line; the body is read and dropped.
 */
function post(
  url: URL,
  target: ResolvedAddress,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
) {
  return new Promise<Answer>((resolve, reject) => {
    const lookup = ((_hostname, options, callback) => {
      if (options.all) callback(null, [target]);
      else callback(null, target.address, target.family);
    }) as LookupFunction;
    const secure = url.protocol === 'https:';
    const client = secure ? https : http;
    let connected = false;
    let secured = false;
    let timedOut = false;
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const retryAfter = response.headers['retry-after'];
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        });
        response.on('close', () => clearTimeout(timer));
        response.resume();
      },
    );
    request.on('socket', (socket) => {
      socket.once('connect', () => (connected = true));
      socket.once('secureConnect', () => (secured = true));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Connected but never secured: the handshake failed (certificate, protocol, a peer that speaks no TLS).
      const failure: FailureClass = timedOut
        ? 'timeout'
        : error.code === 'ECONNREFUSED'
          ? 'connection_refused'
          : secure && connected && !secured
            ? 'tls_error'
            : 'connection_error';
      reject(new AttemptFailed(failure, error));
    });
    request.end(body);
  });
}

/** `Retry-After` as an instant: seconds from now, or an HTTP date. */
function retryAfterInstant(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return now + Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : date;
}

/** The class of an attempt's failure before any answer came. */
function failureOf(error: unknown): FailureClass {
  if (error instanceof AttemptFailed) return error.failure;
  if (error instanceof UnsafeTarget) return 'url_not_allowed';
  if (error instanceof UnresolvedHost) return 'dns_error';
  return 'connection_error';
}

/**
 * Sends what the outbox holds. Each run claims due deliveries (leased, `SKIP LOCKED`), posts them
 * outside any transaction and writes each outcome in a short one, until nothing is due. Any
 * number of dispatchers (server processes, `worker` processes) share the work; a delivery is
 * sent at least once, and again after its lease lapses if its dispatcher died mid-send.
 */
export class WebhookDispatcher {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly targets: WebhookTargets;
  private readonly sealKey: Buffer;
  private readonly retrySchedule: number[];
  private readonly log: FastifyBaseLogger;
  private readonly options: Required<DispatcherOptions>;
  /** Attempts that failed since start, by what followed: another try later, or none (metrics). */
  readonly failures = { retrying: 0, failed: 0 };

  constructor(deps: {
    db: Db;
    clock: Clock;
    targets: WebhookTargets;
    sealKey: Buffer;
    retrySchedule: number[];
    log: FastifyBaseLogger;
    options?: DispatcherOptions;
  }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.targets = deps.targets;
    this.sealKey = deps.sealKey;
    this.retrySchedule = deps.retrySchedule;
    this.log = deps.log;
    this.options = { ...DEFAULTS, ...deps.options };
  }

  /** Deliveries not yet finished (pending or to be retried), all businesses: the outbox's depth. */
  unfinished(): Promise<number> {
    return countUnfinishedDeliveries(this.db);
  }

  jobs(): Job[] {
    return [
      { name: 'webhook-deliveries', everyMs: 1_000, run: () => this.run() },
      { name: 'webhook-retention', everyMs: 3_600_000, run: () => this.forgetOld() },
    ];
  }

  /** Sends every delivery due now; answers how many attempts were made. */
  async run(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const now = this.clock.now();
      const claimed = await claimDue(
        this.db,
        new Date(now),
        new Date(now + this.options.leaseMs),
        this.options.batchSize,
      );
      if (claimed.length === 0) return attempts;
      await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
      attempts += claimed.length;
    }
  }

  /** Finished deliveries and their events are kept 30 days, as the delivery log shows them. */
  forgetOld(): Promise<number> {
    return deleteOldDeliveries(this.db, new Date(this.clock.now() - RETENTION_MS));
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const outcome = await this.attempt(delivery);
    if (outcome.status === 'retrying' || outcome.status === 'failed') this.failures[outcome.status]++;
    await withTx(this.db, async (tx) => {
      if (!(await recordOutcome(tx, delivery, outcome))) return;
      if (outcome.status === 'delivered')
        await setEndpointStatus(tx, delivery.business_id, delivery.endpoint_id, 'active');
      if (outcome.status === 'failed')
        await setEndpointStatus(tx, delivery.business_id, delivery.endpoint_id, 'failing');
    });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const now = this.clock.now();
    let answer: Answer;
    try {
      const url = new URL(delivery.url);
      const target = await this.targets.addressFor(url);
      const body = JSON.stringify({
        id: delivery.event_id,
        type: delivery.type,
        created_at: delivery.event_created_at.toISOString(),
        business_id: delivery.business_id,
        data: delivery.data,
      });
      const previousValid =
        delivery.previous_secret !== null &&
        delivery.previous_secret_expires_at !== null &&
        delivery.previous_secret_expires_at.getTime() > now;
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Slotwise-Webhooks/1',
        ...signatureHeaders({
          id: delivery.event_id,
          timestamp: Math.floor(now / 1000),
          body,
          secret: decrypt(this.sealKey, delivery.secret),
          previousSecret: previousValid ? decrypt(this.sealKey, delivery.previous_secret!) : undefined,
        }),
      };
      answer = await post(url, target, body, headers, this.options.timeoutMs);
    } catch (error) {
      const failure = failureOf(error);
      // The details stay in the service's own log, for its operators.
      if (failure !== 'url_not_allowed') {
        this.log.info(
          { err: error instanceof AttemptFailed ? error.cause : error, delivery: delivery.id, failure },
          'webhook attempt failed',
        );
      }
      return this.failure(delivery, now, null, failure, undefined);
    }
    if (answer.status >= 200 && answer.status < 300) {
      return {
        status: 'delivered',
        nextAttemptAt: null,
        responseCode: answer.status,
        error: null,
        deliveredAt: new Date(now),
      };
    }
    return this.failure(
      delivery,
      now,
      answer.status,
      `http_${answer.status}`,
      retryAfterInstant(answer.retryAfter, now),
    );
  }

  /**
   * After attempt n fails, the next waits the schedule's n-th step (with jitter), or until the
   * receiver's `Retry-After` when that is later; after the last step the delivery has failed.
   */
  private failure(
    delivery: ClaimedDelivery,
    now: number,
    responseCode: number | null,
    error: FailureClass,
    retryAfter: number | undefined,
  ): DeliveryOutcome {
    const wait = this.retrySchedule[delivery.attempts - 1];
    if (wait === undefined) {
      return { status: 'failed', nextAttemptAt: null, responseCode, error, deliveredAt: null };
    }
    const scheduled = now + wait * (1 - JITTER + 2 * JITTER * Math.random());
    const next = Math.max(scheduled, Math.min(retryAfter ?? 0, now + MAX_RETRY_AFTER_MS));
    return { status: 'retrying', nextAttemptAt: new Date(next), responseCode, error, deliveredAt: null };
  }
}
