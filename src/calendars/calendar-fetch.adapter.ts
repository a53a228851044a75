import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { UnresolvedHost, UnsafeTarget, type WebhookTargets } from '../webhooks/target.adapter.ts';
import { SyncFailed, type SyncFailure } from './sync-failure.model.ts';

export type Fetched = { changed: false } | { changed: true; body: string; etag: string | null };

/**
 * Reads external calendars over https (or http, which the webhook URL rules allow only with
 * `WEBHOOK_ALLOW_PRIVATE_URLS`), under those rules: the host is resolved and checked, and the
 * request connects to that very address. Redirects are not followed (a 3xx is
 * a failure like any other status), so no hop reaches an address that was not checked.
 */
export class CalendarFetcher {
  private readonly targets: WebhookTargets;
  timeoutMs = 15_000;
  maxBytes = 2 * 1024 * 1024;
  /** Certificates to trust besides the system's: only tests set it, for their own server. */
  ca: string | undefined;

  constructor(targets: WebhookTargets) {
    this.targets = targets;
  }

  /** The calendar at `url`; unchanged when it still has `etag`. Throws SyncFailed. */
  async fetch(raw: string, etag: string | null): Promise<Fetched> {
    let target: { address: string; family: 4 | 6 };
    const url = new URL(raw);
    try {
      target = await this.targets.addressFor(url);
    } catch (error) {
      if (error instanceof UnsafeTarget) throw new SyncFailed('url_not_allowed', error);
      if (error instanceof UnresolvedHost) throw new SyncFailed('dns_error', error);
      throw error;
    }
    return this.get(url, target, etag);
  }

  private get(url: URL, target: { address: string; family: 4 | 6 }, etag: string | null): Promise<Fetched> {
    const lookup = ((_hostname, options, callback) => {
      if (options.all) callback(null, [target]);
      else callback(null, target.address, target.family);
    }) as LookupFunction;
    const tls = url.protocol === 'https:';
    return new Promise<Fetched>((resolve, reject) => {
      let connected = false;
      let secured = false;
      let failure: SyncFailure | undefined;
      // Settles at once: once the answer has begun, destroying the request reports on the response.
      const fail = (why: SyncFailure) => {
        failure = why;
        clearTimeout(timer);
        reject(new SyncFailed(why));
        request.destroy(new Error(why));
      };
      const request = (tls ? https : http).request(url, {
        method: 'GET',
        agent: false,
        lookup,
        ca: this.ca,
        headers: {
          accept: 'text/calendar',
          'user-agent': 'Slotwise-Calendars/1',
          ...(etag ? { 'if-none-match': etag } : {}),
        },
      });
      const timer = setTimeout(() => fail('timeout'), this.timeoutMs);
      request.on('socket', (socket) => {
        socket.once('connect', () => (connected = true));
        socket.once('secureConnect', () => (secured = true));
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status === 304 && etag) {
          clearTimeout(timer);
          response.resume();
          resolve({ changed: false });
          return;
        }
        if (status < 200 || status > 299) return fail(`http_${status}`);
        if (Number(response.headers['content-length'] ?? 0) > this.maxBytes) return fail('too_large');
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBytes) return fail('too_large');
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (failure) return;
          clearTimeout(timer);
          const tag = response.headers.etag;
          resolve({ changed: true, body: Buffer.concat(chunks).toString('utf8'), etag: tag ?? null });
        });
        response.on('error', () => {});
      });
      request.on('error', (error) => {
        clearTimeout(timer);
        // Connected but never secured: the handshake failed (certificate, protocol).
        const handshake = tls && connected && !secured;
        reject(new SyncFailed(failure ?? (handshake ? 'tls_error' : 'connection_error'), error));
      });
      request.end();
    });
  }
}
