import { once } from 'node:events';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from './errors.ts';
import { isAccountRoute, routeOf } from './route-info.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limits' Redis connection when `REDIS_URL` is set (readiness asks it too). */
    redis?: Redis;
  }
}

/** Requests per fixed one-minute window. */
export const RATE_LIMITS = {
  bookingCreation: 60,
  authenticated: 600,
  anonymousPerIp: 300,
  accountsPerIp: 300,
  guestBookingPerIp: 10,
} as const;
const WINDOW_MS = 60_000;
/** The window of the per-IP limit of online bookings made with a publishable key. */
const PUBLIC_BOOKING_WINDOW_MS = 3_600_000;

interface Quota {
  bucket: string;
  max: number;
}

/**
 * Probes and the API reference must never be refused, nor the payment processor's events: they
 * come in bursts from a few addresses, a refused one only comes back later, and a forged one costs
 * one signature check before anything else happens.
 */
export function isUnlimitedRoute(route: string | undefined): boolean {
  return (
    route === '/healthz' ||
    route === '/webhooks/payments' ||
    route === '/readyz' ||
    route === '/livez' ||
    route === '/openapi.json' ||
    route === '/docs' ||
    (route?.startsWith('/docs/') ?? false)
  );
}
const isUnlimited = (request: FastifyRequest) => isUnlimitedRoute(routeOf(request));

/** The client address that limits count per: an IPv6 client by its /64 network, as the rate limits count it. */
export const clientAddress = (request: FastifyRequest): string => normalizeIP(request.ip);

/** Online booking creation, on the slot grid or in dynamic mode: one bucket for both. */
export const ONLINE_BOOKING_ROUTES: ReadonlySet<string> = new Set(['/v1/bookings', '/v1/dynamic/bookings']);
const isBookingCreation = (request: FastifyRequest) =>
  request.method === 'POST' && ONLINE_BOOKING_ROUTES.has(routeOf(request) ?? '');

/**
 * Online booking creation without a secret credential (a publishable key: the hosted page, a
 * widget). Such a key is public, so a script could book a business's month away from many
 * addresses: each client IP may book each business only so often an hour.
 */
const isPublicBookingCreation = (request: FastifyRequest) =>
  request.principal?.kind === 'publishable_key' && isBookingCreation(request);

/** A guest's own booking, found by its code and their email or phone: guessing must stay slow. */
const GUEST_BOOKING_ROUTES = new Set([
  '/v1/public/bookings/:confirmation_code',
  '/v1/public/bookings/:confirmation_code/cancel',
  '/v1/public/bookings/:confirmation_code/change',
]);

/**
 * The counter a request is charged to. Booking creation has a bucket of its own so a burst of
 * bookings cannot starve the key's other calls; a key with its own figure has one bucket for all.
 */
function quotaOf(request: FastifyRequest): Quota {
  // Sign-up, login and refresh have a per-IP bucket of their own: it bounds password guessing
  // without competing with the public reads of the same client.
  if (isAccountRoute(request)) {
    return { bucket: `accounts:ip:${normalizeIP(request.ip)}`, max: RATE_LIMITS.accountsPerIp };
  }
  // Per client IP whatever the credential: a publishable key or a secret one must not widen it.
  if (GUEST_BOOKING_ROUTES.has(routeOf(request) ?? '')) {
    return { bucket: `guest-bookings:ip:${normalizeIP(request.ip)}`, max: RATE_LIMITS.guestBookingPerIp };
  }
  const principal = request.principal;
  if (!principal) return { bucket: `ip:${normalizeIP(request.ip)}`, max: RATE_LIMITS.anonymousPerIp };
  // A publishable key is shared by every visitor of a web page: each client IP counts on its own.
  const credential =
    principal.kind === 'publishable_key'
      ? `${principal.credentialId}:ip:${normalizeIP(request.ip)}`
      : principal.credentialId;
  if (principal.rateLimitPerMinute !== null) {
    return { bucket: credential, max: principal.rateLimitPerMinute };
  }
  if (isBookingCreation(request)) {
    return { bucket: `${credential}:bookings`, max: RATE_LIMITS.bookingCreation };
  }
  return { bucket: credential, max: RATE_LIMITS.authenticated };
}

/** A Redis command not answered in this long counts as Redis being gone. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_CONNECT_TIMEOUT_MS = 2000;
/** While Redis is gone it is asked this often whether it is back; no request waits for it meanwhile. */
const REDIS_PROBE_MS = 1000;

/**
 * Redis behind a circuit breaker. While Redis is gone (its connection down, or a command failed or
 * timed out) the limits fail open at once, without asking it; ioredis reconnects in the
 * background and a probe closes the breaker when Redis answers a PING again, so counting resumes.
 * The outage is logged when it begins and when it ends, not for each request.
 */
class RedisBreaker {
  private readonly redis: Redis;
  private readonly log: FastifyBaseLogger;
  private probe: NodeJS.Timeout | undefined;
  private lastError: unknown;

  constructor(redis: Redis, log: FastifyBaseLogger) {
    this.redis = redis;
    this.log = log;
    redis.on('error', (error) => {
      this.lastError = error;
    });
  }

  /**
   * Waits a moment for the first connection, so counting starts with the first request; a Redis
   * that refuses or does not answer in time is left to the breaker.
   */
  async firstConnection(): Promise<void> {
    await once(this.redis, 'ready', { signal: AbortSignal.timeout(REDIS_CONNECT_TIMEOUT_MS) }).catch(
      () => {},
    );
  }

  get isOpen(): boolean {
    return this.probe !== undefined;
  }

  /** Whether a request may ask Redis; trips the breaker when the connection is down. */
  allows(): boolean {
    if (this.isOpen) return false;
    if (this.redis.status === 'ready') return true;
    this.trip(this.lastError);
    return false;
  }

  trip(error: unknown): void {
    if (this.isOpen) return;
    this.log.error(
      { err: error },
      'rate limit store (Redis) unreachable: limits let every request through until it is back',
    );
    const since = Date.now();
    this.probe = setInterval(() => {
      if (this.redis.status !== 'ready') return;
      this.redis.ping().then(
        () => {
          if (!this.isOpen) return;
          clearInterval(this.probe);
          this.probe = undefined;
          this.log.info(
            { lasted_ms: Date.now() - since },
            'rate limit store (Redis) is back: limits count again',
          );
        },
        () => {},
      );
    }, REDIS_PROBE_MS);
    this.probe.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.probe);
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

export interface RateLimitRules {
  /**
   * The online bookings a client IP may make per hour with a publishable key of the business (its
   * setting `public_bookings_per_ip_per_hour`); null when the business is not known.
   */
  publicBookingsPerHour(businessId: string): Promise<number | null>;
}

/** A request counted on a limiter: how far its window has gone. */
type LimitState = Extract<
  Awaited<ReturnType<ReturnType<FastifyInstance['createRateLimit']>>>,
  { isAllowed: false }
>;

/**
 * Fixed one-minute windows per credential (per client IP without one), counted in Redis when
 * `REDIS_URL` is set so that every process shares the limit, in memory otherwise. The check runs
 * in `preValidation`, the first point where the route's own auth hook has named the principal;
 * requests turned away before it (bad credentials, malformed bodies) are still counted, in `onSend`.
 * Online bookings made with a publishable key also count in a one-hour window per client IP and
 * business, whose size the business sets.
 */
export async function registerRateLimit(app: FastifyInstance, rules: RateLimitRules): Promise<void> {
  const { redisUrl, redisKeyPrefix } = app.config;
  let redis: Redis | undefined;
  let breaker: RedisBreaker | undefined;
  if (redisUrl) {
    redis = new Redis(redisUrl, {
      // A command while disconnected fails at once instead of waiting for a reconnection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    });
    // Readiness asks this connection whether Redis answers.
    app.decorate('redis', redis);
    breaker = new RedisBreaker(redis, app.log);
    await breaker.firstConnection();
    const closing = breaker;
    app.addHook('onClose', () => closing.close());
  }

  /** The quota `keyGenerator` found, which `max` then reads: worked out once per request. */
  const quotas = new WeakMap<FastifyRequest, Quota>();
  await app.register(rateLimit, {
    global: false,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => {
      const quota = quotaOf(request);
      quotas.set(request, quota);
      return quota.bucket;
    },
    max: (request) => quotas.get(request)?.max ?? quotaOf(request).max,
    redis,
    nameSpace: `${redisKeyPrefix}rate:`,
    // Without Redis, the buckets kept in memory, least recently counted dropped first: about 340
    // bytes each on the heap, so at most about 32 MB however many clients call.
    cache: 100_000,
  });
  const consume = app.createRateLimit();
  /** The hourly counter of a request's public booking, as `publicBookingQuota` found it. */
  const hourly = new WeakMap<FastifyRequest, Quota>();
  const consumeHourly = app.createRateLimit({
    timeWindow: PUBLIC_BOOKING_WINDOW_MS,
    keyGenerator: (request) => hourly.get(request)!.bucket,
    max: (request) => hourly.get(request)!.max,
  });
  const charged = new WeakSet<FastifyRequest>();

  /** Counts the request on one limiter; null when the store cannot be asked (the limits fail open). */
  async function count(request: FastifyRequest, limiter: typeof consume): Promise<LimitState | null> {
    if (breaker && !breaker.allows()) return null;
    try {
      const state = await limiter(request);
      return state.isAllowed ? null : state;
    } catch (error) {
      if (breaker) breaker.trip(error);
      else request.log.warn({ err: error }, 'rate limit store failed; the request is let through');
      return null;
    }
  }

  /** The RateLimit-* headers of the limit closest to refusing the request. */
  function setHeaders(reply: FastifyReply, state: LimitState | null, other: LimitState | null = null): void {
    const closest = state === null || (other !== null && other.remaining < state.remaining) ? other : state;
    if (closest === null) return;
    reply.header('RateLimit-Limit', closest.max);
    reply.header('RateLimit-Remaining', closest.remaining);
    reply.header('RateLimit-Reset', resetSecondsOf(closest));
  }
  const resetSecondsOf = (state: LimitState) => Math.max(1, state.ttlInSeconds);

  /** The hourly counter of a public booking: per business and client IP, sized by the business. */
  async function publicBookingQuota(request: FastifyRequest): Promise<Quota | null> {
    const businessId = request.principal?.businessId;
    if (!businessId || !isPublicBookingCreation(request)) return null;
    const max = await rules.publicBookingsPerHour(businessId);
    if (max === null) return null;
    return { bucket: `public-bookings:${businessId}:ip:${normalizeIP(request.ip)}`, max };
  }

  /** A limit the request went past, and what it is, for the 429. */
  interface Exceeded {
    state: LimitState;
    what: string;
  }

  /**
   * Counts the request and sets the RateLimit-* headers; answers the limit it went past. Only the
   * check before the handler refuses: a request already answered (a credential refused, a body
   * that does not parse, the database out of reach) keeps its own status and `Retry-After`.
   */
  async function charge(request: FastifyRequest, reply: FastifyReply): Promise<Exceeded | null> {
    charged.add(request);
    const state = await count(request, consume);
    if (state?.isExceeded) {
      setHeaders(reply, state);
      return { state, what: `rate limit of ${quotaOf(request).max} requests per minute exceeded` };
    }
    const quota = isPublicBookingCreation(request) ? await publicBookingQuota(request) : null;
    if (quota) hourly.set(request, quota);
    const hourState = quota ? await count(request, consumeHourly) : null;
    setHeaders(reply, state, hourState);
    if (quota && hourState?.isExceeded) {
      return {
        state: hourState,
        what: `at most ${quota.max} bookings an hour may be made online from one client for this business`,
      };
    }
    return null;
  }

  function refusal(reply: FastifyReply, { state, what }: Exceeded): AppError {
    const retryAfter = resetSecondsOf(state);
    reply.header('Retry-After', retryAfter);
    return new AppError('rate_limit_exceeded', `${what}; retry in ${retryAfter} s`);
  }

  app.addHook('preValidation', async (request, reply) => {
    if (isUnlimited(request)) return;
    const exceeded = await charge(request, reply);
    if (exceeded) throw refusal(reply, exceeded);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!charged.has(request) && !isUnlimited(request)) await charge(request, reply);
    return payload;
  });
}
