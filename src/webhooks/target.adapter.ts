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

/** A host name that gave no address when a delivery was about to be sent. */
export class UnresolvedHost extends Error {}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address stands for: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated
 * (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64's well-known prefix
 * (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo (its server, and its client stored
 * inverted in the last 32 bits). Undefined for any other address.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const parts = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [ipv4Of(parts[6]!, parts[7]!)];
    case 'rfc6052':
      // The local-use prefix (64:ff9b:1::/48) places the IPv4 address by its own prefix length: not judged here.
      return parts[2] === 0 ? [ipv4Of(parts[6]!, parts[7]!)] : undefined;
    case '6to4':
      return [ipv4Of(parts[1]!, parts[2]!)];
    case 'teredo':
      return [ipv4Of(parts[2]!, parts[3]!), ipv4Of(~parts[6]! & 0xffff, ~parts[7]! & 0xffff)];
  }
  return address.match(IPV4_COMPATIBLE) ? [ipv4Of(parts[6]!, parts[7]!)] : undefined;
}

/**
 * Only ordinary public unicast addresses: not private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, documentation or unspecified ones, and in IPv6 only
 * the global unicast space. An IPv6 address that carries an IPv4 address (mapped, compatible,
 * NAT64, 6to4, Teredo) is judged by the IPv4 address inside: the packets end up there.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const inside = embeddedIPv4(v6);
  if (inside) return inside.every((ipv4) => ipv4.range() === 'unicast');
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST);
}

/** The lowest port outside the well-known ones, where no system service listens. */
const FIRST_PORT_ALLOWED = 1024;

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

  /** Said with each refusal the switch would lift, so a developer with a local receiver finds it. */
  private static readonly LOCAL_HINT =
    '(a server started with WEBHOOK_ALLOW_PRIVATE_URLS=true accepts http and private addresses, for local development)';

  private get allowPrivate(): boolean {
    return this.config.webhookAllowPrivateUrls;
  }

  /**
   * The rules a URL's text decides: absolute, https, no user info, port 443 or 1024-65535, not a
   * private address written out. `allowPrivate` lifts the scheme and address rules only.
   */
  parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UnsafeTarget('must be an absolute URL such as https://example.com/webhooks');
    }
    if (url.protocol !== 'https:' && !(this.allowPrivate && url.protocol === 'http:')) {
      throw new UnsafeTarget(`must be an https:// URL ${WebhookTargets.LOCAL_HINT}`);
    }
    // A receiver of webhooks needs no credentials in its URL; they would only be sent in the clear to logs.
    if (url.username || url.password) throw new UnsafeTarget('must not contain a user name or password');
    // The scheme's own port (an empty `port`) or an unprivileged one: never another service of a host (SSH, SMTP).
    if (url.port !== '' && Number(url.port) < FIRST_PORT_ALLOWED) {
      throw new UnsafeTarget(`must use port 443 or a port from ${FIRST_PORT_ALLOWED} to 65535`);
    }
    const address = literalAddress(url);
    if (address && !this.allowPrivate && !isPublicAddress(address)) {
      throw new UnsafeTarget(`${address} is not a public address ${WebhookTargets.LOCAL_HINT}`);
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

  /**
   * The checked address an attempt connects to. Throws UnsafeTarget for a URL the rules refuse,
   * UnresolvedHost for a name that gives no address now.
   */
  async addressFor(url: URL): Promise<ResolvedAddress> {
    this.parse(url.href);
    const literal = literalAddress(url);
    if (literal) return { address: literal, family: ipaddr.parse(literal).kind() === 'ipv6' ? 6 : 4 };
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolveHost(url);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UnresolvedHost(`${url.hostname} does not resolve${code ? ` (${code})` : ''}`, {
        cause: error,
      });
    }
    if (!this.allowPrivate) this.assertPublic(url, addresses);
    return addresses[0]!;
  }

  private async resolveHost(url: URL): Promise<ResolvedAddress[]> {
    const addresses = await withTimeout(this.resolve(url.hostname), RESOLVE_TIMEOUT_MS, () => {
      throw new UnresolvedHost(`resolving ${url.hostname} took longer than ${RESOLVE_TIMEOUT_MS / 1000} s`);
    });
    if (addresses.length === 0) throw new UnresolvedHost(`${url.hostname} does not resolve`);
    return addresses;
  }

  /** The address itself is not named: it would tell a tenant how names resolve inside the network. */
  private assertPublic(url: URL, addresses: ResolvedAddress[]): void {
    if (!addresses.every(({ address }) => isPublicAddress(address))) {
      throw new UnsafeTarget(
        `${url.hostname} resolves to an address that is not public ${WebhookTargets.LOCAL_HINT}`,
      );
    }
  }
}
