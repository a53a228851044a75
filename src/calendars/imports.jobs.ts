import type { ChangeFeed } from '../platform/change-feed.ts';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import type { CalendarFetcher } from './calendar-fetch.adapter.ts';
import type { CalendarParser } from './calendar-parser.adapter.ts';
import { claimDueImports } from './imports.queries.ts';
import { applySync, readCalendar, SYNC_EVERY_MS } from './imports.service.ts';

/** Imports claimed, and read side by side, at a time. */
const BATCH = 5;

/** The job's name: `POST .../sync` starts it at once. */
export const SYNC_JOB = 'calendar-imports';

/**
 * Syncs every import due (each every 15 minutes, or at once after `POST .../sync`), across
 * businesses and processes: a claim moves an import's next sync on, so no two processes read it
 * at once.
 */
export function calendarImportJobs(deps: {
  db: Db;
  fetcher: CalendarFetcher;
  parser: CalendarParser;
  clock: Clock;
  changes: ChangeFeed;
}): Job[] {
  async function run(): Promise<number> {
    let synced = 0;
    for (;;) {
      const now = deps.clock.now();
      const due = await claimDueImports(deps.db, new Date(now), new Date(now + SYNC_EVERY_MS), BATCH);
      if (due.length === 0) return synced;
      await Promise.all(
        due.map(async (calendar) => {
          const outcome = await readCalendar(deps, calendar, now);
          await withTx(deps.db, (tx) => applySync(tx, calendar, outcome, now));
          // This process's availability drops the business's days at once; others hear the trigger.
          if (outcome.kind === 'read') deps.changes.businessChanged(calendar.business_id);
        }),
      );
      synced += due.length;
    }
  }
  return [{ name: SYNC_JOB, everyMs: 60_000, run }];
}
