import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { sql } from 'kysely';
import { sha256 } from './auth.ts';
import { type Executor, retryingConflicts, type Tx, withTx } from './db.ts';
import { AppError, conflict, invalidField } from './errors.ts';
import { isAccountPath, routeOf } from './route-info.ts';
import { decrypt, deriveKey, encrypt } from './secrets.ts';

const HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
const RETENTION = sql<Date>`now() - interval '24 hours'`;
/**
 * A claim still without a response after this long belongs to a process that died mid-request;
 * the key is handed to the next caller instead of answering 409 for the rest of the day.
 */
const ABANDONED = sql<Date>`now() - interval '5 minutes'`;
const CLAIM_ATTEMPTS = 3;
const SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Answers that refuse the request as it was sent, before anything was tried: malformed, not
 * authenticated, not paid for, not permitted, naming nothing that exists, too large, of another
 * media type, over the rate limit. They are not stored, so the key stays free for the corrected call.
 */
const REFUSED_AS_SENT = new Set([400, 401, 402, 403, 404, 413, 415, 429]);

/**
 * Whether the response leaves the key free: a 5xx, a refusal of the request as sent, or a 422
 * `validation_error` (one raised by the handler too). A 2xx is stored, and so is an outcome the
 * handler reached on the state of the business (409 `slot_unavailable` or `conflict`, a 422
 * `outside_booking_window`): repeating the call answers what happened, without running it again.
 */
function leavesKeyFree(statusCode: number, payload: unknown): boolean {
  if (statusCode >= 500 || REFUSED_AS_SENT.has(statusCode)) return true;
  if (statusCode !== 422 || typeof payload !== 'string') return false;
  try {
    return JSON.parse(payload)?.error?.code === 'validation_error';
  } catch {
    return false;
  }
}

interface Claim {
  credential: string;
  key: string;
  /** Set for a response that carries a secret: it is stored encrypted with this key. */
  sealWith: Buffer | null;
  /** The response was stored in the handler's own transaction, which committed. */
  committed: boolean;
}

/** The keys claimed by requests in flight. */
const claims = new WeakMap<FastifyRequest, Claim>();

/** Object keys sorted, so the same body sent with its fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Method, route as routed (so `/v1/%61uth` and `/v1/auth`, or a trailing slash, are one route), path
 * parameters, query and body.
 */
function fingerprint(request: FastifyRequest): string {
  const route = routeOf(request) ?? request.url.split('?', 1)[0];
  const parts = { params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? null };
  return sha256(`${request.method} ${route}\n${canonicalJson(parts)}`);
}

/**
 * The credential and the business it acts on: a developer token reaches several businesses
 * (X-Business-Id), and one business's stored response must never answer a call to another. A
 * publishable key is shared by every visitor of a web page, so each client IP has keys of its own,
 * as calls without a credential do: one visitor never replays another's booking.
 */
function scopeOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return `ip:${request.ip}`;
  if (principal.kind === 'publishable_key') return `${principal.credentialId} ip:${request.ip}`;
  return principal.businessId
    ? `${principal.credentialId} business:${principal.businessId}`
    : principal.credentialId;
}

/** Takes the key when it is free, expired or abandoned; returns whether this request now owns it. */
async function claimKey(db: Executor, claim: Claim, requestHash: string): Promise<boolean> {
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({ credential: claim.credential, key: claim.key, request_hash: requestHash })
    .onConflict((oc) =>
      oc
        .columns(['credential', 'key'])
        .doUpdateSet({
          request_hash: requestHash,
          status_code: null,
          response_body: null,
          created_at: sql`now()`,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', RETENTION),
            eb.and([
              eb('idempotency_keys.status_code', 'is', null),
              eb('idempotency_keys.created_at', '<', ABANDONED),
            ]),
          ]),
        ),
    )
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

const findKey = (db: Executor, claim: Claim) =>
  db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response_body', 'sealed'])
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .where('created_at', '>=', RETENTION)
    .executeTakeFirst();

const releaseKey = (db: Executor, claim: Claim) =>
  db
    .deleteFrom('idempotency_keys')
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .execute();

const storeResponse = (db: Executor, claim: Claim, statusCode: number, body: string | null) =>
  db
    .updateTable('idempotency_keys')
    .set({
      status_code: statusCode,
      response_body: body !== null && claim.sealWith ? encrypt(claim.sealWith, body) : body,
      sealed: claim.sealWith !== null,
    })
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .execute();

const deleteExpiredKeys = (db: Executor) =>
  db.deleteFrom('idempotency_keys').where('created_at', '<', RETENTION).execute();

/**
 * Runs a request's change in one transaction and answers with `status` and its result. When the
 * request holds an `Idempotency-Key`, the response is stored in that same transaction: a crash
 * after the commit cannot separate the change from its recorded answer, so a retry replays it.
 */
export async function commitReply<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 200 | 201 | 202 | 204,
  work: (tx: Tx) => Promise<T>,
): Promise<FastifyReply> {
  const claim = claims.get(request);
  let serialized: string | null = null;
  const result = await withTx(request.server.db, async (tx) => {
    const value = await work(tx);
    if (claim) {
      serialized = status === 204 ? null : String(reply.code(status).serialize(value));
      await storeResponse(tx, claim, status, serialized);
    }
    return value;
  });
  reply.code(status);
  if (claim) claim.committed = true;
  if (status === 204) return reply.send(null);
  return serialized === null
    ? reply.send(result)
    : reply.type('application/json; charset=utf-8').send(serialized);
}

/**
 * Thrown by a change run alone (`commitStatement`) whose statement found that what it read had
 * changed meanwhile, so it changed nothing: the change is made again in a transaction, where it
 * can hold what it reads.
 */
export class ReadChanged extends Error {
  constructor() {
    super('what the change read was changed by another request before its statement ran');
  }
}

/**
 * The commit a use case that works before its transaction (a processor call, a password hash) is
 * handed: it prepares, then commits its change through it. The route decides how (`commitWith`),
 * so the use case knows nothing of the request, and its transaction is still the route's.
 */
export type Commit<R> = <T>(work: (tx: Tx) => Promise<T>) => Promise<R>;

/** `commitReply` bound to a route's request, reply and status, for a use case that commits itself. */
export const commitWith =
  (request: FastifyRequest, reply: FastifyReply, status: 200 | 201 | 202 | 204): Commit<FastifyReply> =>
  (work) =>
    commitReply(request, reply, status, work);

/**
 * `commitReply` for a change made in one statement, which is a transaction of its own: without an
 * `Idempotency-Key` it runs alone, one round trip to the database, and again in a transaction
 * should it throw `ReadChanged`; with one, it runs in the transaction that stores its response.
 * Deadlocks and serialization failures are retried as `withTx` retries them.
 */
export async function commitStatement<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 200 | 201,
  work: (executor: Executor) => Promise<T>,
): Promise<FastifyReply> {
  if (claims.has(request)) return commitReply(request, reply, status, work);
  const db = request.server.db;
  const result = await retryingConflicts(() =>
    work(db).catch((error) => {
      if (error instanceof ReadChanged) return withTx(db, work);
      throw error;
    }),
  );
  return reply.code(status).send(result);
}

/**
 * `Idempotency-Key` on POST and PATCH, scoped to the credential and its business (the client IP
 * without a credential).
 * The key is claimed in `preHandler`, after the route's auth and body validation, by one atomic
 * insert. A change made through `commitReply` stores its response in its own transaction; any
 * other outcome is stored (or the key freed) in `onSend`, before the client can see it and retry.
 * A 5xx or a refusal of the request as sent frees the key, so the client may try again.
 */
export async function registerIdempotency(app: FastifyInstance): Promise<void> {
  const sealKey = deriveKey(app.config.jwtSecret, 'idempotent responses');

  const claimHook: preHandlerAsyncHookHandler = async (request, reply) => {
    if (request.method !== 'POST' && request.method !== 'PATCH') return;
    const key = request.headers[HEADER];
    if (key === undefined) return;
    if (typeof key !== 'string' || key.length < 1 || key.length > MAX_KEY_LENGTH) {
      throw invalidField('Idempotency-Key', `must be 1 to ${MAX_KEY_LENGTH} characters`);
    }
    const claim: Claim = {
      credential: scopeOf(request),
      key,
      sealWith: request.routeOptions.config.sensitive ? sealKey : null,
      committed: false,
    };
    const requestHash = fingerprint(request);
    // A row freed by a 5xx between the claim and the read is simply claimed again.
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      if (await claimKey(app.db, claim, requestHash)) {
        claims.set(request, claim);
        return;
      }
      const stored = await findKey(app.db, claim);
      if (!stored) continue;
      if (stored.request_hash !== requestHash) {
        throw new AppError(
          'idempotency_mismatch',
          'this Idempotency-Key was already used with a different request; use a new key',
        );
      }
      if (stored.status_code === null) {
        throw conflict('a request with this Idempotency-Key is still in progress; retry later');
      }
      const body =
        stored.response_body !== null && stored.sealed
          ? decrypt(sealKey, stored.response_body)
          : stored.response_body;
      reply
        .code(stored.status_code)
        .header('content-type', 'application/json; charset=utf-8')
        .header('Idempotent-Replayed', 'true');
      return reply.send(body ?? undefined);
    }
    throw conflict('a request with this Idempotency-Key is still in progress; retry later');
  };

  const storeHook: onSendHookHandler = async (request, reply, payload) => {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    if (claim.committed) return payload;
    try {
      if (leavesKeyFree(reply.statusCode, payload)) await releaseKey(app.db, claim);
      else await storeResponse(app.db, claim, reply.statusCode, typeof payload === 'string' ? payload : null);
    } catch (error) {
      // A claim left behind counts as abandoned after a while; an outage is logged once, not here.
      if (!app.database.outages.failed(error)) {
        request.log.error({ err: error }, 'could not record the response of an idempotent request');
      }
    }
    return payload;
  };

  // Only the routes that take keys carry the hooks: a GET pays nothing for them. Logins and
  // refreshes hand out tokens, which a stored copy would keep at rest for a day. Routes added
  // before this runs (none takes a key) are left as they are.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((method) => method === 'POST' || method === 'PATCH') || isAccountPath(route.url))
      return;
    route.preHandler = [claimHook, ...[route.preHandler ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), storeHook];
  });

  const sweep = setInterval(() => {
    deleteExpiredKeys(app.db).catch((error) =>
      app.log.warn({ err: error }, 'could not delete expired idempotency keys'),
    );
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
}
