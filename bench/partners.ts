/**
 * `npm run bench:partners` (and a scenario of `npm run bench`): a reservation partner's
 * BatchAvailabilityLookup of 100 slot times, against the spec's limit of 1.5 s, and against the
 * API answering the same new days one GET at a time from one client, in interleaved rounds: 100
 * slot times over 25 new (day, party) pairs (four times of each, as a partner asks a day), and the
 * worst case, 100 slot times over 100 new pairs. New: never asked before in the run, so each day is
 * computed from the database.
 */
import { sql } from 'kysely';
import { wallTimeToInstant } from '../src/engine/index.ts';
import { migrate } from '../src/platform/migrate.ts';
import { scratchDatabase } from './database.ts';
import { startServer, stopProcess } from './process.ts';
import { dayFromToday, SEED, type SeededBusiness, seedBusiness } from './seed.ts';

const ROUNDS = 3;
const TIMES = ['12:00', '13:00', '19:00', '20:00'];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface PartnerLookups {
  /** Medians of the rounds, in ms: one batch of 25 days × 4 times, the 25 days as GETs, one batch of 100 days. */
  batch25: number;
  gets25: number;
  batch100: number;
  /** Each round's batch of 25 days as a share of the 25 GETs' time. */
  rounds: string[];
  /** The availability feed of the restaurant (30 days × 8 parties), in ms: read first, and again. */
  feedFirst: number;
  feedAgain: number;
  feedEntries: number;
}

/** The (day, party) pairs of the seeded restaurant, last first: the uncached scenario asks the first ones first. */
function pairs(): { date: string; party: number }[] {
  const all = [];
  for (let day = 59; day >= 1; day--) {
    for (let party = 8; party >= 1; party--) all.push({ date: dayFromToday(day), party });
  }
  return all;
}

export async function partnerLookups(url: string, seeded: SeededBusiness): Promise<PartnerLookups> {
  const listed = await fetch(`${url}/v1/manage/partners`, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench partner' }),
  });
  if (listed.status !== 201) throw new Error(`the bench partner was refused: ${await listed.text()}`);
  const { username, password } = (await listed.json()) as { username: string; password: string };
  const basic = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const unasked = pairs();
  const take = (n: number) => {
    if (unasked.length < n) throw new Error('the partner scenario ran out of new days');
    return unasked.splice(0, n);
  };
  const timed = async (work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  const lookup = (days: { date: string; party: number }[], times: string[]) =>
    timed(async () => {
      const response = await fetch(`${url}/partners/maps-booking/v3/BatchAvailabilityLookup`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify({
          merchant_id: seeded.businessId,
          slot_time: days.flatMap(({ date, party }) =>
            times.map((time) => ({
              service_id: 'reservation',
              start_sec: String(wallTimeToInstant(date, time, SEED.timezone)! / 1000),
              resource_ids: { party_size: party },
            })),
          ),
        }),
      });
      const body = (await response.json()) as { slot_time_availability?: unknown[] };
      if (body.slot_time_availability?.length !== days.length * times.length) {
        throw new Error(
          `BatchAvailabilityLookup answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`,
        );
      }
    });
  const gets = (days: { date: string; party: number }[]) =>
    timed(async () => {
      for (const { date, party } of days) {
        const response = await fetch(
          `${url}/v1/availability/${seeded.businessId}?date=${date}&capacity=${party}`,
          {
            headers: { authorization: `Bearer ${seeded.apiKey}` },
          },
        );
        if (response.status !== 200) throw new Error(`availability answered ${response.status}`);
        await response.arrayBuffer();
      }
    });
  const batch25: number[] = [];
  const gets25: number[] = [];
  const batch100: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    batch25.push(await lookup(take(25), TIMES));
    gets25.push(await gets(take(25)));
    batch100.push(await lookup(take(100), [TIMES[round % TIMES.length]!]));
  }
  let feedEntries = 0;
  const feed = () =>
    timed(async () => {
      const response = await fetch(`${url}/partners/maps-booking/feeds/availability.json`, {
        headers: { authorization: basic },
      });
      const body = (await response.json()) as { service_availability: { availability: unknown[] }[] };
      feedEntries = body.service_availability[0]!.availability.length;
    });
  const feedFirst = await feed();
  const feedAgain = await feed();
  return {
    feedFirst,
    feedAgain,
    feedEntries,
    batch25: median(batch25),
    gets25: median(gets25),
    batch100: median(batch100),
    rounds: batch25.map((ms, i) => `${Math.round((100 * ms) / gets25[i]!)}%`),
  };
}

/** The scenario's line of the results table. */
export const partnerLine = (engine: string, run: PartnerLookups) =>
  `| ${engine}: a partner's BatchAvailabilityLookup of 100 slot times, new days, one client (medians, ms) | | ${Math.round(run.batch25)} | | | | 25 days × 4 times: ${Math.round((100 * run.batch25) / run.gets25)}% of the time of the same number of new days asked one GET at a time (${Math.round(run.gets25)} ms); 100 days × 1 time: ${Math.round(run.batch100)} ms; rounds ${run.rounds.join(', ')}; aim: under 1,500 ms |
| ${engine}: the availability feed of the restaurant (${run.feedEntries.toLocaleString('en-US')} entries: 30 days × 8 parties), one client (ms) | | ${Math.round(run.feedFirst)} | | | | read again while nothing changed: ${Math.round(run.feedAgain)} ms |`;

async function main() {
  const engines = [
    ['PGlite', undefined],
    ['PostgreSQL', process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'],
  ] as const;
  const lines = [];
  for (const [engine, serverUrl] of engines) {
    const scratch = await scratchDatabase(serverUrl, 'partners');
    try {
      const database = await scratch.open();
      await migrate(database);
      const seeded = await seedBusiness(database.db);
      await sql`VACUUM ANALYZE`.execute(database.db);
      await database.close();
      const { child, url } = await startServer(scratch.serverEnv);
      try {
        lines.push(partnerLine(engine, await partnerLookups(url, seeded)));
      } finally {
        await stopProcess(child);
      }
    } finally {
      await scratch.drop();
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.main) await main();
