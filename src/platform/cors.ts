import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The request sends no credential, or a publishable key: what a web page may send. */
const carriesNoSecret = (request: FastifyRequest) => {
  const authorization = request.headers.authorization;
  return authorization === undefined || /^Bearer\s+svc_pk_/i.test(authorization);
};

/**
 * CORS for web pages using publishable keys (`@fastify/cors`, asked per request). A preflight
 * carries no credential, so it is answered for any origin that some active publishable key lists
 * (or the API's own); the request itself is then answered with CORS headers only on a route a
 * publishable key may call, without a secret credential, and the route's guard checks the origin
 * against that key's own list. Nothing else is ever readable from another origin.
 */
export async function registerCors(app: FastifyInstance): Promise<void> {
  const answer = (origin: string | false) => ({
    origin,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'If-None-Match'],
    exposedHeaders: [
      'API-Version',
      'x-request-id',
      'ETag',
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  const refused = answer(false);
  await app.register(cors, {
    // A callback, not a promise: a request without `Origin` (every call but a browser's) is
    // answered at once.
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: object) => void) => {
      const origin = request.headers.origin;
      if (origin === undefined) return callback(null, refused);
      const browserCall =
        request.method === 'OPTIONS' ||
        (request.routeOptions.config.publishable === true && carriesNoSecret(request));
      if (!browserCall) return callback(null, refused);
      app.authenticator.isPublishableOrigin(origin).then(
        (allowed) => callback(null, allowed ? answer(origin) : refused),
        (error: Error) => callback(error, refused),
      );
    },
  });
}
