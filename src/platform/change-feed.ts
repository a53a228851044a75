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
  /** Blocks, and bookings whose dates are not known: every day at once. */
  busy: number;
  /** Bookings, per UTC date their held time touches. */
  days: Map<string, number>;
  /** Any change of bookings or blocks. */
  busyAny: number;
  changedAt: number;
}

const DAY_MS = 86_400_000;

/**
 * The UTC dates whose bookings can touch the day `date` of a business, in any zone: its opening
 * window starts after the local midnight (at most 14 hours before UTC midnight) less a buffer of
 * at most 4 hours, and ends before the local midnight two days on (overnight hours; at most 12
 * hours after UTC's) plus buffers of at most 8 hours. change-feed.test.ts checks the extremes.
 */
export function datesAround(date: string): string[] {
  const midnight = Date.parse(`${date}T00:00:00Z`);
  return [-1, 0, 1, 2].map((n) => new Date(midnight + n * DAY_MS).toISOString().slice(0, 10));
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
  /** `credentialsVersion()` as last made; undefined once it has moved. */
  private credentialsStamp: string | null | undefined;
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
    return `${this.epoch}.${versions?.rules ?? 0}.${versions?.busyAny ?? 0}`;
  }

  /**
   * An opaque stamp of what one day's availability of a business depends on (`date` as the
   * business counts it): its rules, its blocks and the bookings that can touch the day. Bookings
   * of other days leave it as it is. Null while caching is off.
   */
  dayVersion(businessId: string, date: string): string | null {
    if (!this.live) return null;
    const versions = this.businesses.get(businessId);
    if (!versions) return `${this.epoch}.0.0.0`;
    // The counters only grow: their sum moves whenever one of them does.
    let days = 0;
    if (versions.days.size > 0) for (const day of datesAround(date)) days += versions.days.get(day) ?? 0;
    return `${this.epoch}.${versions.rules}.${versions.busy}.${days}`;
  }

  /** Asked by every request with an API key: made when it moves, not per call. */
  credentialsVersion(): string | null {
    this.credentialsStamp ??= this.live ? `${this.epoch}.${this.keysVersion}` : null;
    return this.credentialsStamp;
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

  /** A change of bookings held on these UTC dates only: other days stay current. */
  bookingDaysChanged(businessId: string, dates: readonly string[]): void {
    const versions = this.changed(businessId);
    for (const date of dates) versions.days.set(date, (versions.days.get(date) ?? 0) + 1);
  }

  private changed(businessId: string, ...parts: ('rules' | 'busy')[]): BusinessVersions {
    const now = this.clock.now();
    const versions = this.businesses.get(businessId) ?? {
      rules: 0,
      busy: 0,
      days: new Map(),
      busyAny: 0,
      changedAt: now,
    };
    for (const part of parts) versions[part]++;
    versions.busyAny++;
    versions.changedAt = now;
    this.businesses.delete(businessId);
    this.businesses.set(businessId, versions);
    this.forgetQuiet(now);
    return versions;
  }

  private forgetQuiet(now: number): void {
    for (const [businessId, versions] of this.businesses) {
      if (now - versions.changedAt < FORGET_AFTER_MS) return;
      this.businesses.delete(businessId);
    }
  }

  credentialsChanged(): void {
    this.keysVersion++;
    this.credentialsStamp = undefined;
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

  /**
   * A notification payload: `rules:<business id>`, `busy:<business id>`, `busy:<business id>:<UTC
   * date>` (a booking held on that date), `keys:<id>` or `probe:<token>`.
   */
  apply(payload: string): void {
    const [kind, id, date] = payload.split(':');
    if (kind === 'probe') {
      if (id) this.probes.get(id)?.();
      if (id) this.forgetProbe(id);
    } else if (kind === 'rules' && id) this.changed(id, 'rules');
    else if (kind === 'busy' && id && date) this.bookingDaysChanged(id, [date]);
    else if (kind === 'busy' && id) this.changed(id, 'busy');
    else this.credentialsChanged();
  }

  connected(): void {
    if (this.everConnected) this.reconnects++;
    this.everConnected = true;
    this.epoch++;
    this.live = true;
    this.credentialsStamp = undefined;
  }

  disconnected(): void {
    this.live = false;
    this.epoch++;
    this.credentialsStamp = undefined;
  }
}
