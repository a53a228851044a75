import { spawn } from 'node:child_process';
import { SYSTEM_LANE } from './lanes.ts';

/*
 * `npm test`: both lanes in one run of node's test runner, two processes at a time. The fast lane
 * is one process (test/fast-lane.ts) that starts first, as it runs longest; the system lane's files
 * share the other slot, a process each. One runner gives one closing summary and one exit code.
 * Arguments are passed on to the runner (e.g. `npm test -- --test-reporter=tap`).
 */
const runner = spawn(
  process.execPath,
  [
    '--test',
    '--import',
    './test/compile-cache.ts',
    '--test-concurrency=3',
    ...process.argv.slice(2),
    'test/fast-lane.ts',
    ...SYSTEM_LANE,
  ],
  { stdio: 'inherit' },
);
runner.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
