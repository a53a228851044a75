import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { AppError } from './errors.ts';
import { routeOf } from './route-info.ts';
import { errorResponses } from './schemas.ts';
import { withTimeout } from './timeout.ts';
import { API_VERSION } from './version.ts';

const Status = Type.Object({ status: Type.String() });

/** Seconds a client is asked to wait when the process is overloaded. */
export const PRESSURE_RETRY_AFTER_S = 10;
/** A readiness check that takes longer than this counts as a failure: a probe must not hang. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * The samples taken while the app starts measure the start (compiling every route's schemas
 * blocks the loop for seconds on a busy machine), not load: pressure counts once two samples of
 * the running app have been taken.
 */
const WARM_UP_MS = 2000;

/** Answered even under pressure: the liveness of the process itself, and what operators look at. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);

/**
 * Under pressure (event-loop delay, heap or RSS past their thresholds, sampled each second by
 * `@fastify/under-pressure`) every request but `/healthz` and `/metrics` is answered at once
 * with 503 `service_unavailable` and `Retry-After`, instead of queuing without bound; from two
 * seconds after the app is ready.
 */
export async function registerPressure(app: FastifyInstance): Promise<void> {
  const { maxEventLoopDelayMs, maxHeapUsedBytes, maxRssBytes } = app.config.pressure;
  let steadyFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    steadyFrom = Date.now() + WARM_UP_MS;
  });
  await app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    maxHeapUsedBytes,
    maxRssBytes,
    pressureHandler: async (request, reply, type) => {
      if (ALWAYS_ANSWERED.has(routeOf(request) ?? '') || Date.now() < steadyFrom) return;
      request.log.warn({ pressure: type, memory: app.memoryUsage() }, 'refused under pressure');
      reply.header('Retry-After', PRESSURE_RETRY_AFTER_S);
      throw new AppError('service_unavailable', 'the server is overloaded; retry later');
    },
  });
}

/** Settles with `check`'s outcome, or fails after the timeout. */
const checked = async (check: () => Promise<unknown>): Promise<void> => {
  await withTimeout(check(), CHECK_TIMEOUT_MS, () => {
    throw new Error('timed out');
  });
};

const Home = Type.Object({
  name: Type.String(),
  version: Type.String(),
  links: Type.Object({
    docs: Type.String(),
    openapi: Type.String(),
    health: Type.String(),
    liveness: Type.String(),
    readiness: Type.String(),
  }),
});

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        operationId: 'getHome',
        tags: ['Health'],
        summary: 'Where to start: the API reference and the health routes',
        security: [],
        response: { 200: Home },
      },
    },
    async () => ({
      name: 'Slotwise API',
      version: API_VERSION,
      links: {
        docs: '/docs',
        openapi: '/openapi.json',
        health: '/healthz',
        liveness: '/livez',
        readiness: '/readyz',
      },
    }),
  );
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['Health'],
        summary: 'The process is up',
        security: [],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/livez',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['Health'],
        summary: 'The process and its event loop keep up (503 service_unavailable under pressure)',
        security: [],
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'The database answers, and Redis when configured; not while shutting down',
        security: [],
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      if (app.stopping) throw new AppError('not_ready', 'the server is shutting down');
      try {
        await checked(() => sql`SELECT 1`.execute(app.db));
      } catch {
        throw new AppError('not_ready', 'the database is not reachable');
      }
      const redis = app.redis;
      if (redis) {
        try {
          await checked(() => redis.ping());
        } catch {
          throw new AppError('not_ready', 'Redis is not reachable');
        }
      }
      return { status: 'ready' };
    },
  );
};
