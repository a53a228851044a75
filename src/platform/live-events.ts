import type { Writable } from 'node:stream';
import type { Lapse, Principal } from './auth.ts';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's open live streams (`GET /v1/manage/stream`). */
    liveEvents: LiveEvents;
  }
}

/** One change as a stream sends it: ids and types only. */
export interface LiveEvent {
  type: string;
  id: string;
  business_id: string;
  booking_date?: string;
  /** A deposit's (or a waitlist entry's) booking. */
  booking_id?: string;
  /** When this process read the change from the log, a moment after its commit. */
  at: string;
}

/** Why the server ends a stream; sent as the data of a last `closing` event. */
export type ClosingReason = 'token_expired' | 'shutdown' | 'feed_lost' | Lapse;

/** `<business>:<type>:<id>:<date>:<booking>`, the last two possibly empty; null when malformed. */
export function parseLivePayload(payload: string, at: Date): LiveEvent | null {
  const [business, type, id, date, booking] = payload.split(':');
  if (!business || !type || !id) return null;
  const event: LiveEvent = { type, id, business_id: business, at: at.toISOString() };
  if (date) event.booking_date = date;
  if (booking) event.booking_id = booking;
  return event;
}

/** One SSE frame; `data` is JSON, so it never holds a line break. */
export const sseFrame = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export interface StreamLimits {
  perBusiness: number;
  perSandboxBusiness: number;
  /** Across the businesses of one developer. */
  perDeveloper: number;
  perIp: number;
  /** What the machine takes: past it 503, whoever asks. */
  perProcess: number;
  heartbeatMs: number;
  /** How often the credentials of the open streams are read again. */
  recheckMs: number;
}

/**
 * What a reader may leave unread before it is dropped: a few hundred events. A dashboard reloads
 * what it shows when it reconnects, so dropping it loses nothing it cannot get back, whereas
 * buffering without bound would let one stalled reader hold the process's memory.
 */
export const MAX_UNREAD_BYTES = 64 * 1024;

/** One open stream: its writes, heartbeat and end. */
export class LiveStream {
  private sequence = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private expiry: NodeJS.Timeout | undefined;
  private ended = false;
  readonly principal: Principal & { businessId: string };
  private readonly out: Writable;
  private readonly onEnd: () => void;

  constructor(
    principal: Principal & { businessId: string },
    out: Writable,
    limits: StreamLimits,
    onEnd: () => void,
  ) {
    this.principal = principal;
    this.out = out;
    this.onEnd = onEnd;
    this.heartbeat = setInterval(() => this.write(': ping\n\n'), limits.heartbeatMs);
    this.heartbeat.unref();
    out.once('close', () => this.finish());
  }

  /** Ends the stream when the credential does (a JWT's `exp`); the client reconnects with a fresh one. */
  expireAt(at: number, now: number): void {
    // setTimeout's longest wait is about 24.8 days; a credential outliving it never expires here.
    const wait = at - now;
    if (wait > 2 ** 31 - 1) return;
    this.expiry = setTimeout(() => this.close('token_expired'), Math.max(0, wait));
    this.expiry.unref();
  }

  send(event: LiveEvent): void {
    this.write(sseFrame(event.type, event, ++this.sequence));
  }

  start(): void {
    this.write(sseFrame('ready', { business_id: this.principal.businessId }, ++this.sequence));
  }

  close(reason: ClosingReason): void {
    if (this.ended) return;
    this.write(sseFrame('closing', { reason }));
    this.finish();
    this.out.end();
  }

  private write(chunk: string): void {
    if (this.ended) return;
    if (this.out.writableLength > MAX_UNREAD_BYTES) {
      this.finish();
      this.out.destroy();
      return;
    }
    this.out.write(chunk);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.expiry);
    this.onEnd();
  }
}

/** Of the principals given, those that no longer hold: `Authenticator.lapsed`. */
export type LapsedCheck = (principals: readonly Principal[]) => Promise<Map<Principal, Lapse>>;

/**
 * The process's open streams, by business, and the fan-out of the events every process reads from
 * the change log (`change_log.live`, platform/change-log.ts). No stream opens before the log is
 * read. A poll that fails loses nothing (the next one reads from where it stopped), so streams stay
 * open across a short outage; when the reader starts afresh (`down`: events may have been missed)
 * every stream ends, since a dashboard left silently stale is worse than one that reloads.
 *
 * A stream outlives the request that opened it, so its credential is read again every
 * `recheckMs`: one batched read for all the process's streams, straight from the database, so a
 * key revoked or a membership changed through any process ends its streams within that time.
 * Memberships announce no change on the feed, and a missed notification would leave a stream open
 * for good, whereas polling bounds the wait whatever happens (a few statements per interval).
 */
export class LiveEvents {
  private readonly byBusiness = new Map<string, Set<LiveStream>>();
  private readonly byDeveloper = new Map<string, number>();
  private readonly byIp = new Map<string, number>();
  private count = 0;
  private listening = false;
  private stopping = false;
  private checking = false;
  private readonly recheckTimer: NodeJS.Timeout;
  readonly limits: StreamLimits;
  private readonly now: () => number;
  private readonly lapsed: LapsedCheck;

  constructor(limits: StreamLimits, now: () => number, lapsed: LapsedCheck) {
    this.limits = limits;
    this.now = now;
    this.lapsed = lapsed;
    this.recheckTimer = setInterval(() => void this.recheckOnce(), limits.recheckMs);
    this.recheckTimer.unref();
  }

  get open(): number {
    return this.count;
  }

  /**
   * A stream for the principal's business on `out`, or the refusal: 429 past the caps of one
   * tenant (its business, its developer, its client address), so that one account cannot take
   * the places of others; 503 when the process is full, not listening or stopping.
   */
  openStream(principal: Principal & { businessId: string }, ip: string, out: Writable): LiveStream {
    if (this.stopping || !this.listening) {
      throw new AppError('service_unavailable', 'live updates are not available now; try again shortly');
    }
    const { businessId, developerId } = principal;
    const streams = this.byBusiness.get(businessId) ?? new Set<LiveStream>();
    const perBusiness = principal.sandbox ? this.limits.perSandboxBusiness : this.limits.perBusiness;
    if (streams.size >= perBusiness) {
      throw tooMany(`at most ${perBusiness} live streams may be open at once for one business`);
    }
    if (developerId !== null && (this.byDeveloper.get(developerId) ?? 0) >= this.limits.perDeveloper) {
      throw tooMany(
        `at most ${this.limits.perDeveloper} live streams may be open at once for one account's businesses`,
      );
    }
    if ((this.byIp.get(ip) ?? 0) >= this.limits.perIp) {
      throw tooMany(`at most ${this.limits.perIp} live streams may be open at once from one client address`);
    }
    if (this.count >= this.limits.perProcess) {
      throw new AppError('service_unavailable', 'this server has as many live streams open as it takes');
    }
    this.byBusiness.set(businessId, streams);
    const stream = new LiveStream(principal, out, this.limits, () => {
      this.count--;
      if (developerId !== null) countDown(this.byDeveloper, developerId);
      countDown(this.byIp, ip);
      streams.delete(stream);
      if (streams.size === 0 && this.byBusiness.get(businessId) === streams)
        this.byBusiness.delete(businessId);
    });
    streams.add(stream);
    this.count++;
    if (developerId !== null) this.byDeveloper.set(developerId, (this.byDeveloper.get(developerId) ?? 0) + 1);
    this.byIp.set(ip, (this.byIp.get(ip) ?? 0) + 1);
    if (principal.expiresAt !== undefined) stream.expireAt(principal.expiresAt, this.now());
    return stream;
  }

  /** A row's `live` of the change log, sent to the business's streams in this process. */
  apply(payload: string): void {
    const event = parseLivePayload(payload, new Date(this.now()));
    if (!event) return;
    const streams = this.byBusiness.get(event.business_id);
    if (!streams) return;
    for (const stream of [...streams]) stream.send(event);
  }

  /** Ends, saying why, the streams whose credential no longer holds. */
  async recheck(): Promise<void> {
    const streams = this.streams();
    if (streams.length === 0) return;
    const lapsed = await this.lapsed(streams.map((stream) => stream.principal));
    for (const stream of streams) {
      const reason = lapsed.get(stream.principal);
      if (reason) stream.close(reason);
    }
  }

  /**
   * One check at a time. A failed read (the database unreachable) ends nothing: the next interval
   * reads again, and a lost change feed ends every stream anyway.
   */
  private async recheckOnce(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.recheck();
    } catch {
      // read again at the next interval
    } finally {
      this.checking = false;
    }
  }

  up(): void {
    this.listening = true;
  }

  down(): void {
    this.listening = false;
    this.closeAll('feed_lost');
  }

  /** At shutdown: every stream ends at once, so none holds the graceful stop, and no new one opens. */
  stop(): void {
    this.stopping = true;
    clearInterval(this.recheckTimer);
    this.closeAll('shutdown');
  }

  private streams(): LiveStream[] {
    return [...this.byBusiness.values()].flatMap((streams) => [...streams]);
  }

  private closeAll(reason: ClosingReason): void {
    for (const stream of this.streams()) stream.close(reason);
  }
}

const tooMany = (message: string) => new AppError('rate_limit_exceeded', message);

function countDown(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
