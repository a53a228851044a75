import { createHash } from 'node:crypto';
import type { onSendAsyncHookHandler } from 'fastify';
import { matchesAny } from '../platform/browser-assets.ts';

export const PUBLIC_MAX_AGE_SECONDS = 60;

/**
 * Route `onSend` hook for public reads: widgets and CDNs may keep a 200 for a minute, then
 * revalidate with the strong ETag (a hash of the exact body) and get a bodiless 304 when unchanged.
 */
export const cachePublicRead: onSendAsyncHookHandler<unknown> = async (request, reply, payload) => {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const etag = `"${createHash('sha256').update(payload).digest('base64url')}"`;
  reply.header('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`);
  reply.header('ETag', etag);
  if (!matchesAny(request.headers['if-none-match'], etag)) return payload;
  reply.code(304);
  reply.removeHeader('content-type');
  return null;
};
