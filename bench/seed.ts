import type { Insertable } from 'kysely';
import { wallTimeToInstant } from '../src/availability/engine/index.ts';
import { confirmationCode } from '../src/bookings/bookings.service.ts';
import { normalizePhone } from '../src/customers/customers.service.ts';
import { generateApiKey } from '../src/platform/auth.ts';
import type { Db } from '../src/platform/db.ts';
import { rangeLiteral } from '../src/platform/sql.ts';
import type { BookingsTable } from '../src/schema.ts';

export const SEED = {
  timezone: 'Europe/Berlin',
  resources: 50,
  sections: ['Terrace', 'Main room', 'Bar', 'Garden'],
  bookedDays: 60,
  occupancy: 0.7,
  open: '11:00',
  close: '23:00',
  durationMinutes: 90,
  intervalMinutes: 30,
  customers: 3000,
} as const;

export interface SeededBusiness {
  businessId: string;
  apiKey: string;
  bookings: number;
  /** Share of table time held by the seeded bookings. */
  occupancy: number;
  resourceIds: string[];
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
 * A restaurant with 50 tables in 4 sections, open 11:00-23:00 every day in Europe/Berlin, and
 * 60 days of 90-minute bookings filling about 70% of table time. Written straight into the
 * database (batched inserts) so seeding takes seconds, not a benchmark of its own.
 */
export async function seedBusiness(db: Db): Promise<SeededBusiness> {
  const random = seededRandom(424_242);
  const developer = await db
    .insertInto('developers')
    .values({
      email: `bench-${Date.now()}@slotwise.dev`,
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
      name: 'Benchmark Brasserie',
      slug: `benchmark-brasserie-${Date.now()}`,
      business_type: 'restaurant',
      timezone: SEED.timezone,
      default_slot_interval_minutes: SEED.intervalMinutes,
      default_slot_duration_minutes: SEED.durationMinutes,
      booking_window_days: 150,
      max_capacity: 8,
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
      scopes: ['read', 'write', 'admin'],
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
        open_time: SEED.open,
        close_time: SEED.close,
        last_booking_time: null,
      })),
    )
    .execute();
  const capacities = [2, 2, 4, 4, 4, 6, 6, 8];
  const resources = await db
    .insertInto('resources')
    .values(
      Array.from({ length: SEED.resources }, (_, i) => ({
        business_id: business.id,
        name: `Table ${i + 1}`,
        resource_type: 'table',
        capacity_min: 1,
        capacity_max: capacities[i % capacities.length]!,
        section: SEED.sections[i % SEED.sections.length]!,
        display_order: i + 1,
      })),
    )
    .returning(['id', 'capacity_max'])
    .execute();
  const customerIds: string[] = [];
  for (let offset = 0; offset < SEED.customers; offset += 1000) {
    const rows = await db
      .insertInto('customers')
      .values(
        Array.from({ length: Math.min(1000, SEED.customers - offset) }, (_, i) => {
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

  const slotMinutes = SEED.durationMinutes;
  const gap = SEED.intervalMinutes;
  const bookingOdds =
    (SEED.occupancy * gap) / (slotMinutes - SEED.occupancy * slotMinutes + SEED.occupancy * gap);
  const openMinutes = 11 * 60;
  const closeMinutes = 23 * 60;
  let batch: Insertable<BookingsTable>[] = [];
  let total = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await db.insertInto('bookings').values(batch).execute();
    total += batch.length;
    batch = [];
  };
  for (let day = 0; day < SEED.bookedDays; day++) {
    const date = dayFromToday(day);
    for (const resource of resources) {
      // Walk the day: a booking with odds p, else a 30-minute gap. Held share = d*p / (d*p + g*(1-p)),
      // so p = occ*g / (d - occ*d + occ*g) holds about `occupancy` of the time.
      let minute = openMinutes;
      while (minute + slotMinutes <= closeMinutes) {
        if (random() < bookingOdds) {
          const time = `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
          const start = wallTimeToInstant(date, time, SEED.timezone);
          if (start !== null) {
            const end = start + slotMinutes * 60_000;
            const endMinute = minute + slotMinutes;
            batch.push({
              business_id: business.id,
              customer_id: customerIds[Math.floor(random() * customerIds.length)]!,
              resource_id: resource.id,
              service_id: null,
              booking_date: date,
              start_time: time,
              end_time: `${String(Math.floor(endMinute / 60) % 24).padStart(2, '0')}:${String(endMinute % 60).padStart(2, '0')}`,
              duration_minutes: slotMinutes,
              starts_at: new Date(start),
              ends_at: new Date(end),
              during: rangeLiteral(start, end),
              status: 'confirmed',
              confirmation_code: confirmationCode(),
              capacity: 1 + Math.floor(random() * resource.capacity_max),
              source: 'online',
              customer_notes: null,
            });
            if (batch.length >= 500) await flush();
          }
          minute += slotMinutes;
        } else {
          minute += SEED.intervalMinutes;
        }
      }
    }
  }
  await flush();
  const heldMinutes = total * slotMinutes;
  const openTableMinutes = SEED.bookedDays * resources.length * (closeMinutes - openMinutes);
  return {
    businessId: business.id,
    apiKey: key.key,
    bookings: total,
    occupancy: heldMinutes / openTableMinutes,
    resourceIds: resources.map((r) => r.id),
  };
}
