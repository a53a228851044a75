import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fastLane, SYSTEM_LANE, SYSTEM_LANE_MARK } from './lanes.ts';

/**
 * The calls that start processes or servers a test keeps running: Node's child processes (a
 * one-off tool run to its end, `execFileSync`, is not one), the browser, and the helpers that
 * start PostgreSQL, PgBouncer, Redis or the real server (bench/process.ts's, which the tests share).
 */
const STARTS_PROCESSES =
  /\b(spawn|fork|execFile|startProcess|startServer|launchBrowser|startOwnPostgres|startOwnRedis|startOwnPgBouncer|twoServersOnOneDatabase)\(/;

describe('the lanes of npm test', () => {
  it('put every file that starts processes in the system lane, which it declares in its first line', () => {
    const undeclared = fastLane().filter((file) => {
      const text = readFileSync(file, 'utf8');
      return STARTS_PROCESSES.test(text);
    });
    assert.deepEqual(undeclared, [], `begin each with "${SYSTEM_LANE_MARK}"`);
  });

  it('run each file in one lane only', () => {
    const fast = new Set(fastLane());
    assert.deepEqual(
      SYSTEM_LANE.filter((file) => fast.has(file)),
      [],
    );
    assert.ok(SYSTEM_LANE.includes('test/server.test.ts'), 'the real server runs in the system lane');
    assert.ok(fast.has('test/lanes.test.ts'));
  });
});
