import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyMetrics from 'fastify-metrics';
import { Counter, Gauge, Registry } from 'prom-client';
import { metricsListenError } from '../config.ts';
import { AppError, STATUS_OF_CODE, sendError } from './errors.ts';
import { ONLINE_BOOKING_ROUTES } from './rate-limit.ts';
import { routeOf } from './route-info.ts';
import { withTimeout } from './timeout.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The separate listener of `/metrics` when `METRICS_PORT` is set (it listens once the app is ready). */
    metricsServer: FastifyInstance | undefined;
  }
}

export const METRICS_ROUTE = '/metrics';
/** The route label of requests no route matched: one label, whatever the URL. */
const UNMATCHED = 'unmatched';
/** Routes that create a booking, counted as created or refused by the error code. */
const BOOKING_CREATION_ROUTES = new Set([
  ...ONLINE_BOOKING_ROUTES,
  '/v1/manage/bookings/staff',
  '/v1/sandbox/bookings',
]);
/** A scrape never waits longer than this for the database or the change feed. */
const PROBE_TIMEOUT_MS = 2000;

/** Resolves to the promise's value, or to undefined after `ms` (a stalled database stalls no scrape). */
const within = <T>(ms: number, promise: Promise<T>) => withTimeout(promise, ms, () => undefined);

/** The error code of a refused request, from its body; codes outside the contract collapse to one label. */
function errorCodeOf(payload: unknown): string {
  try {
    const code = (JSON.parse(String(payload)) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && code in STATUS_OF_CODE ? code : 'other';
  } catch {
    return 'other';
  }
}

/**
 * Headers by which a proxy tells who its client is. A proxy on this machine may set only one of
 * them (and not always `X-Forwarded-For`), and proxies name them in many ways (`Forwarded`,
 * `X-Forwarded-*`, `X-Original-Forwarded-For`, `X-Real-IP`, `True-Client-IP`, `Fastly-Client-IP`,
 * ...), so any of them, even empty, means "not from here".
 */
const isForwardingHeader = (name: string) =>
  name.includes('forwarded') ||
  name.endsWith('client-ip') ||
  name === 'x-real-ip' ||
  name === 'cf-connecting-ip';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Who may read `/metrics`. With `METRICS_TOKEN`, whoever sends it as a Bearer token. Without one,
 * only a client on this machine that came straight in (a loopback socket and no forwarding
 * header at all): behind a proxy on the same host every client looks local, and proxies add one.
 */
function metricsGuard(token: string | undefined) {
  const expected = token === undefined ? undefined : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const [scheme, given] = (request.headers.authorization ?? '').split(' ');
      if (scheme?.toLowerCase() === 'bearer' && given && timingSafeEqual(digest(given), expected)) return;
      return sendError(reply, new AppError('invalid_token', 'send the metrics token as a Bearer token'));
    }
    const address = request.socket.remoteAddress ?? '';
    const local = address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
    if (local && !Object.keys(request.headers).some(isForwardingHeader)) return;
    return sendError(reply, new AppError('not_found', `no route GET ${METRICS_ROUTE}`));
  };
}

/**
 * Prometheus metrics of this app, in a registry of its own (tests build many apps in one
 * process): request durations by route as routed (`fastify-metrics`), Node's own figures, and
 * the service's counters and gauges. What other parts count themselves (cache lookups, feed
 * reconnects, delivery failures, pool use) is read when scraped.
 */
export async function registerMetrics(app: FastifyInstance): Promise<void> {
  const registry = new Registry();
  const registers = [registry];
  await app.register(fastifyMetrics.default, {
    endpoint: null,
    defaultMetrics: { enabled: true, register: registry },
    routeMetrics: {
      enabled: { histogram: true, summary: false },
      registeredRoutesOnly: false,
      routeBlacklist: [METRICS_ROUTE],
      overrides: {
        labels: { getRouteLabel: (request) => routeOf(request) ?? UNMATCHED },
        histogram: { registers, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
        // Made even when disabled: kept out of prom-client's global registry all the same.
        summary: { registers },
      },
    },
  });

  const bookingsCreated = new Counter({
    name: 'slotwise_bookings_created_total',
    help: 'Bookings created, by route',
    labelNames: ['route'],
    registers,
  });
  const bookingsRefused = new Counter({
    name: 'slotwise_bookings_refused_total',
    help: 'Booking requests refused, by route and error code',
    labelNames: ['route', 'reason'],
    registers,
  });
  const rateLimitRefusals = new Counter({
    name: 'slotwise_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429), by route',
    labelNames: ['route'],
    registers,
  });
  // Without a promise, and the route looked up only for what counts it: every request passes here.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode !== 429 && request.method !== 'POST') return done(null, payload);
    const route = routeOf(request) ?? UNMATCHED;
    if (reply.statusCode === 429) rateLimitRefusals.inc({ route });
    if (request.method === 'POST' && BOOKING_CREATION_ROUTES.has(route)) {
      if (reply.statusCode === 201 && !reply.hasHeader('idempotent-replayed')) bookingsCreated.inc({ route });
      else if (reply.statusCode >= 400) bookingsRefused.inc({ route, reason: errorCodeOf(payload) });
    }
    done(null, payload);
  });

  const { availability, changes, database, webhooks } = app;
  new Counter({
    name: 'slotwise_availability_cache_hits_total',
    help: 'Availability cache lookups that found a current value, by cache (days, rules)',
    labelNames: ['cache'],
    registers,
    collect() {
      this.reset();
      for (const cache of ['days', 'rules'] as const) this.inc({ cache }, availability.lookups[cache].hits);
    },
  });
  new Counter({
    name: 'slotwise_availability_cache_misses_total',
    help: 'Availability cache lookups that had to read the database, by cache (days, rules)',
    labelNames: ['cache'],
    registers,
    collect() {
      this.reset();
      for (const cache of ['days', 'rules'] as const) this.inc({ cache }, availability.lookups[cache].misses);
    },
  });
  new Gauge({
    name: 'slotwise_change_feed_up',
    help: '1 while the change log is read in time (caches are used), else 0',
    registers,
    collect() {
      this.set(changes.live ? 1 : 0);
    },
  });
  new Counter({
    name: 'slotwise_change_feed_reconnects_total',
    help: 'Times the change log reader started afresh after changes may have been missed',
    registers,
    collect() {
      this.reset();
      this.inc(changes.reconnects);
    },
  });
  new Gauge({
    name: 'slotwise_change_feed_lag_seconds',
    help: 'Time for the change log reader to apply every change committed before it was asked (NaN: down or not within 2 s)',
    registers,
    async collect() {
      if (!changes.live) return this.set(Number.NaN);
      const started = performance.now();
      const read = await within(
        PROBE_TIMEOUT_MS,
        app.changeLog.caughtUp().then(() => true),
      ).catch(() => false);
      this.set(read ? (performance.now() - started) / 1000 : Number.NaN);
    },
  });
  new Gauge({
    name: 'slotwise_db_pool_connections',
    help: 'Database connections of this process, by state (in_use, idle); PGlite is one connection',
    labelNames: ['state'],
    registers,
    collect() {
      const stats = database.poolStats?.();
      if (!stats) return;
      this.set({ state: 'in_use' }, stats.inUse);
      this.set({ state: 'idle' }, stats.idle);
    },
  });
  new Gauge({
    name: 'slotwise_db_pool_waiting',
    help: 'Queries and transactions waiting for a database connection',
    registers,
    collect() {
      this.set(database.poolStats?.().waiting ?? 0);
    },
  });
  new Gauge({
    name: 'slotwise_webhook_outbox_depth',
    help: 'Webhook deliveries not yet finished (pending or to be retried), all businesses (NaN: the database did not answer within 2 s)',
    registers,
    async collect() {
      const depth = await within(PROBE_TIMEOUT_MS, webhooks.dispatcher.unfinished()).catch(() => undefined);
      this.set(depth ?? Number.NaN);
    },
  });
  new Counter({
    name: 'slotwise_webhook_delivery_failures_total',
    help: 'Failed webhook delivery attempts, by what follows (retrying, failed: no attempt left)',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      for (const outcome of ['retrying', 'failed'] as const) {
        this.inc({ outcome }, webhooks.dispatcher.failures[outcome]);
      }
    },
  });

  const scrape = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type(registry.contentType).send(await registry.metrics());
  const { metricsToken, metricsPort, metricsHost } = app.config;

  // With a listener of its own and no token, the public port does not serve the metrics at all.
  if (metricsToken !== undefined || metricsPort === undefined) {
    app.get(
      METRICS_ROUTE,
      {
        schema: {
          operationId: 'getMetrics',
          tags: ['Health'],
          summary:
            'Prometheus metrics: with METRICS_TOKEN as a Bearer token; without one, to this machine only',
          security: metricsToken ? [{ bearer: [] }] : [],
          response: {
            200: {
              description: 'Prometheus text exposition format',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
          },
        },
        logLevel: 'warn',
        onRequest: metricsGuard(metricsToken),
      },
      scrape,
    );
  }

  let metricsServer: FastifyInstance | undefined;
  if (metricsPort !== undefined) {
    const server = Fastify({ logger: false });
    server.get(METRICS_ROUTE, { onRequest: metricsToken ? metricsGuard(metricsToken) : [] }, scrape);
    server.setNotFoundHandler((request, reply) =>
      sendError(reply, new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
    );
    // On ready, so a worker (which never listens itself) serves its metrics too.
    app.addHook('onReady', async () => {
      try {
        await server.listen({ port: metricsPort, host: metricsHost });
      } catch (error) {
        throw metricsListenError(error, metricsPort, metricsHost);
      }
    });
    app.addHook('onClose', async () => {
      await server.close();
    });
    metricsServer = server;
  }
  app.decorate('metricsServer', metricsServer);
}
