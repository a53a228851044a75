import { globSync, readFileSync } from 'node:fs';

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
 * imports a way to start a process to it. Each keeps a process of its own. The browser files
 * first, as they run longest, so that the short ones fill the end of the run.
 */
export const SYSTEM_LANE = allTests()
  .filter((file) => readFileSync(file, 'utf8').startsWith(`${SYSTEM_LANE_MARK}\n`))
  .sort((a, b) => Number(b.startsWith('test/browser/')) - Number(a.startsWith('test/browser/')));

/** The fast lane: every other file. */
export function fastLane(): string[] {
  const system = new Set(SYSTEM_LANE);
  return allTests().filter((file) => !system.has(file));
}

/**
 * One of the fast lane's two halves, each a process of its own (`test/fast-lane-1.ts`, `-2.ts`),
 * so the lane's work has both cores while the system lane's processes mostly wait. Every other
 * file in name order: the long files of one area do not all fall in one half.
 */
export function fastLaneHalf(half: 0 | 1): string[] {
  return fastLane().filter((_, index) => index % 2 === half);
}
