import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from './errors.ts';
import { isAccountRoute, routeOf } from './route-info.ts';

/** Requests per fixed one-minute window. */
export const RATE_LIMITS = {
  bookingCreation: 60,
  authenticated: 600,
  anonymousPerIp: 300,
  accountsPerIp: 300,
  guestBookingPerIp: 10,
} as const;
const WINDOW_MS = 60_000;

interface Quota {
  bucket: string;
  max: number;
}

/**
 * Probes and the API reference must never be refused, nor the payment processor's events: they
 * come in bursts from a few addresses, a refused one only comes back later, and a forged one costs
 * one signature check before anything else happens.
 */
function isUnlimited(request: FastifyRequest): boolean {
  const route = routeOf(request);
  return (
    route === '/healthz' ||
    route === '/webhooks/payments' ||
    route === '/readyz' ||
    route === '/openapi.json' ||
    route === '/docs' ||
    (route?.startsWith('/docs/') ?? false)
  );
}

/** Online booking creation, on the slot grid or in dynamic mode: one bucket for both. */
const BOOKING_CREATION_ROUTES = new Set(['/v1/bookings', '/v1/dynamic/bookings']);
const isBookingCreation = (request: FastifyRequest) =>
  request.method === 'POST' && BOOKING_CREATION_ROUTES.has(routeOf(request) ?? '');

/** A guest's own booking, found by its code and their email or phone: guessing must stay slow. */
const GUEST_BOOKING_ROUTES = new Set([
  '/v1/public/bookings/:confirmation_code',
  '/v1/public/bookings/:confirmation_code/cancel',
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

/**
 * Fixed one-minute windows per credential (per client IP without one), counted in Redis when
 * `REDIS_URL` is set so that every process shares the limit, in memory otherwise. The check runs
 * in `preValidation`, the first point where the route's own auth hook has named the principal;
 * requests turned away before it (bad credentials, malformed bodies) are still counted, in `onSend`.
 */
export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  const { redisUrl, redisKeyPrefix } = app.config;
  let redis: Redis | undefined;
  if (redisUrl) {
    // One retry keeps a Redis outage from stalling requests: the limiter then lets calls through.
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate limit store unreachable'));
    const connection = redis;
    app.addHook('onClose', async () => {
      await connection.quit();
    });
  }

  await app.register(rateLimit, {
    global: false,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => quotaOf(request).bucket,
    max: (request) => quotaOf(request).max,
    redis,
    nameSpace: `${redisKeyPrefix}rate:`,
    cache: 100_000,
  });
  const consume = app.createRateLimit();
  const charged = new WeakSet<FastifyRequest>();

  /** Counts the request and sets the RateLimit-* headers; returns the seconds to wait when over the limit. */
  async function charge(request: FastifyRequest, reply: FastifyReply): Promise<number | null> {
    charged.add(request);
    let state: Awaited<ReturnType<typeof consume>>;
    try {
      state = await consume(request);
    } catch (error) {
      request.log.warn({ err: error }, 'rate limit store failed; the request is let through');
      return null;
    }
    if (state.isAllowed) return null;
    const resetSeconds = Math.max(1, state.ttlInSeconds);
    reply.header('RateLimit-Limit', state.max);
    reply.header('RateLimit-Remaining', state.remaining);
    reply.header('RateLimit-Reset', resetSeconds);
    return state.isExceeded ? resetSeconds : null;
  }

  app.addHook('preValidation', async (request, reply) => {
    if (isUnlimited(request)) return;
    const retryAfter = await charge(request, reply);
    if (retryAfter === null) return;
    reply.header('Retry-After', retryAfter);
    throw new AppError(
      'rate_limit_exceeded',
      `rate limit of ${quotaOf(request).max} requests per minute exceeded; retry in ${retryAfter} s`,
    );
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!charged.has(request) && !isUnlimited(request)) await charge(request, reply);
    return payload;
  });
}
