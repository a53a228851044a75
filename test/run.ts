import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from 'node:test';
import * as reporters from 'node:test/reporters';
import { PROCESS_LANE } from './lanes.ts';

/*
 * `npm test`: every lane in one run of node's test runner, six processes at a time. The four long
 * ones start first: the fast lane's two processes (test/fast-lane-1.ts, -2.ts) and the browser
 * lane's (test/browser-lane-1.ts, -2.ts), the two of a lane sharing its files as they go (each
 * takes the next one not yet taken, through the folder TEST_LANE_CLAIMS names), each running them
 * one after another on one database (and one browser). The process lane's files, a process each
 * and mostly waiting on the processes they start, take the other two slots, the longest first, and
 * those the lanes free. One runner gives one closing summary and one exit code. `--fast` runs the
 * fast lane alone (`npm run test:fast`), in three processes.
 *
 * The runner is started from here rather than as `node --test FILES`, which sorts the files it is
 * given by name: the process lane's files (`packages/`, `src/`) then took the slots first and the
 * fast lane, the longest of all, started 45 s late and ended the run. `--test-reporter=NAME` picks
 * another of node's reporters (`npm test -- --test-reporter=tap`).
 */
/** The fast lane alone is run by three processes: the third takes the cores while the others wait on timers. */
const FAST_LANE = ['test/fast-lane-1.ts', 'test/fast-lane-2.ts', 'test/fast-lane-3.ts'];
/** With everything else, by two: the cores are busy throughout, and a third would only add its start-up. */
const EVERY_LANE = [
  ...FAST_LANE.slice(0, 2),
  'test/browser-lane-1.ts',
  'test/browser-lane-2.ts',
  ...PROCESS_LANE,
];

const REPORTERS = { spec: reporters.spec, tap: reporters.tap, dot: reporters.dot, junit: reporters.junit };

function reporterOf(args: string[]) {
  const asked = args.find((arg) => arg.startsWith('--test-reporter='))?.slice('--test-reporter='.length);
  const name = (asked ?? 'spec') as keyof typeof REPORTERS;
  if (!(name in REPORTERS)) {
    process.stderr.write(`test/run.ts: --test-reporter is one of ${Object.keys(REPORTERS).join(', ')}\n`);
    process.exit(2);
  }
  const reporter = REPORTERS[name];
  return reporter === reporters.spec ? new reporters.spec() : reporter;
}

const args = process.argv.slice(2);
const reporter = reporterOf(args);
const fastOnly = args.includes('--fast');
const claims = mkdtempSync(join(tmpdir(), 'slotwise-lanes-'));
process.env.TEST_LANE_CLAIMS = claims;
process.on('exit', () => rmSync(claims, { recursive: true, force: true }));
run({
  files: fastOnly ? FAST_LANE : EVERY_LANE,
  concurrency: fastOnly ? FAST_LANE.length : 6,
  execArgv: ['--import', './test/compile-cache.ts'],
})
  .on('test:summary', (summary) => {
    if (!summary.success) process.exitCode = 1;
  })
  .compose(reporter)
  .pipe(process.stdout);
