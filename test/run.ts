import { run } from 'node:test';
import * as reporters from 'node:test/reporters';
import { PROCESS_LANE } from './lanes.ts';

/*
 * `npm test`: every lane in one run of node's test runner, six processes at a time. The four long
 * ones start first: the fast lane's two halves (test/fast-lane-1.ts, -2.ts) and the browser lane's
 * (test/browser-lane-1.ts, -2.ts), each running its files one after another on one database (and
 * one browser). The process lane's files, a process each and mostly waiting on the processes they
 * start, take the other two slots, the longest first, and those the lanes free. One runner gives
 * one closing summary and one exit code.
 *
 * The runner is started from here rather than as `node --test FILES`, which sorts the files it is
 * given by name: the process lane's files (`packages/`, `src/`) then took the slots first and the
 * fast lane, the longest of all, started 45 s late and ended the run. `--test-reporter=NAME` picks
 * another of node's reporters (`npm test -- --test-reporter=tap`).
 */
const FILES = [
  'test/fast-lane-1.ts',
  'test/fast-lane-2.ts',
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

const reporter = reporterOf(process.argv.slice(2));
run({ files: FILES, concurrency: 6, execArgv: ['--import', './test/compile-cache.ts'] })
  .on('test:summary', (summary) => {
    if (!summary.success) process.exitCode = 1;
  })
  .compose(reporter)
  .pipe(process.stdout);
