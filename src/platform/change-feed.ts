import { type Clock, systemClock } from './clock.ts';

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

/**
 * Versions of what a process may cache, moved on by the rows of the change log
 * (`platform/change-log.ts`) and, for this process's own writes, at once when the write is
 * answered, so a client always reads its own writes.
 *
 * A cached value is stored with the version read BEFORE its data was loaded and served only
 * while that version is still current, so data loaded before a change can never outlive it.
 * Nothing is cached before the log is read, nor while its last successful poll began `maxLagMs`
 * ago or longer: a change committed elsewhere is then applied, or the cache not used, within that.
 */
export class ChangeFeed {
  /** How many times the feed started again after changes may have been missed (metrics). */
  reconnects = 0;
  private everConnected = false;
  private reading = false;
  /** When the last successful poll of the log began, on the clock. */
  private polledAt = Number.NEGATIVE_INFINITY;
  /** Moves on whenever the feed (re)starts: changes missed meanwhile invalidate everything. */
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
  private readonly maxLagMs: number;

  /** `maxLagMs`: `CHANGE_FEED_MAX_LAG_MS`; unbounded when not given (a feed applied by hand). */
  constructor(clock: Clock = systemClock(), maxLagMs = Number.POSITIVE_INFINITY) {
    this.clock = clock;
    this.maxLagMs = maxLagMs;
  }

  /** Whether caches may be used: the log is read, and its last poll began less than `maxLagMs` ago. */
  get live(): boolean {
    return this.reading && this.clock.now() - this.polledAt < this.maxLagMs;
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
    if (!this.live) return null;
    this.credentialsStamp ??= `${this.epoch}.${this.keysVersion}`;
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
   * A row's `cache`: `rules:<business id>`, `busy:<business id>`, `busy:<business id>:<UTC
   * date>[,<UTC date>...]` (a booking held on those dates) or `keys:<id>`.
   */
  apply(payload: string): void {
    const [kind, id, dates] = payload.split(':');
    if (kind === 'rules' && id) this.changed(id, 'rules');
    else if (kind === 'busy' && id && dates) this.bookingDaysChanged(id, dates.split(','));
    else if (kind === 'busy' && id) this.changed(id, 'busy');
    else this.credentialsChanged();
  }

  /** Reading the log from now on; what was cached before counts for nothing. */
  connected(): void {
    if (this.everConnected) this.reconnects++;
    this.everConnected = true;
    this.epoch++;
    this.reading = true;
    this.polledAt = this.clock.now();
    this.credentialsStamp = undefined;
  }

  /** A poll that began at `startedAt` has applied what it read. */
  polled(startedAt: number): void {
    this.polledAt = Math.max(this.polledAt, startedAt);
  }

  disconnected(): void {
    this.reading = false;
    this.epoch++;
    this.credentialsStamp = undefined;
  }
}
