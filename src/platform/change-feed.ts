import { type Clock, systemClock } from './clock.ts';

/**
 * Versions of what a process may cache, moved on by the database's change notifications
 * (`migrations/0005_change_feed.sql`) and, for this process's own writes, at once when the
 * write is answered, so a client always reads its own writes.
 *
 * A cached value is stored with the version read BEFORE its data was loaded and served only
 * while that version is still current, so data loaded before a change can never outlive it.
 * While the feed is not listening (not yet started, or its connection lost) nothing is cached.
 */
export const CHANGE_CHANNEL = 'slotwise_changes';

/**
 * How long a business's versions are kept after its last change. Far longer than any cached value
 * lives (a minute at most), so a business forgotten and changed again can never meet a value
 * cached under its old versions: every such value was stored before a change an hour ago.
 */
const FORGET_AFTER_MS = 3_600_000;

interface BusinessVersions {
  rules: number;
  busy: number;
  changedAt: number;
}

export class ChangeFeed {
  live = false;
  /** How many times the feed came back after it had been listening (metrics). */
  reconnects = 0;
  private everConnected = false;
  /** Echo notifications awaited by `probe`, by token. */
  private readonly probes = new Map<string, () => void>();
  /** Moves on whenever the feed (re)connects: changes missed meanwhile invalidate everything. */
  private epoch = 0;
  /**
   * Per business: `rules` (settings, hours, blackouts, resources, services) and `busy` (bookings,
   * blocks). Kept in order of last change, so forgetting quiet businesses reads only the oldest.
   */
  private readonly businesses = new Map<string, BusinessVersions>();
  private keysVersion = 0;
  private readonly clock: Clock;

  constructor(clock: Clock = systemClock()) {
    this.clock = clock;
  }

  /** An opaque stamp of a business's rules (not its bookings); null while caching is off. */
  rulesVersion(businessId: string): string | null {
    return this.live ? `${this.epoch}.${this.businesses.get(businessId)?.rules ?? 0}` : null;
  }

  /** An opaque stamp of everything of a business availability depends on; null while caching is off. */
  businessVersion(businessId: string): string | null {
    if (!this.live) return null;
    const versions = this.businesses.get(businessId);
    return `${this.epoch}.${versions?.rules ?? 0}.${versions?.busy ?? 0}`;
  }

  credentialsVersion(): string | null {
    return this.live ? `${this.epoch}.${this.keysVersion}` : null;
  }

  /** How many businesses have versions remembered (changed within the last hour). */
  get trackedBusinesses(): number {
    return this.businesses.size;
  }

  businessChanged(businessId: string): void {
    this.changed(businessId, 'rules', 'busy');
  }

  /** A change of the business's bookings or blocks only: its rules stay current. */
  bookingsChanged(businessId: string): void {
    this.changed(businessId, 'busy');
  }

  private changed(businessId: string, ...parts: ('rules' | 'busy')[]): void {
    const now = this.clock.now();
    const versions = this.businesses.get(businessId) ?? { rules: 0, busy: 0, changedAt: now };
    for (const part of parts) versions[part]++;
    versions.changedAt = now;
    this.businesses.delete(businessId);
    this.businesses.set(businessId, versions);
    this.forgetQuiet(now);
  }

  private forgetQuiet(now: number): void {
    for (const [businessId, versions] of this.businesses) {
      if (now - versions.changedAt < FORGET_AFTER_MS) return;
      this.businesses.delete(businessId);
    }
  }

  credentialsChanged(): void {
    this.keysVersion++;
  }

  /**
   * Resolves when the notification `probe:<token>` comes back through the feed: how long it took
   * is the feed's lag (the metrics send one per scrape). Probes of other processes change nothing.
   */
  probe(token: string): Promise<void> {
    return new Promise((resolve) => this.probes.set(token, resolve));
  }

  forgetProbe(token: string): void {
    this.probes.delete(token);
  }

  /** A notification payload: `rules:<business id>`, `busy:<business id>`, `keys:<id>` or `probe:<token>`. */
  apply(payload: string): void {
    const [kind, id] = payload.split(':');
    if (kind === 'probe') {
      if (id) this.probes.get(id)?.();
      if (id) this.forgetProbe(id);
    } else if (kind === 'rules' && id) this.changed(id, 'rules');
    else if (kind === 'busy' && id) this.changed(id, 'busy');
    else this.credentialsChanged();
  }

  connected(): void {
    if (this.everConnected) this.reconnects++;
    this.everConnected = true;
    this.epoch++;
    this.live = true;
  }

  disconnected(): void {
    this.live = false;
    this.epoch++;
  }
}
