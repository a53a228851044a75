import { spawn } from 'node:child_process';
import { PROCESS_LANE } from './lanes.ts';

/*
 * `npm test`: every lane in one run of node's test runner, six processes at a time. The four long
 * ones start first: the fast lane's two halves (test/fast-lane-1.ts, -2.ts) and the browser lane's
 * (test/browser-lane-1.ts, -2.ts), each running its files one after another on one database (and
 * one browser). The process lane's files, a process each and mostly waiting on the processes they
 * start, take the other two slots, the longest first, and those the lanes free. One runner gives
 * one closing summary and one exit code. Arguments are passed on to the runner (e.g. `npm test --
 * --test-reporter=tap`).
 */
const runner = spawn(
  process.execPath,
  [
    '--test',
    '--import',
    './test/compile-cache.ts',
    '--test-concurrency=6',
    ...process.argv.slice(2),
    'test/fast-lane-1.ts',
    'test/fast-lane-2.ts',
    'test/browser-lane-1.ts',
    'test/browser-lane-2.ts',
    ...PROCESS_LANE,
  ],
  { stdio: 'inherit' },
);
runner.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
