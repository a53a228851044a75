/**
 * The feeds a reservation partner reads of the businesses listed with it, in the shapes of the
 * Maps Booking feeds (docs/partners.md): merchants, services and availability, made from the same
 * answers as the API (the public business, its services, the engine's day). Availability is one
 * shard per merchant: a merchant's next 30 days is thousands of slots, so one answer never holds
 * more than one merchant's.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AvailabilityService } from '../availability/availability.service.ts';
import { addDays, todayIn, wallTimeToInstant } from '../engine/index.ts';
import { isFoodEstablishment } from '../engine/venue-kind.ts';
import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Executor } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { businessBySlug } from '../public/public.service.ts';
import { offeredServices, RESERVATION_SERVICE } from './maps-booking.service.ts';
import { listedBusinessIds, merchantFacts, seatingOf } from './partners.queries.ts';
import type { Partner } from './partners.service.ts';

/** How far ahead the availability feed reaches (the venue's booking window, if shorter). */
export const FEED_DAYS = 30;

/**
 * What one merchant's availability may cost: its days × services × parties asked of the engine,
 * and its entries (about 200 bytes of JSON each); the feed's cache of days, in entries, for all.
 * A restaurant's 30 days for parties of 1 to 8 ask 240 days and make about 5,000 entries.
 */
export interface FeedLimits {
  daysAsked: number;
  entries: number;
  cachedEntries: number;
}

export const FEED_LIMITS: FeedLimits = { daysAsked: 2_000, entries: 25_000, cachedEntries: 200_000 };

export interface FeedDeps {
  db: Executor;
  availability: AvailabilityService;
  changes: ChangeFeed;
  publicBaseUrl: string;
}

/** A feed as served: its JSON text, and the tag of its data (the metadata's timestamp aside). */
export interface Feed {
  text: string;
  etag: string;
}

/**
 * A feed of the spec: its data under `metadata`, complete (`PROCESS_AS_COMPLETE`), its nonce the
 * data's own tag, so the same data is the same feed whenever it is read. The data is written as
 * JSON once, for its tag and its answer alike.
 */
function feed(key: string, data: unknown, now: number, shard = 0, totalShards = 1): Feed {
  const json = JSON.stringify(data);
  const hash = createHash('sha256').update(json).digest();
  const metadata = {
    processing_instruction: 'PROCESS_AS_COMPLETE',
    shard_number: shard,
    total_shards: totalShards,
    nonce: String(hash.readUIntBE(0, 6)),
    generation_timestamp: Math.floor(now / 1000),
  };
  return {
    etag: `"${hash.toString('base64url')}"`,
    text: `{"metadata":${JSON.stringify(metadata)},${JSON.stringify(key)}:${json}}`,
  };
}

/** The merchants listed with the partner: name, phone, booking page, category and address. */
export async function merchantsFeed(deps: FeedDeps, partner: Partner, now: number): Promise<Feed> {
  const ids = await listedBusinessIds(deps.db, partner.id);
  const facts = new Map((await merchantFacts(deps.db, ids)).map((row) => [row.id, row]));
  const merchants = [];
  for (const id of ids) {
    const business = await businessBySlug(deps.db, id);
    const more = facts.get(id);
    merchants.push({
      merchant_id: id,
      name: business.name,
      ...(business.phone ? { telephone: business.phone } : {}),
      url: `${deps.publicBaseUrl}/book/${encodeURIComponent(business.slug)}`,
      category: isFoodEstablishment(more?.business_type) ? 'restaurant' : (more?.business_type ?? 'other'),
      ...(business.address ? { geo: { unstructured_address: business.address } } : {}),
      ...(business.description ? { description: business.description } : {}),
    });
  }
  return feed('merchant', merchants, now);
}

/**
 * The services of each merchant: its plain reservation, or its active services, each with its
 * name and the venue's notice and cancellation rules in seconds. Party sizes and lengths are the
 * availability feed's, per slot, as the spec has them.
 */
export async function servicesFeed(deps: FeedDeps, partner: Partner, now: number): Promise<Feed> {
  const ids = await listedBusinessIds(deps.db, partner.id);
  const facts = new Map((await merchantFacts(deps.db, ids)).map((row) => [row.id, row]));
  const services = [];
  for (const id of ids) {
    const rules = await deps.availability.businessRules(id, now);
    const more = facts.get(id);
    if (!rules || !more) continue;
    const language = more.notification_language;
    const name = (value: string) => ({ value, localized_value: [{ locale: language, value }] });
    const serviceRules = {
      min_advance_booking: rules.min_notice_hours * 3600,
      min_advance_online_canceling: rules.cancellation_cutoff_hours * 3600,
    };
    for (const service of await offeredServices(deps.db, more)) {
      services.push({
        merchant_id: id,
        service_id: service.id,
        localized_service_name: name(service.name),
        ...(service.description ? { localized_service_description: name(service.description) } : {}),
        rules: serviceRules,
      });
    }
  }
  return feed('service', services, now);
}

/** One availability entry of the spec: a start, its length, its party, and how many bookings it takes. */
interface AvailabilityEntry {
  merchant_id: string;
  service_id: string;
  start_sec: number;
  duration_sec: number;
  spots_total: number;
  spots_open: number;
  resources: { party_size: number };
  confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS';
}

/**
 * The availability feed's own cache: one merchant's entries of a day for a service and party,
 * kept under that day's change version, so that a booking makes only its own day be computed
 * again (the change log moves the version on in every process). Bounded by the entries it holds,
 * apart from the availability caches, so partners' feeds never push guests' days out of those.
 */
export class AvailabilityFeed {
  private readonly deps: FeedDeps;
  private readonly limits: FeedLimits;
  private readonly days: LRUCache<string, { version: string; entries: AvailabilityEntry[] }>;
  /** A merchant's entries being made: callers at the same moment share one making. */
  private readonly making = new Map<string, Promise<AvailabilityEntry[]>>();

  constructor(deps: FeedDeps, limits: FeedLimits = FEED_LIMITS) {
    this.deps = deps;
    this.limits = limits;
    this.days = new LRUCache({
      maxSize: limits.cachedEntries,
      sizeCalculation: (value) => Math.max(1, value.entries.length),
      ttl: 60_000,
    });
  }

  /**
   * Shard `shard` of the partner's availability: the merchant at that place of its listing, whose
   * share of the database (`charge`) its days are computed on.
   */
  async shard(
    partner: Partner,
    shard: number,
    now: number,
    charge: (businessId: string) => void,
  ): Promise<Feed> {
    const ids = await listedBusinessIds(this.deps.db, partner.id);
    if (shard >= Math.max(ids.length, 1)) {
      throw new AppError('bad_request', `shard must be below total_shards (${Math.max(ids.length, 1)})`);
    }
    const merchantId = ids[shard];
    let entries: AvailabilityEntry[] = [];
    if (merchantId) {
      charge(merchantId);
      let making = this.making.get(merchantId);
      if (!making) {
        making = this.merchantEntries(merchantId, now).finally(() => this.making.delete(merchantId));
        this.making.set(merchantId, making);
      }
      entries = await making;
    }
    return feed('service_availability', [{ availability: entries }], now, shard, Math.max(ids.length, 1));
  }

  /**
   * The merchant's entries, nearest day first, as many whole days as the limits allow: a venue
   * of many services and parties gets fewer than 30 days rather than an answer of any size.
   */
  private async merchantEntries(businessId: string, now: number): Promise<AvailabilityEntry[]> {
    const business = await businessBySlug(this.deps.db, businessId);
    const [more] = await merchantFacts(this.deps.db, [businessId]);
    const services = await offeredServices(this.deps.db, {
      id: businessId,
      business_type: more?.business_type ?? null,
    });
    const seating = await seatingOf(this.deps.db, businessId);
    const today = todayIn(business.timezone, now);
    const days = Math.min(FEED_DAYS, business.booking_window_days + 1);
    const parties = Math.max(0, business.max_online_party_size - business.min_capacity + 1);
    const entries: AvailabilityEntry[] = [];
    let asked = 0;
    for (let day = 0; day < days; day++) {
      asked += services.length * parties;
      if (asked > this.limits.daysAsked) break;
      const date = addDays(today, day);
      const ofDay: AvailabilityEntry[] = [];
      for (const service of services) {
        for (let party = business.min_capacity; party <= business.max_online_party_size; party++) {
          const seats =
            service.seats ?? seating.filter((s) => s.capacity_min <= party && party <= s.capacity_max).length;
          ofDay.push(...(await this.dayEntries(business, service.id, date, party, seats)));
        }
      }
      if (entries.length + ofDay.length > this.limits.entries) break;
      entries.push(...ofDay);
    }
    return entries;
  }

  private async dayEntries(
    business: { id: string; timezone: string },
    serviceId: string,
    date: string,
    party: number,
    seats: number,
  ): Promise<AvailabilityEntry[]> {
    const version = this.deps.changes.dayVersion(business.id, date);
    const key = [business.id, serviceId, date, party].join('|');
    const hit = this.days.get(key);
    if (hit && version !== null && hit.version === version) return hit.entries;
    const { slots } = await this.deps.availability.day({
      businessId: business.id,
      date,
      partySize: party,
      serviceId: serviceId === RESERVATION_SERVICE ? undefined : serviceId,
      perResource: false,
      channel: 'online',
      keep: false,
    });
    const entries: AvailabilityEntry[] = [];
    for (const slot of slots) {
      if (!('remaining_resources' in slot)) continue;
      const start = wallTimeToInstant(date, slot.time, business.timezone);
      if (start === null) continue;
      const open = slot.available ? (slot.seats_left ?? slot.remaining_resources) : 0;
      entries.push({
        merchant_id: business.id,
        service_id: serviceId,
        start_sec: start / 1000,
        duration_sec: (slot.duration_minutes ?? 0) * 60,
        spots_total: Math.max(seats, open),
        spots_open: open,
        resources: { party_size: party },
        confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
      });
    }
    if (version !== null) this.days.set(key, { version, entries });
    return entries;
  }
}
