import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { AppError } from '../platform/errors.ts';
import { clientAddress } from '../platform/rate-limit.ts';

/** When a refused client may try again. */
const REFUSED_RETRY_AFTER_SECONDS = 5;

export const streamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Live updates'] });

  routes.route('GET', '/v1/manage/stream', {
    operationId: 'streamChanges',
    summary:
      'Server-Sent Events: one event per committed change of the business’s bookings, deposits, waitlist and blocks',
    description:
      'Events `ready` first, then one per change (`booking.created`, `block.deleted`...) with `data` `{type, id, business_id, booking_date?, booking_id?, at}`, a `: ping` comment every 15 s, and `closing` `{reason}` when the server ends the stream (`token_expired`, `credential_revoked`, `role_changed`, `shutdown`, `feed_lost`). No replay: after reconnecting, reload what is shown.',
    response: {
      200: {
        description: 'the stream, open until the client, the server or the credential ends it',
        content: { 'text/event-stream': { schema: Type.String() } },
      },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      let stream: ReturnType<typeof app.liveEvents.openStream>;
      try {
        stream = app.liveEvents.openStream(principal, clientAddress(request), reply.raw);
      } catch (error) {
        if (error instanceof AppError) reply.header('Retry-After', REFUSED_RETRY_AFTER_SECONDS);
        throw error;
      }
      reply.hijack();
      // Hijacked, the reply sends nothing itself: the headers set so far (API version, request id,
      // rate limit) go out with the stream's own.
      reply.header('content-type', 'text/event-stream; charset=utf-8');
      reply.header('cache-control', 'no-cache');
      reply.header('x-accel-buffering', 'no');
      reply.raw.writeHead(200, reply.getHeaders() as OutgoingHttpHeaders);
      stream.start();
    },
  });
};
