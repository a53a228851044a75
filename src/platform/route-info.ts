import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The UTC dates a booking created by this request holds time on: once it is answered, only
     * the days those can touch are recomputed in this process (null: none, or not known).
     */
    bookedDates: readonly string[] | null;
  }
  interface FastifyContextConfig {
    /**
     * The response carries a secret (a token, an API key, a webhook secret): it is sent with
     * `Cache-Control: no-store` and a stored idempotent copy of it is kept encrypted.
     */
    sensitive?: boolean;
    /**
     * A publishable key may call the route (from one of its origins, for its own business), and
     * browsers on those origins get CORS answers: availability, public reads, online bookings,
     * the waitlist and a guest's own booking. Every other route refuses publishable keys.
     */
    publishable?: boolean;
    /**
     * What a successful call may change, for this process's own caches: `bookings` when it changes
     * bookings only, so the business's cached rules stay (its days are recomputed). Anything else
     * may change the rules too.
     */
    writes?: 'bookings';
  }
}

/**
 * The route a request was routed to, as registered (`/v1/auth/login`, `/v1/manage/resources/:resource_id`),
 * without a trailing slash; undefined when no route matched. Rules that depend on the endpoint
 * are decided on this, never on the URL's text: `/v1/%61uth/login` is the same route.
 */
export function routeOf(request: FastifyRequest): string | undefined {
  // Asked by several hooks of every request, and `routeOptions` is made anew at each reading.
  const known = (request as RouteKnown)[ROUTE];
  if (known !== undefined) return known ?? undefined;
  const url = request.is404 ? undefined : request.routeOptions.url;
  const route = url === undefined ? undefined : url.length > 1 ? url.replace(/\/+$/, '') : url;
  (request as RouteKnown)[ROUTE] = route ?? null;
  return route;
}

/** The request's route once `routeOf` found it; null when none matched. */
const ROUTE = Symbol('route');
type RouteKnown = FastifyRequest & { [ROUTE]?: string | null };

/** The account endpoints: sign-up, logins, refresh. */
export const isAccountPath = (route: string) => route.startsWith('/v1/auth/');
export const isAccountRoute = (request: FastifyRequest) => isAccountPath(routeOf(request) ?? '');
