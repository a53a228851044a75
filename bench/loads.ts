/**
 * The loads of the benchmarks, each one kind of request sent by autocannon (or the driver) for a
 * scenario's length: `npm run bench` (run.ts), the platform scenario, the profile, the pooler
 * and the version comparison all measure with these.
 */
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { Db } from '../src/platform/db.ts';
import { rangeLiteral } from '../src/platform/sql.ts';
import { dayFromToday, type SeededBusiness } from './seed.ts';

/** Each scenario's length: BENCH_SECONDS, 10 by default. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = 50;
/** Bookings are also measured at 20 clients and at one, against the bare INSERT yardstick. */
export const BOOKING_CLIENTS = 20;
/** Starts 90 minutes apart, so bookings of one table on one day never overlap one another. */
export const BOOKING_TIMES = ['11:00', '12:30', '14:00', '15:30', '17:00', '18:30', '20:00', '21:30'];

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

export function availabilityLoad(
  url: string,
  seeded: SeededBusiness,
  seconds = SECONDS,
  connections = CONNECTIONS,
): Promise<LoadResult> {
  let n = 0;
  return load({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${seeded.apiKey}` },
    requests: [
      {
        setupRequest: (request) => {
          n++;
          const date = dayFromToday(1 + (n % 30));
          return {
            ...request,
            method: 'GET',
            path: `/v1/availability/${seeded.businessId}?date=${date}&capacity=${n % 2 ? 2 : 4}`,
          };
        },
      },
    ],
  });
}

/**
 * Every question of a business's days that the run can ask once (day x party size x resource
 * filter x view), in an order that spreads them over days and sizes; `next` hands each out once.
 */
export function newQuestions(
  seeded: SeededBusiness,
  /** Added to every question, e.g. `&service_id=…`. */
  also = '',
): { next: () => string; total: number } {
  const questions: string[] = [];
  for (const view of ['slots', 'resources']) {
    for (const resource of [null, ...seeded.resourceIds]) {
      for (let party = 1; party <= 8; party++) {
        for (let day = 1; day <= 59; day++) {
          const filter = resource ? `&resource_id=${resource}` : '';
          questions.push(
            `/v1/availability/${seeded.businessId}?date=${dayFromToday(day)}&capacity=${party}&view=${view}${filter}${also}`,
          );
        }
      }
    }
  }
  let n = 0;
  return {
    total: questions.length,
    next: () => {
      if (n === questions.length) {
        process.stderr.write(
          `availability ran out of new questions after ${n}: figures include cache hits\n`,
        );
      }
      return questions[n++ % questions.length]!;
    },
  };
}

/**
 * Every request asks a question not asked before in the run (day x party size x resource filter),
 * so each one is computed from the database: the cost of a day nobody has looked at yet.
 */
export function uncachedAvailabilityLoad(
  url: string,
  seeded: SeededBusiness,
  questions = newQuestions(seeded),
  seconds = SECONDS,
): Promise<LoadResult> {
  return load({
    url,
    duration: seconds,
    headers: { authorization: `Bearer ${seeded.apiKey}` },
    requests: [{ setupRequest: (request) => ({ ...request, method: 'GET', path: questions.next() }) }],
  });
}

/**
 * Each request books a different (day, time) on the 30 days from `firstDay`, which no seeded booking
 * touches, so none conflict: 400 bookings a day (8 starts x 50 tables), 12,000 in all. Each run
 * takes days of its own, so a fast one cannot use up another's tables.
 */
export function bookingLoad(
  url: string,
  seeded: SeededBusiness,
  connections = CONNECTIONS,
  firstDay = 61,
  seconds = SECONDS,
): Promise<LoadResult> {
  let n = 0;
  return load({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          n++;
          return {
            ...request,
            method: 'POST',
            path: '/v1/bookings',
            body: JSON.stringify({
              business_id: seeded.businessId,
              booking_date: dayFromToday(firstDay + (n % 30)),
              start_time: BOOKING_TIMES[Math.floor(n / 30) % BOOKING_TIMES.length],
              capacity: 2,
              first_name: 'Load',
              last_name: 'Test',
              email: 'load@example.com',
              phone: `+49 170 ${1_000_000 + n}`,
            }),
          };
        },
      },
    ],
  });
}

/**
 * Staff reschedules (PATCH) from one client: each request moves one of the bookings made on the 30
 * days from `fromDay` to a day and time from `toDay` on, spread as `bookingLoad` spreads bookings,
 * where nothing else is booked.
 */
export async function rescheduleLoad(
  url: string,
  seeded: SeededBusiness,
  fromDay: number,
  toDay: number,
  seconds = SECONDS,
): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({
      from_date: dayFromToday(fromDay),
      to_date: dayFromToday(fromDay + 29),
      limit: '200',
      ...(cursor ? { cursor } : {}),
    });
    const response = await fetch(`${url}/v1/manage/bookings?${query}`, { headers });
    if (!response.ok)
      throw new Error(`listing bookings to reschedule: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { items: { id: string }[]; next_cursor: string | null };
    ids.push(...page.items.map((booking) => booking.id));
    cursor = page.next_cursor;
  } while (cursor && ids.length < 5_000);
  if (ids.length === 0) throw new Error(`no bookings to reschedule from day ${fromDay}`);
  let n = 0;
  return load({
    url,
    connections: 1,
    duration: seconds,
    headers,
    requests: [
      {
        setupRequest: (request) => {
          const i = n++;
          return {
            ...request,
            method: 'PATCH',
            path: `/v1/manage/bookings/${ids[i % ids.length]}`,
            body: JSON.stringify({
              booking_date: dayFromToday(toDay + (i % 30)),
              start_time: BOOKING_TIMES[Math.floor(i / 30) % BOOKING_TIMES.length],
            }),
          };
        },
      },
    ],
  });
}

/**
 * A month of availability from one client. `new`: every request asks what no earlier one did
 * (its start day, party size and resource filter), so each is computed from the database; `again`:
 * the same two questions over and over. Loads that share `asked` go on where the last one stopped.
 */
export function monthLoad(
  url: string,
  seeded: SeededBusiness,
  mode: 'new' | 'again',
  seconds = SECONDS,
  asked = { n: 0 },
): Promise<LoadResult> {
  const filters = [null, ...seeded.resourceIds];
  return load({
    url,
    connections: 1,
    duration: seconds,
    headers: { authorization: `Bearer ${seeded.apiKey}` },
    requests: [
      {
        setupRequest: (request) => {
          const n = ++asked.n;
          const k = mode === 'again' ? n % 2 : n;
          const from = dayFromToday(k % 30);
          const capacity = 1 + (Math.floor(k / 30) % 8);
          const resource = filters[Math.floor(k / 240) % filters.length];
          const query = `from=${from}&to=${dayFromToday((k % 30) + 30)}&capacity=${capacity}${resource ? `&resource_id=${resource}` : ''}`;
          return { ...request, method: 'GET', path: `/v1/availability/${seeded.businessId}/days?${query}` };
        },
      },
    ],
  });
}

/** What a load sent through the driver for a scenario's length made: its rate and latencies (ms), by the sorted latencies. */
export function driverLoadResult(latencies: number[], failed: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: latencies.length / SECONDS, p50: at(0.5), p99: at(0.99), ok: latencies.length, failed };
}

/**
 * The yardstick of the database alone: single-row INSERTs in autocommit into a bare table with
 * the same kind of exclusion constraint, from BOOKING_CLIENTS workers over a pool of the server's
 * size; no two rows clash.
 */
export async function bareInsertLoad(db: Db): Promise<LoadResult> {
  await sql`CREATE TABLE bench_bare_inserts (resource int, during tstzrange, EXCLUDE USING gist (resource WITH =, during WITH &&))`.execute(
    db,
  );
  let n = 0;
  let failed = 0;
  const latencies: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  const base = Date.parse('2030-01-01T00:00:00Z');
  const worker = async () => {
    while (Date.now() < deadline) {
      const i = n++;
      const start = base + Math.floor(i / 50) * 3_600_000;
      const started = performance.now();
      try {
        await sql`INSERT INTO bench_bare_inserts VALUES (${i % 50}, ${rangeLiteral(start, start + 3_600_000)}::tstzrange)`.execute(
          db,
        );
        latencies.push(performance.now() - started);
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: BOOKING_CLIENTS }, worker));
  return driverLoadResult(latencies, failed);
}

/**
 * `GET /v1/manage/stats` over a whole year (days `from` to `to` from today) of a business seeded
 * with a year of bookings, from one client: the latency of one dashboard asking for its year.
 */
export function statsLoad(
  url: string,
  year: SeededBusiness,
  from = 0,
  to = 364,
  seconds = SECONDS,
): Promise<LoadResult> {
  return load({
    url: `${url}/v1/manage/stats?from_date=${dayFromToday(from)}&to_date=${dayFromToday(to)}`,
    headers: { authorization: `Bearer ${year.apiKey}` },
    connections: 1,
    duration: seconds,
  });
}

/**
 * `GET /v1/manage/customers?search=` from one client, cycling through the business's searches
 * (parts of names, emails and phones of its customers, as a host types them).
 */
export function customerSearchLoad(
  url: string,
  seeded: SeededBusiness,
  seconds = SECONDS,
): Promise<LoadResult> {
  let n = 0;
  return load({
    url,
    connections: 1,
    duration: seconds,
    headers: { authorization: `Bearer ${seeded.apiKey}` },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          method: 'GET',
          path: `/v1/manage/customers?search=${encodeURIComponent(seeded.searches[n++ % seeded.searches.length]!)}`,
        }),
      },
    ],
  });
}
