import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Authenticator, Principal, Scope } from './auth.ts';
import { AppError, notFound } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    authenticator: Authenticator;
  }
}

export interface BusinessAccess {
  scope: Scope;
  /** Whether a `staff_member` may call it: bookings, customers, waitlist, availability (reads always). */
  staff?: boolean;
  /** Billing stays reachable while the developer's subscription is past due. */
  allowPastDue?: boolean;
}

/**
 * The error statuses each guard can answer, for the API reference (`documentErrors` in
 * platform/openapi.ts): 401 for a bad credential, 403 for a lacking one, 402 while past due.
 */
const refusalsOfGuard = new WeakMap<onRequestAsyncHookHandler, number[]>();
export const guard = (refusals: number[], hook: onRequestAsyncHookHandler) => {
  refusalsOfGuard.set(hook, refusals);
  return hook;
};
export const refusalsOf = (hook: unknown): number[] =>
  refusalsOfGuard.get(hook as onRequestAsyncHookHandler) ?? [];
const pastDueUnless = (allowPastDue: boolean | undefined) => (allowPastDue ? [] : [402]);

const missingCredentials = () =>
  new AppError('invalid_token', 'send credentials as "Authorization: Bearer <token>"');
const insufficient = (message: string) => new AppError('insufficient_permissions', message);

/**
 * Every call made with a credential of a developer whose subscription is past due is refused,
 * whichever business it asks about; billing and the subscription read stay open (`allowPastDue`).
 */
function assertNotPastDue(principal: Principal): void {
  if (principal.subscription.status === 'past_due') {
    throw new AppError(
      'payment_required',
      'the developer subscription is past due; update billing to continue',
    );
  }
}

/**
 * The origin a browser calls from: the API's own origin for a request from one of its own pages
 * (`Sec-Fetch-Site: same-origin`, which no page's script can set), whatever name the browser
 * reached the server by (`localhost`, an address, a name other than `PUBLIC_BASE_URL`'s); else
 * its `Origin` header.
 */
function requestOrigin(request: FastifyRequest): string | undefined {
  if (request.headers['sec-fetch-site'] === 'same-origin') return request.server.authenticator.ownOrigin;
  return request.headers.origin;
}

/**
 * A publishable key works only on the routes marked `publishable`, from one of its origins, and on
 * its own business: another business named in the path is as unknown to it as to a secret key.
 */
function checkPublishableKey(request: FastifyRequest, principal: Principal): void {
  if (!request.routeOptions.config.publishable) {
    throw new AppError(
      'missing_scope',
      'a publishable key may only read availability and public data, book, join the waitlist and manage a guest booking',
    );
  }
  const origin = requestOrigin(request);
  if (origin === undefined || !principal.allowedOrigins?.includes(origin)) {
    throw new AppError(
      'origin_not_allowed',
      origin === undefined
        ? 'a publishable key is used from a web page: the request must carry its Origin'
        : `the publishable key does not allow the origin ${origin}`,
    );
  }
  const named = (request.params as { business_id?: string } | undefined)?.business_id;
  if (named !== undefined && named !== principal.businessId) throw notFound('business');
}

/** The request's credential, if any; a publishable key only where it may be used. */
async function resolvePrincipal(request: FastifyRequest): Promise<Principal | null> {
  const principal = await request.server.authenticator.resolve(request);
  if (principal?.kind === 'publishable_key') checkPublishableKey(request, principal);
  return principal;
}

/** The hook of every `/v1/manage/*` route and of authenticated business calls. */
export function requireBusiness(access: BusinessAccess): onRequestAsyncHookHandler {
  return guard([401, 403, ...pastDueUnless(access.allowPastDue)], async (request) => {
    const principal = await resolvePrincipal(request);
    if (!principal) throw missingCredentials();
    if (!principal.businessId) {
      throw insufficient('a developer token must name one of its businesses in the X-Business-Id header');
    }
    if (!access.allowPastDue) assertNotPastDue(principal);
    if (
      principal.role === 'staff_member' &&
      access.scope !== 'read' &&
      !(access.staff && access.scope === 'write')
    ) {
      throw insufficient('staff members may not do this; ask a business owner');
    }
    if (!principal.scopes.has(access.scope)) {
      throw new AppError('missing_scope', `this call needs the "${access.scope}" scope`);
    }
    request.principal = principal;
  });
}

/** Only a credential of one kind: a developer's token, or a dashboard user's own token. */
function requireKind(
  kind: Principal['kind'],
  refusal: string,
  { allowPastDue = false } = {},
): onRequestAsyncHookHandler {
  return guard([401, 403, ...pastDueUnless(allowPastDue)], async (request) => {
    const principal = await resolvePrincipal(request);
    if (!principal) throw missingCredentials();
    if (principal.kind !== kind) throw insufficient(refusal);
    if (!allowPastDue) assertNotPastDue(principal);
    request.principal = principal;
  });
}

/** Developer surface: only a developer's JWT. */
export const requireDeveloper = requireKind('developer', 'this call needs a developer token');

/** Developer billing: a developer's JWT, open while past due so that the debt can be paid. */
export const requireDeveloperForBilling = requireKind('developer', 'this call needs a developer token', {
  allowPastDue: true,
});

/**
 * A dashboard user's own token (switching between their businesses). Switching signs in to
 * another business, whose developer may well be paid up; the new token is checked when used.
 */
export const requireDashboardUser = requireKind('user', "this call needs a dashboard user's access token", {
  allowPastDue: true,
});

/** Public reads: no credential needed, but one that is sent must be valid (and paid up). */
export const optionalCredential = guard([401, 402], async (request) => {
  const principal = await resolvePrincipal(request);
  if (principal) assertNotPastDue(principal);
  request.principal = principal;
});

/**
 * A public read of a business found by its slug rather than its id: a publishable key of another
 * business finds nothing there, as with an id in the path.
 */
export function assertVisibleTo(request: FastifyRequest, businessId: string): void {
  const principal = request.principal;
  if (principal?.kind === 'publishable_key' && principal.businessId !== businessId)
    throw notFound('business');
}

/** The principal of a route guarded by `requireBusiness`. */
export function principalOf(request: FastifyRequest): Principal & { businessId: string } {
  const principal = request.principal;
  if (!principal?.businessId) throw missingCredentials();
  return principal as Principal & { businessId: string };
}

/**
 * A URL that often carries a secret (a calendar import's, a webhook endpoint's) as the caller may
 * see it: whole for owners and admin keys (the `admin` scope, which staff members never have),
 * only its origin (scheme://host[:port]) for everyone else.
 */
export const urlShownTo = (principal: Pick<Principal, 'scopes'>, url: string): string =>
  principal.scopes.has('admin') ? url : (URL.parse(url)?.origin ?? '');
