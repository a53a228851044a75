import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
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
 * `errorResponses`; what it lists is kept.
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
  schema.response = {
    ...errorResponses(...[...statuses].sort((a, b) => a - b)),
    ...(schema.response as object | undefined),
  };
}
