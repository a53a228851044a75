import type { Writable } from 'node:stream';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's open live streams (`GET /v1/manage/stream`). */
    liveEvents: LiveEvents;
  }
}

/** The channel of `db/functions/notify_live_event.sql`: a business's bookings, deposits, waitlist and blocks. */
export const LIVE_CHANNEL = 'slotwise_events';

/** One change as a stream sends it: ids and types only. */
export interface LiveEvent {
  type: string;
  id: string;
  business_id: string;
  booking_date?: string;
  /** A deposit's (or a waitlist entry's) booking. */
  booking_id?: string;
  /** When this process heard of the change, a moment after its commit. */
  at: string;
}

/** Why the server ends a stream; sent as the data of a last `closing` event. */
export type ClosingReason = 'token_expired' | 'shutdown' | 'feed_lost';

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
  perProcess: number;
  heartbeatMs: number;
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
  readonly businessId: string;
  private readonly out: Writable;
  private readonly onEnd: () => void;

  constructor(businessId: string, out: Writable, limits: StreamLimits, onEnd: () => void) {
    this.businessId = businessId;
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
    this.write(sseFrame('ready', { business_id: this.businessId }, ++this.sequence));
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

/**
 * The process's open streams, by business, and the fan-out of the change notifications every
 * process hears on its one LISTEN connection (`LIVE_CHANNEL`). No stream opens while that
 * connection is down, and when it goes down every stream ends: events missed meanwhile would
 * leave a dashboard silently stale, whereas a reconnecting one reloads what it shows.
 */
export class LiveEvents {
  private readonly byBusiness = new Map<string, Set<LiveStream>>();
  private count = 0;
  private listening = false;
  private stopping = false;
  readonly limits: StreamLimits;
  private readonly now: () => number;

  constructor(limits: StreamLimits, now: () => number) {
    this.limits = limits;
    this.now = now;
  }

  get open(): number {
    return this.count;
  }

  /** A stream for the business on `out`, or the refusal (past the caps, not listening, stopping). */
  openStream(businessId: string, out: Writable, expiresAt: number | undefined): LiveStream {
    if (this.stopping || !this.listening) {
      throw new AppError('service_unavailable', 'live updates are not available now; try again shortly');
    }
    if (this.count >= this.limits.perProcess) {
      throw new AppError('service_unavailable', 'this server has as many live streams open as it takes');
    }
    const streams = this.byBusiness.get(businessId) ?? new Set<LiveStream>();
    if (streams.size >= this.limits.perBusiness) {
      throw new AppError(
        'rate_limit_exceeded',
        `at most ${this.limits.perBusiness} live streams may be open at once for one business`,
      );
    }
    this.byBusiness.set(businessId, streams);
    const stream = new LiveStream(businessId, out, this.limits, () => {
      this.count--;
      streams.delete(stream);
      if (streams.size === 0 && this.byBusiness.get(businessId) === streams)
        this.byBusiness.delete(businessId);
    });
    streams.add(stream);
    this.count++;
    if (expiresAt !== undefined) stream.expireAt(expiresAt, this.now());
    return stream;
  }

  /** A notification of `LIVE_CHANNEL`, sent to the business's streams in this process. */
  apply(payload: string): void {
    const event = parseLivePayload(payload, new Date(this.now()));
    if (!event) return;
    const streams = this.byBusiness.get(event.business_id);
    if (!streams) return;
    for (const stream of [...streams]) stream.send(event);
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
    this.closeAll('shutdown');
  }

  private closeAll(reason: ClosingReason): void {
    for (const streams of [...this.byBusiness.values()])
      for (const stream of [...streams]) stream.close(reason);
  }
}
