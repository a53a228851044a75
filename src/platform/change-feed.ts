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

export class ChangeFeed {
  live = false;
  /** Moves on whenever the feed (re)connects: changes missed meanwhile invalidate everything. */
  private epoch = 0;
  /** Per business: settings, hours, blackouts, resources and services. */
  private readonly rulesVersions = new Map<string, number>();
  /** Per business: bookings and resource blocks. */
  private readonly busyVersions = new Map<string, number>();
  private keysVersion = 0;

  /** An opaque stamp of a business's rules (not its bookings); null while caching is off. */
  rulesVersion(businessId: string): string | null {
    return this.live ? `${this.epoch}.${this.rulesVersions.get(businessId) ?? 0}` : null;
  }

  /** An opaque stamp of everything of a business availability depends on; null while caching is off. */
  businessVersion(businessId: string): string | null {
    if (!this.live) return null;
    return `${this.epoch}.${this.rulesVersions.get(businessId) ?? 0}.${this.busyVersions.get(businessId) ?? 0}`;
  }

  credentialsVersion(): string | null {
    return this.live ? `${this.epoch}.${this.keysVersion}` : null;
  }

  businessChanged(businessId: string): void {
    this.rulesChanged(businessId);
    this.busyChanged(businessId);
  }

  private rulesChanged(businessId: string): void {
    this.rulesVersions.set(businessId, (this.rulesVersions.get(businessId) ?? 0) + 1);
  }

  private busyChanged(businessId: string): void {
    this.busyVersions.set(businessId, (this.busyVersions.get(businessId) ?? 0) + 1);
  }

  credentialsChanged(): void {
    this.keysVersion++;
  }

  /** A notification payload: `rules:<business id>`, `busy:<business id>` or `keys:<id>`. */
  apply(payload: string): void {
    const [kind, id] = payload.split(':');
    if (kind === 'rules' && id) this.rulesChanged(id);
    else if (kind === 'busy' && id) this.busyChanged(id);
    else this.credentialsChanged();
  }

  connected(): void {
    this.epoch++;
    this.live = true;
  }

  disconnected(): void {
    this.live = false;
    this.epoch++;
  }
}

/** A size-bounded map that forgets the least recently used entry first. */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
