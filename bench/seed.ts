import { type Insertable, sql } from 'kysely';
import { formatMinutes, minutesOf, wallTimeToInstant } from '../src/availability/engine/index.ts';
import { confirmationCode } from '../src/bookings/bookings.service.ts';
import { normalizePhone } from '../src/customers/customers.service.ts';
import { generateApiKey, type Scope } from '../src/platform/auth.ts';
import type { Db } from '../src/platform/db.ts';
import { rangeLiteral } from '../src/platform/sql.ts';
import type { BookingsTable } from '../src/schema.ts';

export interface SeedOptions {
  /** Tells apart the businesses of one database (name, slug, developer). */
  label: string;
  timezone: string;
  /** Every day of the week, 'HH:MM'. */
  open: string;
  close: string;
  resources: number;
  /** Seats of each resource, in turn. */
  capacities: readonly number[];
  /** Section of each resource, in turn. */
  sections: readonly (string | null)[];
  /** Services of 60, 90, 120... minutes. */
  services: number;
  customers: number;
  /** Days from today that get bookings, filling `occupancy` of table time. */
  bookedDays: number;
  occupancy: number;
  /** The business's default slot, which the seeded bookings also take. */
  durationMinutes: number;
  intervalMinutes: number;
  bookingWindowDays: number;
  maxCapacity: number;
  scopes: Scope[];
}

/** The restaurant of `npm run bench`. */
export const SEED: SeedOptions = {
  label: 'brasserie',
  timezone: 'Europe/Berlin',
  open: '11:00',
  close: '23:00',
  resources: 50,
  capacities: [2, 2, 4, 4, 4, 6, 6, 8],
  sections: ['Terrace', 'Main room', 'Bar', 'Garden'],
  services: 0,
  customers: 3000,
  bookedDays: 60,
  occupancy: 0.7,
  durationMinutes: 90,
  intervalMinutes: 30,
  // Room for every booking scenario on days of its own (up to day 270).
  bookingWindowDays: 365,
  maxCapacity: 8,
  scopes: ['read', 'write', 'admin'],
};

export interface SeededBusiness {
  businessId: string;
  apiKey: string;
  bookings: number;
  /** Share of table time held by the seeded bookings. */
  occupancy: number;
  resourceIds: string[];
  serviceIds: string[];
}

/** mulberry32: a small seeded generator, so every run seeds and measures the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const dayFromToday = (days: number) =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * A business with its developer, a live API key without a practical rate limit, the same hours
 * every day, resources, services, customers and `bookedDays` days of bookings from today. Written
 * straight into the database (batched inserts) so seeding takes seconds, not a benchmark of its
 * own. The bookings come from a fixed seed, so every run with the same options seeds the same.
 */
export async function seedBusiness(db: Db, options: SeedOptions = SEED): Promise<SeededBusiness> {
  const random = seededRandom(424_242);
  const developer = await db
    .insertInto('developers')
    .values({
      email: `bench-${options.label}@slotwise.dev`,
      password_hash: 'x',
      first_name: 'Bench',
      last_name: 'Mark',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const business = await db
    .insertInto('businesses')
    .values({
      developer_id: developer.id,
      name: `Bench ${options.label}`,
      slug: `bench-${options.label}`,
      business_type: 'restaurant',
      timezone: options.timezone,
      default_slot_interval_minutes: options.intervalMinutes,
      default_slot_duration_minutes: options.durationMinutes,
      booking_window_days: options.bookingWindowDays,
      max_capacity: options.maxCapacity,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const key = generateApiKey('live');
  await db
    .insertInto('api_keys')
    .values({
      business_id: business.id,
      name: 'bench',
      prefix: key.prefix,
      lookup: key.lookup,
      key_hash: key.keyHash,
      scopes: options.scopes,
      environment: 'live',
      rate_limit_per_minute: 1_000_000,
    })
    .execute();
  await db
    .insertInto('operating_hours')
    .values(
      [0, 1, 2, 3, 4, 5, 6].map((day) => ({
        business_id: business.id,
        day_of_week: day,
        is_open: true,
        open_time: options.open,
        close_time: options.close,
        last_booking_time: null,
      })),
    )
    .execute();
  const resources = await db
    .insertInto('resources')
    .values(
      Array.from({ length: options.resources }, (_, i) => ({
        business_id: business.id,
        name: `Table ${i + 1}`,
        resource_type: 'table',
        capacity_min: 1,
        capacity_max: options.capacities[i % options.capacities.length]!,
        section: options.sections[i % options.sections.length]!,
        display_order: i + 1,
      })),
    )
    .returning(['id', 'capacity_max'])
    .execute();
  const services =
    options.services === 0
      ? []
      : await db
          .insertInto('services')
          .values(
            Array.from({ length: options.services }, (_, i) => ({
              business_id: business.id,
              name: `Menu ${i + 1}`,
              duration_minutes: 60 + 30 * i,
            })),
          )
          .returning('id')
          .execute();
  const customerIds: string[] = [];
  for (let offset = 0; offset < options.customers; offset += 1000) {
    const rows = await db
      .insertInto('customers')
      .values(
        Array.from({ length: Math.min(1000, options.customers - offset) }, (_, i) => {
          const phone = `+49 30 ${String(1_000_000 + offset + i)}`;
          return {
            business_id: business.id,
            first_name: `Guest${offset + i}`,
            last_name: 'Bench',
            phone,
            phone_normalized: normalizePhone(phone),
            email: `guest${offset + i}@example.com`,
          };
        }),
      )
      .returning('id')
      .execute();
    customerIds.push(...rows.map((r) => r.id));
  }

  const slotMinutes = options.durationMinutes;
  const gap = options.intervalMinutes;
  const occupancy = options.occupancy;
  const bookingOdds = (occupancy * gap) / (slotMinutes - occupancy * slotMinutes + occupancy * gap);
  const openMinutes = minutesOf(options.open)!;
  const closeMinutes = minutesOf(options.close)!;
  let batch: Insertable<BookingsTable>[] = [];
  let total = 0;
  // Codes are unique per business; a year of bookings draws enough of them to meet a repeat now and then.
  const codes = new Set<string>();
  const freshCode = () => {
    let code = confirmationCode();
    while (codes.has(code)) code = confirmationCode();
    codes.add(code);
    return code;
  };
  const flush = async () => {
    if (batch.length === 0) return;
    await insertBookings(db, batch);
    total += batch.length;
    batch = [];
  };
  for (let day = 0; day < options.bookedDays; day++) {
    const date = dayFromToday(day);
    for (const resource of resources) {
      // Walk the day: a booking with odds p, else a gap of one interval. Held share = d*p / (d*p + g*(1-p)),
      // so p = occ*g / (d - occ*d + occ*g) holds about `occupancy` of the time.
      let minute = openMinutes;
      while (minute + slotMinutes <= closeMinutes) {
        if (random() < bookingOdds) {
          const time = formatMinutes(minute);
          const start = wallTimeToInstant(date, time, options.timezone);
          if (start !== null) {
            const end = start + slotMinutes * 60_000;
            batch.push({
              business_id: business.id,
              customer_id: customerIds[Math.floor(random() * customerIds.length)]!,
              resource_id: resource.id,
              service_id: null,
              booking_date: date,
              start_time: time,
              end_time: formatMinutes(minute + slotMinutes),
              duration_minutes: slotMinutes,
              starts_at: new Date(start),
              ends_at: new Date(end),
              during: rangeLiteral(start, end),
              status: 'confirmed',
              confirmation_code: freshCode(),
              capacity: 1 + Math.floor(random() * resource.capacity_max),
              source: 'online',
              customer_notes: null,
            });
            if (batch.length >= 500) await flush();
          }
          minute += slotMinutes;
        } else {
          minute += gap;
        }
      }
    }
  }
  await flush();
  const heldMinutes = total * slotMinutes;
  const openTableMinutes = options.bookedDays * resources.length * (closeMinutes - openMinutes);
  return {
    businessId: business.id,
    apiKey: key.key,
    bookings: total,
    occupancy: openTableMinutes === 0 ? 0 : heldMinutes / openTableMinutes,
    resourceIds: resources.map((r) => r.id),
    serviceIds: services.map((s) => s.id),
  };
}

/**
 * Writes a batch of bookings with the session's triggers switched off (a row-by-row trigger keeps
 * each booking's holds, which a seed of a hundred thousand bookings cannot wait for on the embedded
 * engine), then their holds in one statement, as the trigger writes them for an active booking.
 * On one connection, so the switch applies to the batch alone.
 */
async function insertBookings(db: Db, rows: Insertable<BookingsTable>[]): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`SET session_replication_role = replica`.execute(connection);
    try {
      const held = await connection
        .insertInto('bookings')
        .values(rows)
        .returning(['business_id', 'id', 'resource_id', 'during', 'status'])
        .execute();
      const active = held.filter((row) => ['pending', 'confirmed', 'checked_in'].includes(row.status));
      if (active.length > 0) {
        await connection
          .insertInto('booking_holds')
          .values(
            active.map((row) => ({
              business_id: row.business_id,
              booking_id: row.id,
              resource_id: row.resource_id,
              during: row.during,
            })),
          )
          .execute();
      }
    } finally {
      await sql`SET session_replication_role = DEFAULT`.execute(connection);
    }
  });
}

/** Covers per grid time of both periods of the bistro of `addServiceRules`. */
export const PACED_COVERS = 20;
/** Combinations `addServiceRules` joins, each of two neighbouring tables. */
export const COMBINATIONS = 10;

/**
 * Turns a seeded business into the bistro of the worked example: lunch 12:00-14:30 every 15
 * minutes and dinner 18:00-22:30 every 30, two hours for parties of 5 or more, 20 covers per
 * grid time, and 10 combinations of neighbouring tables, each seating a party larger than either table up to
 * the sum of their seats.
 */
export async function addServiceRules(db: Db, seeded: SeededBusiness): Promise<void> {
  await db
    .updateTable('businesses')
    .set({ turn_times: JSON.stringify([{ min_party: 5, max_party: 50, duration_minutes: 120 }]) })
    .where('id', '=', seeded.businessId)
    .execute();
  const everyDay = [0, 1, 2, 3, 4, 5, 6];
  const period = (
    name: string,
    start_time: string,
    end_time: string,
    interval: number,
    position: number,
  ) => ({
    business_id: seeded.businessId,
    name,
    days_of_week: everyDay,
    start_time,
    end_time,
    slot_interval_minutes: interval,
    max_covers_per_slot: PACED_COVERS,
    position,
  });
  await db
    .insertInto('service_periods')
    .values([period('Lunch', '12:00', '14:30', 15, 0), period('Dinner', '18:00', '22:30', 30, 1)])
    .execute();
  const tables = await db
    .selectFrom('resources')
    .select(['id', 'capacity_max'])
    .where('business_id', '=', seeded.businessId)
    .orderBy('display_order')
    .orderBy('id')
    .execute();
  const joined = Array.from(
    { length: COMBINATIONS },
    (_, i) => [tables[2 * i]!, tables[2 * i + 1]!] as const,
  );
  await db
    .insertInto('combinations')
    .values(
      joined.map(([a, b], i) => ({
        business_id: seeded.businessId,
        name: `Joined ${i + 1}`,
        resource_ids: [a.id, b.id],
        capacity_min: Math.max(a.capacity_max, b.capacity_max) + 1,
        capacity_max: a.capacity_max + b.capacity_max,
      })),
    )
    .execute();
}
