import { globSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every test file of the project, as `npm test` has always found them. */
const ALL_TESTS = [
  'src/**/*.test.ts',
  'test/**/*.test.ts',
  'packages/*/src/**/*.test.ts',
  'dashboard/**/*.test.ts',
];

/** The line a file of the system lane begins with. */
export const SYSTEM_LANE_MARK = '// test lane: system';

const allTests = () =>
  ALL_TESTS.flatMap((pattern) => globSync(pattern, { exclude: ['**/node_modules/**'] })).sort();

/**
 * The system lane: files that start processes or servers of their own (PostgreSQL, Redis, the real
 * server, a browser), kill or stop them, or read the whole process (its exit, its traces), each
 * declaring it in its first line (SYSTEM_LANE_MARK); `test/lanes.test.ts` holds every file that
 * imports a way to start a process to it.
 */
export const SYSTEM_LANE = allTests().filter((file) =>
  readFileSync(file, 'utf8').startsWith(`${SYSTEM_LANE_MARK}\n`),
);

/**
 * Seconds each system file took alone on two cores, the longer of the two engines (2026-12-04):
 * the browser lane and the process lane start their longest files first, so that the short ones
 * fill the end of the run. A file not listed counts as `UNTIMED`.
 */
const FILE_SECONDS: Record<string, number> = {
  'test/browser/widget.test.ts': 33,
  'test/browser/dashboard-panel.test.ts': 32,
  'test/browser/dashboard-settings-more.test.ts': 29,
  'test/browser/dashboard-walkin.test.ts': 28,
  'test/browser/dashboard-settings.test.ts': 25,
  'test/browser/dashboard-customers.test.ts': 22,
  'test/browser/dashboard-start.test.ts': 21,
  'test/browser/dashboard-partners.test.ts': 19,
  'test/browser/dashboard.test.ts': 19,
  'test/browser/venue-page.test.ts': 19,
  'test/browser/dashboard-evening.test.ts': 15,
  'test/browser/invitation.test.ts': 13,
  'test/browser/dashboard-stats.test.ts': 12,
  'test/browser/email.test.ts': 12,
  'src/customers/csv-memory.test.ts': 31,
  'test/server.test.ts': 16,
  'src/platform/db-stall.test.ts': 17,
  'src/customers/search-load.test.ts': 16,
  'src/platform/tracing.test.ts': 15,
  'src/platform/pooler-processes.test.ts': 14,
  'src/live/stream-processes.test.ts': 13,
  'packages/sdk/src/client.test.ts': 12,
  'src/availability/feed-processes.test.ts': 12,
  'src/platform/rate-limit.test.ts': 12,
  'src/availability/pacing-processes.test.ts': 11,
  'src/billing/quota-processes.test.ts': 11,
  'test/shutdown.test.ts': 9,
  'src/messages/sender-crash.test.ts': 8,
  'src/webhooks/delivery-crash.test.ts': 8,
  'src/platform/redis-outage.test.ts': 7,
  'src/calendars/imports-load.test.ts': 6,
  'src/platform/db-outage.test.ts': 6,
  'src/platform/idempotency-crash.test.ts': 5,
  'test/deploy.test.ts': 5,
  'src/live/stream-restart.test.ts': 5,
};
const UNTIMED = 10;
const seconds = (file: string) => FILE_SECONDS[file] ?? UNTIMED;
const longestFirst = (files: string[]) =>
  [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));

/**
 * The browser lane: the system lane's browser files, the longest first, run by two processes of
 * one browser and one database each (test/browser-lane-1.ts, -2.ts), each file a server of its own.
 */
export const BROWSER_LANE = longestFirst(SYSTEM_LANE.filter((file) => file.startsWith('test/browser/')));

/** The system lane's other files, a process each, the longest first. */
export const PROCESS_LANE = longestFirst(SYSTEM_LANE.filter((file) => !BROWSER_LANE.includes(file)));

/**
 * The fast lane: every other file, the largest first. Its two processes take the files in this
 * order, so they end on the smallest, close together; a file's size is a rough measure of its
 * time, and no table of times has to follow the files.
 */
export function fastLane(): string[] {
  const system = new Set(SYSTEM_LANE);
  const sizes = new Map(
    allTests()
      .filter((file) => !system.has(file))
      .map((file) => [file, statSync(file).size]),
  );
  return [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)! || a.localeCompare(b));
}

/**
 * How the processes of one lane share its files (`test/fast-lane.ts`): each takes the next file
 * of the lane's order that no other has taken, so they end within a file of each other, however
 * long the files turn out to be on this machine and engine. A file is taken by making its folder
 * in `folder`, which one process alone can make. Without a folder, everything is this process's.
 */
export function laneClaims(folder: string | undefined): (index: number) => boolean {
  if (!folder) return () => true;
  mkdirSync(folder, { recursive: true });
  return (index) => {
    try {
      mkdirSync(join(folder, String(index)));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  };
}
