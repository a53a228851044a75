import { spawn } from 'node:child_process';
import { SYSTEM_LANE } from './lanes.ts';

/*
 * `npm test`: both lanes in one run of node's test runner, three processes at a time. The fast
 * lane's two halves (test/fast-lane-1.ts and -2.ts) start first, as they run longest; the system
 * lane's files take the slot left and those the halves free, a process each. One runner gives one
 * closing summary and one exit code. Arguments are passed on to the runner (e.g. `npm test --
 * --test-reporter=tap`).
 */
const runner = spawn(
  process.execPath,
  [
    '--test',
    '--import',
    './test/compile-cache.ts',
    '--test-concurrency=3',
    ...process.argv.slice(2),
    'test/fast-lane-1.ts',
    'test/fast-lane-2.ts',
    ...SYSTEM_LANE,
  ],
  { stdio: 'inherit' },
);
runner.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
