import { createHash } from 'node:crypto';
import type { onSendAsyncHookHandler } from 'fastify';

export const PUBLIC_MAX_AGE_SECONDS = 60;

/** RFC 9110: If-None-Match compares weakly, so `W/"x"` matches `"x"`; `*` matches any current body. */
export function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

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
