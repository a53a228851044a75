import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A file built for browsers (the widget, the staff dashboard): its bytes, gzipped once, and its ETag. */
export interface BuiltAsset {
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

/** Browsers the bundles are written for: those with custom elements, ES modules and `Intl` in full. */
export const BROWSER_TARGETS = ['chrome109', 'firefox115', 'safari15.4', 'edge109'];

export const hashOf = (body: Buffer | Uint8Array) =>
  createHash('sha256').update(body).digest('base64url').slice(0, 16);

export async function builtAsset(body: Buffer): Promise<BuiltAsset> {
  return { body, gzipped: await promisify(gzip)(body, { level: 9 }), etag: `"${hashOf(body)}"` };
}

/**
 * One build per process, made when first asked for (a checkout serves its bundles with no build
 * step, never older than their source); a failed build is tried again on the next request.
 */
export function buildOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= build().catch((error) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}

/** RFC 9110: If-None-Match compares weakly, so `W/"x"` matches `"x"`; `*` matches any current body. */
export function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

const accepts = (header: string | undefined, coding: string) =>
  (header ?? '').split(',').some((part) => {
    const [name, q] = part.trim().split(/\s*;\s*q=/);
    return name === coding && (q === undefined || Number(q) > 0);
  });

/** A built file with its ETag (a bodiless 304 when the browser has it), gzipped when accepted. */
export function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: BuiltAsset,
  type: string,
  headers: Record<string, string>,
) {
  reply.headers(headers).header('ETag', asset.etag).header('Vary', 'Accept-Encoding').type(type);
  if (matchesAny(request.headers['if-none-match'], asset.etag)) return reply.code(304).send(null);
  if (!accepts(request.headers['accept-encoding'], 'gzip')) return reply.send(asset.body);
  return reply.header('Content-Encoding', 'gzip').send(asset.gzipped);
}
