import type { FastifyDynamicSwaggerOptions, SwaggerTransformObject } from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { refusalsOf } from './access.ts';
import { isUnlimitedRoute } from './rate-limit.ts';
import { isAccountPath } from './route-info.ts';
import { errorResponses } from './schemas.ts';

/**
 * Components are named by their schema's `$id` (`Error`, `Booking`), not `def-0`: generated
 * clients get readable, stable type names.
 */
export const refResolver: FastifyDynamicSwaggerOptions['refResolver'] = {
  buildLocalReference: (json, _baseUri, _fragment, i) =>
    typeof json.$id === 'string' ? json.$id : `def-${i}`,
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Documents the error statuses a route can answer because of its guard and its shape, so the
 * reference lists what a client may really get and nothing else: a guard's refusals (401, 403,
 * and 402 while the subscription is past due), a body's (400 malformed JSON, 413 too large, 415
 * not JSON, 422 invalid), a path id that names nothing (404), a query's 422, an `Idempotency-Key`
 * reused or in flight (409) or malformed (422), the rate limit (429). What only the use case can
 * refuse (a conflict, a plan's feature, an id in the body) the route lists itself with
 * `errorResponses`; what it lists is kept. Every route can fail unforeseen (500).
 */
export function documentErrors(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide) return;
  const methods = [route.method].flat();
  const statuses = new Set([route.onRequest ?? []].flat().flatMap(refusalsOf));
  const add = (...more: number[]) => {
    for (const status of more) statuses.add(status);
  };
  const takesBody = methods.some((method) => BODY_METHODS.has(method));
  const idempotent =
    methods.some((method) => method === 'POST' || method === 'PATCH') && !isAccountPath(route.url);
  if (takesBody) add(400, 413, 415);
  if (schema.params) add(404);
  if (schema.body || schema.querystring || idempotent) add(422);
  if (idempotent) add(409);
  if (!isUnlimitedRoute(route.url)) add(429);
  // The error handler answers anything unforeseen with a 500 and the error body, on every route.
  add(500);
  schema.response = {
    ...errorResponses(...[...statuses].sort((a, b) => a - b)),
    ...(schema.response as object | undefined),
  };
}

/**
 * The headers every response of a rate-limited route carries (`registerRateLimit`), declared once
 * and referred to by each response.
 */
const Requests = { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000 } as const;
const Seconds = { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 } as const;
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the window of the limit closest to refusing this client',
    schema: Requests,
  },
  'RateLimit-Remaining': { description: 'Requests left in that window', schema: Requests },
  'RateLimit-Reset': { description: 'Seconds until that window ends', schema: Seconds },
} as const;
const RETRY_AFTER = { description: 'Seconds to wait before sending again', schema: Seconds } as const;
/**
 * Documented wherever a response documents headers. It is optional, as every response header
 * here is: answered only to a browser's cross-origin request (`src/platform/cors.ts`).
 */
const CORS_ORIGIN = {
  description:
    "Only to a browser's request from another origin: on the routes a publishable key may call, that origin when one of the business's publishable keys lists it; `*` on the booking widget's files. Never on other routes, which no other origin may read.",
  schema: { type: 'string', maxLength: 2000 },
} as const;
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

type Responses = Record<string, { headers?: Record<string, unknown> }>;
interface Document {
  servers?: Record<string, unknown>[];
  components?: { headers?: Record<string, unknown> };
  paths?: Record<string, Record<string, { responses?: Responses; tags?: string[] }>>;
  tags?: { name: string }[];
}

/**
 * The document as `@fastify/swagger` wrote it, completed with what a route schema cannot say: the
 * rate-limit headers, by reference, on every response of each route `documentErrors` gave a 429
 * (the rate-limited ones; the 429 itself also `Retry-After`), `Access-Control-Allow-Origin` on each
 * response that documents headers (when it is sent is told once, in its component), each tag the operations use
 * declared once, and each server marked as meant for the public (`x-internal: false`).
 */
export const completeDocument: SwaggerTransformObject = (documentObject) => {
  if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
  const document = documentObject.openapiObject as Document;
  for (const server of document.servers ?? []) server['x-internal'] = false;
  const headers = {
    ...RATE_LIMIT_HEADERS,
    'Retry-After': RETRY_AFTER,
    'Access-Control-Allow-Origin': CORS_ORIGIN,
  };
  document.components = { ...document.components, headers: { ...document.components?.headers, ...headers } };
  const tags = new Set<string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const tag of operation.tags ?? []) tags.add(tag);
      const responses = operation.responses ?? {};
      const limited = '429' in responses;
      for (const [status, response] of Object.entries(responses)) {
        if (limited) {
          response.headers = {
            ...response.headers,
            ...Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)])),
            ...(status === '429' ? { 'Retry-After': headerRef('Retry-After') } : {}),
          };
        }
        if (response.headers) {
          response.headers['Access-Control-Allow-Origin'] = headerRef('Access-Control-Allow-Origin');
        }
      }
    }
  }
  document.tags = [...tags].sort().map((name) => ({ name }));
  return documentObject.openapiObject;
};
