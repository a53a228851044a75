import { globSync } from 'node:fs';

/** Every test file of the project, as `npm test` has always found them. */
const ALL_TESTS = [
  'src/**/*.test.ts',
  'test/**/*.test.ts',
  'packages/*/src/**/*.test.ts',
  'dashboard/**/*.test.ts',
];

/**
 * The system lane: files that start processes or servers of their own (PostgreSQL, Redis, the real
 * server, a browser), kill or stop them, or read the whole process (its exit, its traces). Each
 * keeps a process of its own, as every file did before the fast lane. Longest first (docs/testing.md
 * ranks them), so that the short ones fill the end of the run.
 */
export const SYSTEM_LANE = [
  'test/browser/widget.test.ts',
  'test/browser/venue-page.test.ts',
  'test/browser/dashboard.test.ts',
  'test/browser/dashboard-stats.test.ts',
  'test/browser/dashboard-panel.test.ts',
  'test/browser/dashboard-evening.test.ts',
  'test/browser/dashboard-walkin.test.ts',
  'test/browser/dashboard-settings.test.ts',
  'test/browser/dashboard-settings-more.test.ts',
  'test/browser/dashboard-customers.test.ts',
  'src/platform/db-stall.test.ts',
  'test/server.test.ts',
  'test/browser/invitation.test.ts',
  'test/browser/email.test.ts',
  'src/platform/tracing.test.ts',
  'test/shutdown.test.ts',
  'src/webhooks/delivery-crash.test.ts',
  'src/platform/db-outage.test.ts',
  'packages/sdk/src/client.test.ts',
  'src/platform/rate-limit.test.ts',
  'src/platform/redis-outage.test.ts',
  'src/billing/quota-processes.test.ts',
  'src/availability/feed-processes.test.ts',
  'src/availability/pacing-processes.test.ts',
  'src/live/stream-processes.test.ts',
  'src/live/stream-restart.test.ts',
  'src/platform/pooler-processes.test.ts',
  'src/calendars/imports-load.test.ts',
  'src/platform/idempotency-crash.test.ts',
  'src/messages/sender-crash.test.ts',
  'test/deploy.test.ts',
  'src/customers/search-load.test.ts',
];

/** The fast lane: every other file. */
export function fastLane(): string[] {
  const system = new Set(SYSTEM_LANE);
  return ALL_TESTS.flatMap((pattern) => globSync(pattern, { exclude: ['**/node_modules/**'] }))
    .filter((file) => !system.has(file))
    .sort();
}

/**
 * One of the fast lane's two halves, each a process of its own (`test/fast-lane-1.ts`, `-2.ts`),
 * so the lane's work has both cores while the system lane's processes mostly wait. Every other
 * file in name order: the long files of one area do not all fall in one half.
 */
export function fastLaneHalf(half: 0 | 1): string[] {
  return fastLane().filter((_, index) => index % 2 === half);
}
