import { randomUUID } from 'node:crypto';
import { type Insertable, sql } from 'kysely';
import { confirmationCode } from '../src/bookings/bookings.service.ts';
import { normalizePhone } from '../src/customers/customers.service.ts';
import { formatMinutes, minutesOf, wallTimeToInstant } from '../src/engine/index.ts';
import type { BookingStatus } from '../src/engine/status.ts';
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
  /** Services of 60, 90, 120... minutes (a restaurant), or of 30, 45, 60... (a salon or clinic). */
  services: number;
  customers: number;
  /** Days from `firstDay` that get bookings, filling `occupancy` of table time. */
  bookedDays: number;
  occupancy: number;
  /** The business's default slot, which the seeded bookings also take. */
  durationMinutes: number;
  intervalMinutes: number;
  bookingWindowDays: number;
  maxCapacity: number;
  scopes: Scope[];
  /**
   * The first booked day, counted from today (default 0). Bookings before now are history: mostly
   * completed, some cancelled or no-show; the others are confirmed.
   */
  firstDay?: number;
  /** A restaurant books tables; a salon or clinic books staff for one of its services (default restaurant). */
  kind?: 'restaurant' | 'salon' | 'clinic';
  bookingMode?: 'scheduled' | 'dynamic';
  /** Bookings of 4 or more then carry a deposit of `default_deposit_amount_cents` a person. */
  depositType?: 'none' | 'charge' | 'authorization_hold';
  /** Start of the customers' phone numbers, with the country code (default '+49 30'). */
  phonePrefix?: string;
  /** Seed of the business's own generator (default 424242): the same options and seed give the same rows. */
  seed?: number;
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
  /** What a host would type to find one of its customers: part of a name, an email or a phone. */
  searches: string[];
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

const FIRST_NAMES = (
  'Anna Élodie Jürgen Maria Lukas Sophie Mohammed Priya Chloé James Olivia Noah Zoë Mateo Aisha ' +
  'Hiroshi Ingrid Søren Lucía Ahmet Emma Liam Grace Raphaël Ana Tomás Yuki Fatima Oliver Nadia'
).split(' ');
const LAST_NAMES = (
  "Müller Schmidt Dubois García Rossi Smith Johnson O'Brien Nguyen Kowalski Jensen Fernández Weiß " +
  'Lefèvre Patel Sharma Tanaka Yılmaz Wilson Brown Martin Bernard Novak Costa Silva Kim Andersson ' +
  'Öztürk Murphy Walsh Hoffmann Schäfer Moreau Ricci Lopez Taylor Thompson White Harris Clarke'
).split(' ');
const EMAIL_DOMAINS = ['example.com', 'example.org', 'example.net'];
/** Statuses of a past booking, each with its share of the walk's bookings. */
const PAST_STATUSES: readonly [BookingStatus, number][] = [
  ['completed', 0.86],
  ['cancelled', 0.1],
  ['no_show', 0.04],
];

interface Customer {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
}

/** One business of a seed, set up and ready to draw its bookings day by day. */
interface Venue {
  options: SeedOptions;
  seeded: SeededBusiness;
  random: () => number;
  resources: { id: string; capacity_max: number }[];
  services: { id: string; duration_minutes: number }[];
  customers: Customer[];
  codes: Set<string>;
}

/**
 * A business with its developer, a live API key without a practical rate limit, the same hours
 * every day, resources, services, customers and `bookedDays` days of bookings from `firstDay`.
 * Written straight into the database (batched inserts) so seeding takes seconds, not a benchmark
 * of its own. The bookings come from a fixed seed, so every run with the same options seeds the same.
 */
export async function seedBusiness(db: Db, options: SeedOptions = SEED): Promise<SeededBusiness> {
  return (await seedBusinesses(db, [options]))[0]!;
}

/** Batches of bookings written at once, on connections of their own: the database's work on one overlaps the next's. */
const WRITERS = 2;

/**
 * Several businesses in one database, as `seedBusiness` seeds each. Their bookings are written
 * day by day, the days' bookings of all of them mixed as a platform receives them, so each
 * business's rows are spread over the table rather than side by side. Each business draws from a
 * generator of its own: seeded alone or among others, it gets the same rows.
 */
export async function seedBusinesses(db: Db, all: readonly SeedOptions[]): Promise<SeededBusiness[]> {
  const venues: Venue[] = [];
  for (const options of all) venues.push(await setUpVenue(db, options));
  const shuffle = seededRandom(97);
  const first = Math.min(...all.map((options) => options.firstDay ?? 0));
  const last = Math.max(...all.map((options) => (options.firstDay ?? 0) + options.bookedDays));
  let batch: Insertable<BookingsTable>[] = [];
  const writing: Promise<void>[] = [];
  for (let day = first; day < last; day++) {
    for (const venue of venues) {
      const from = venue.options.firstDay ?? 0;
      if (day >= from && day < from + venue.options.bookedDays) batch.push(...venueDay(venue, day));
    }
    if (venues.length > 1) {
      for (let i = batch.length - 1; i > 0; i--) {
        const j = Math.floor(shuffle() * (i + 1));
        [batch[i], batch[j]] = [batch[j]!, batch[i]!];
      }
    }
    if (batch.length >= 2000 || day === last - 1) {
      if (writing.length === WRITERS) await writing.shift();
      writing.push(insertBookings(db, batch));
      batch = [];
    }
  }
  await Promise.all(writing);
  return venues.map((venue) => {
    const { options, seeded } = venue;
    const openTableMinutes =
      options.bookedDays * venue.resources.length * (minutesOf(options.close)! - minutesOf(options.open)!);
    return {
      ...seeded,
      occupancy: openTableMinutes === 0 ? 0 : seeded.occupancy / openTableMinutes,
    };
  });
}

async function setUpVenue(db: Db, options: SeedOptions): Promise<Venue> {
  const kind = options.kind ?? 'restaurant';
  const seed = options.seed ?? 424_242;
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
      business_type: kind,
      timezone: options.timezone,
      default_slot_interval_minutes: options.intervalMinutes,
      default_slot_duration_minutes: options.durationMinutes,
      booking_window_days: options.bookingWindowDays,
      max_capacity: options.maxCapacity,
      booking_mode: options.bookingMode ?? 'scheduled',
      deposit_type: options.depositType ?? 'none',
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
  const [noun, type] =
    kind === 'restaurant' ? ['Table', 'table'] : kind === 'salon' ? ['Chair', 'staff'] : ['Room', 'room'];
  const resources = await db
    .insertInto('resources')
    .values(
      Array.from({ length: options.resources }, (_, i) => ({
        business_id: business.id,
        name: `${noun} ${i + 1}`,
        resource_type: type,
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
              name: `${kind === 'restaurant' ? 'Menu' : 'Service'} ${i + 1}`,
              duration_minutes: kind === 'restaurant' ? 60 + 30 * i : 30 + 15 * i,
            })),
          )
          .returning(['id', 'duration_minutes'])
          .execute();
  const customers = await insertCustomers(db, business.id, options, seededRandom(seed + 1));
  return {
    options,
    seeded: {
      businessId: business.id,
      apiKey: key.key,
      bookings: 0,
      // Booked minutes until the end, then their share of the open table time.
      occupancy: 0,
      resourceIds: resources.map((r) => r.id),
      serviceIds: services.map((s) => s.id),
      searches: customerSearches(customers, seededRandom(seed + 2)),
    },
    random: seededRandom(seed),
    resources,
    services: kind === 'restaurant' ? [] : services,
    customers,
    codes: new Set(),
  };
}

/**
 * Customers with names from many countries (accents and all), emails and phones of the
 * business's country. Written with the triggers on: `customers_search` keeps their search keys
 * as it does for every customer the service writes.
 */
async function insertCustomers(
  db: Db,
  businessId: string,
  options: SeedOptions,
  random: () => number,
): Promise<Customer[]> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const prefix = options.phonePrefix ?? '+49 30';
  // A phone is one customer's in a business.
  const phones = new Set<string>();
  const customers: Customer[] = Array.from({ length: options.customers }, (_, i) => {
    const first_name = pick(FIRST_NAMES);
    const last_name = pick(LAST_NAMES);
    let local = String(1_000_000 + Math.floor(random() * 9_000_000));
    while (phones.has(local)) local = String(1_000_000 + Math.floor(random() * 9_000_000));
    phones.add(local);
    return {
      id: randomUUID(),
      first_name,
      last_name,
      email: `${searchKey(first_name)}.${searchKey(last_name).replace(/\W/g, '')}${i}@${pick(EMAIL_DOMAINS)}`,
      phone: `${prefix} ${local.slice(0, 3)} ${local.slice(3)}`,
    };
  });
  for (let offset = 0; offset < customers.length; offset += 5000) {
    const rows = customers.slice(offset, offset + 5000).map((customer) => ({
      ...customer,
      business_id: businessId,
      phone_normalized: normalizePhone(customer.phone),
    }));
    await sql`
      INSERT INTO customers (id, business_id, first_name, last_name, email, phone, phone_normalized)
      SELECT id, business_id, first_name, last_name, email, phone, phone_normalized
      FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, business_id uuid,
        first_name text, last_name text, email text, phone text, phone_normalized text)
    `.execute(db);
  }
  return customers;
}

/** Lower case without accents, as a host types a name they heard. */
const searchKey = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Searches a host types: the start of a last name (without its accents), a first and last
 * name's starts, the start of an email, a phone's last digits or its local part as written.
 */
function customerSearches(customers: Customer[], random: () => number): string[] {
  if (customers.length === 0) return [];
  return Array.from({ length: 200 }, (_, i) => {
    const customer = customers[Math.floor(random() * customers.length)]!;
    const local = customer.phone.split(' ').slice(-2).join(' ');
    switch (i % 5) {
      case 0:
        return searchKey(customer.last_name).slice(0, 4);
      case 1:
        return `${customer.first_name.slice(0, 3)} ${customer.last_name.slice(0, 2)}`;
      case 2:
        return customer.email.slice(0, 6);
      case 3:
        return local.replace(' ', '').slice(-5);
      default:
        return local;
    }
  });
}

/** One day's bookings of a business: walk each resource's day, a booking with the odds that fill `occupancy`. */
function venueDay(venue: Venue, day: number): Insertable<BookingsTable>[] {
  const { options, random, customers, services, seeded } = venue;
  const gap = options.intervalMinutes;
  const occupancy = options.occupancy;
  const meanMinutes =
    services.length === 0
      ? options.durationMinutes
      : services.reduce((sum, service) => sum + service.duration_minutes, 0) / services.length;
  // Walk the day: a booking with odds p, else a gap of one interval. Held share = d*p / (d*p + g*(1-p)),
  // so p = occ*g / (d - occ*d + occ*g) holds about `occupancy` of the time.
  const bookingOdds = (occupancy * gap) / (meanMinutes - occupancy * meanMinutes + occupancy * gap);
  const openMinutes = minutesOf(options.open)!;
  const closeMinutes = minutesOf(options.close)!;
  const date = dayFromToday(day);
  const now = Date.now();
  const rows: Insertable<BookingsTable>[] = [];
  for (const resource of venue.resources) {
    let minute = openMinutes;
    while (minute + options.durationMinutes <= closeMinutes) {
      if (random() >= bookingOdds) {
        minute += gap;
        continue;
      }
      const service = services.length === 0 ? null : services[Math.floor(random() * services.length)]!;
      const minutes = service?.duration_minutes ?? options.durationMinutes;
      if (minute + minutes > closeMinutes) break;
      const time = formatMinutes(minute);
      const start = wallTimeToInstant(date, time, options.timezone);
      if (start !== null && customers.length > 0) {
        const end = start + minutes * 60_000;
        const customer = customers[Math.floor(random() * customers.length)]!;
        const capacity = 1 + Math.floor(random() * resource.capacity_max);
        rows.push({
          business_id: seeded.businessId,
          customer_id: customer.id,
          resource_id: resource.id,
          service_id: service?.id ?? null,
          booking_date: date,
          start_time: time,
          end_time: formatMinutes(minute + minutes),
          duration_minutes: minutes,
          starts_at: new Date(start),
          ends_at: new Date(end),
          during: rangeLiteral(start, end),
          status: start < now ? pastStatus(random()) : 'confirmed',
          confirmation_code: freshCode(venue.codes),
          capacity,
          source: 'online',
          customer_notes: null,
          guest_first_name: customer.first_name,
          guest_last_name: customer.last_name,
          guest_email: customer.email,
          // Booked up to a month ahead, never after now.
          created_at: new Date(Math.min(now, start - (seeded.bookings % 30) * 86_400_000)),
        });
        seeded.bookings++;
        seeded.occupancy += minutes;
      }
      minute += minutes;
    }
  }
  return rows;
}

function pastStatus(draw: number): BookingStatus {
  let sum = 0;
  for (const [status, share] of PAST_STATUSES) {
    sum += share;
    if (draw < sum) return status;
  }
  return 'completed';
}

/** Codes are unique per business; a year of bookings draws enough of them to meet a repeat now and then. */
function freshCode(codes: Set<string>): string {
  let code = confirmationCode();
  while (codes.has(code)) code = confirmationCode();
  codes.add(code);
  return code;
}

/**
 * Writes a batch of bookings with the session's triggers switched off (a row-by-row trigger keeps
 * each booking's holds, which a seed of a million bookings cannot wait for), in the same statement
 * their holds (`slotwise_booking_holds`, the rows the trigger `bookings_written` writes), and the
 * deposits of the businesses that take them (bookings of 4 or more, settled as the booking ended). One statement
 * of one JSON parameter, the same on both engines. On one connection, so the switch applies to
 * the batch alone.
 */
export async function insertBookings(db: Db, rows: Insertable<BookingsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.connection().execute(async (connection) => {
    await sql`SET session_replication_role = replica`.execute(connection);
    try {
      await sql`
        WITH b AS (
          INSERT INTO bookings (business_id, customer_id, resource_id, service_id, booking_date, start_time,
            end_time, duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity,
            source, customer_notes, guest_first_name, guest_last_name, guest_email, created_at)
          SELECT business_id, customer_id, resource_id, service_id, booking_date, start_time, end_time,
            duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity, source,
            customer_notes, guest_first_name, guest_last_name, guest_email, coalesce(created_at, now())
          FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(business_id uuid, customer_id uuid,
            resource_id uuid, service_id uuid, booking_date date, start_time time, end_time time,
            duration_minutes int, starts_at timestamptz, ends_at timestamptz, during tstzrange, status text,
            confirmation_code text, capacity int, source text, customer_notes text, guest_first_name text,
            guest_last_name text, guest_email text, created_at timestamptz)
          RETURNING *
        ),
        holds AS (
          INSERT INTO booking_holds (business_id, booking_id, resource_id, during, shared_by)
          SELECT held.* FROM b, slotwise_booking_holds(b::bookings) AS held
        )
        INSERT INTO deposits (business_id, booking_id, type, status, amount_cents, currency, processor)
        SELECT b.business_id, b.id, biz.deposit_type,
          CASE b.status WHEN 'completed' THEN 'captured' WHEN 'no_show' THEN 'captured'
            WHEN 'cancelled' THEN 'refunded'
            ELSE CASE biz.deposit_type WHEN 'charge' THEN 'paid' ELSE 'held' END END,
          b.capacity * biz.default_deposit_amount_cents, 'eur', 'simulated'
        FROM b JOIN businesses biz ON biz.id = b.business_id
        WHERE biz.deposit_type <> 'none' AND b.capacity >= 4
      `.execute(connection);
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
