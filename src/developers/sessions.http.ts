import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { TSchema } from 'typebox';
import type { SentTo } from '../platform/change-route.ts';
import { clientAddress } from '../platform/rate-limit.ts';
import type { LoginAttempt } from './sessions.service.ts';

/** A route that opens a session: its texts, what it takes and answers, and its handler. */
export interface SessionRoute<B extends TSchema> {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  body: B;
  response: Record<number, TSchema>;
  handler: (request: SentTo<TSchema, TSchema, B>, reply: FastifyReply) => Promise<unknown>;
}

/**
 * Declares `POST url`, by which anyone trades a credential (a password, a refresh token, an
 * invitation's token) for a session: it asks for no credential of its own (`security: []`), and
 * its answer carries the session's tokens, so an `Idempotency-Key` keeps it sealed (`sensitive`).
 */
export function sessionRoute<B extends TSchema>(
  app: FastifyInstance,
  url: string,
  { operationId, tags, summary, description, body, response, handler }: SessionRoute<B>,
): void {
  app.route({
    method: 'POST',
    url,
    config: { sensitive: true },
    schema: { operationId, tags, summary, description, security: [], body, response },
    // Fastify types a handler by the route's generics; `SentTo` states them from the schemas.
    handler: handler as unknown as RouteHandlerMethod,
  });
}

/** When and from where a sign-in is tried: what the login limits count. */
export const loginAttempt = (request: FastifyRequest): LoginAttempt => ({
  now: new Date(request.server.clock.now()),
  clientIp: clientAddress(request),
});
