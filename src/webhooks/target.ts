import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { withTimeout } from '../platform/timeout.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A host name's addresses; DNS through the system's resolver unless a test puts another in place. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const RESOLVE_TIMEOUT_MS = 5_000;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** A URL that may not receive webhooks, with the reason in words a developer can act on. */
export class UnsafeTarget extends Error {}

/**
 * Only ordinary public unicast addresses: not private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, documentation or unspecified ones. An IPv4 address
 * written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is.
 */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unicast';
}

/** The host of a URL as an address when it is written as one (`[::1]` without its brackets). */
const literalAddress = (url: URL) => {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : undefined;
};

/**
 * Where webhooks may go. Without `allowPrivate` (`WEBHOOK_ALLOW_PRIVATE_URLS`), only https URLs
 * whose host is, or resolves only to, public addresses: a webhook URL is chosen by a tenant, and
 * must not become a way to reach the service's own network. The check is made at registration
 * and again before every attempt, and the attempt connects to the very address that was checked,
 * so a name that resolves elsewhere a moment later (DNS rebinding) cannot lead inside.
 */
export class WebhookTargets {
  private readonly config: { webhookAllowPrivateUrls: boolean };
  resolve: Resolver;

  constructor(config: { webhookAllowPrivateUrls: boolean }, resolve: Resolver = systemResolver) {
    this.config = config;
    this.resolve = resolve;
  }

  private get allowPrivate(): boolean {
    return this.config.webhookAllowPrivateUrls;
  }

  /** The rules a URL's text decides: absolute, https, not a private address written out. */
  parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UnsafeTarget('must be an absolute URL such as https://example.com/webhooks');
    }
    if (url.protocol !== 'https:' && !(this.allowPrivate && url.protocol === 'http:')) {
      throw new UnsafeTarget('must be an https:// URL');
    }
    const address = literalAddress(url);
    if (address && !this.allowPrivate && !isPublicAddress(address)) {
      throw new UnsafeTarget(`${address} is not a public address`);
    }
    return url;
  }

  /**
   * Refuses a URL whose host resolves to any non-public address. A name that does not resolve
   * now is accepted: nothing can be sent to it, and each attempt checks it again.
   */
  async checkRegistration(raw: string): Promise<URL> {
    const url = this.parse(raw);
    if (this.allowPrivate || literalAddress(url)) return url;
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolveHost(url);
    } catch {
      return url;
    }
    this.assertPublic(url, addresses);
    return url;
  }

  /** The checked address an attempt connects to. */
  async addressFor(url: URL): Promise<ResolvedAddress> {
    this.parse(url.href);
    const literal = literalAddress(url);
    if (literal) return { address: literal, family: ipaddr.parse(literal).kind() === 'ipv6' ? 6 : 4 };
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolveHost(url);
    } catch (error) {
      if (error instanceof UnsafeTarget) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new UnsafeTarget(`${url.hostname} does not resolve${code ? ` (${code})` : ''}`);
    }
    if (!this.allowPrivate) this.assertPublic(url, addresses);
    return addresses[0]!;
  }

  private async resolveHost(url: URL): Promise<ResolvedAddress[]> {
    const addresses = await withTimeout(this.resolve(url.hostname), RESOLVE_TIMEOUT_MS, () => {
      throw new UnsafeTarget(`resolving ${url.hostname} took longer than ${RESOLVE_TIMEOUT_MS / 1000} s`);
    });
    if (addresses.length === 0) throw new UnsafeTarget(`${url.hostname} does not resolve`);
    return addresses;
  }

  private assertPublic(url: URL, addresses: ResolvedAddress[]): void {
    const inside = addresses.find(({ address }) => !isPublicAddress(address));
    if (inside) {
      throw new UnsafeTarget(`${url.hostname} resolves to ${inside.address}, which is not a public address`);
    }
  }
}
