import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  BROWSER_LANE,
  browserLaneHalf,
  fastLane,
  PROCESS_LANE,
  SYSTEM_LANE,
  SYSTEM_LANE_MARK,
} from './lanes.ts';

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

  it('run every system file once: the browser files in the two halves of the browser lane, the others a process each', () => {
    const halves = [browserLaneHalf(0), browserLaneHalf(1)];
    assert.deepEqual([...halves[0], ...halves[1]].sort(), [...BROWSER_LANE].sort());
    assert.ok(halves.every((half) => half.length > 0));
    assert.deepEqual([...BROWSER_LANE, ...PROCESS_LANE].sort(), [...SYSTEM_LANE].sort());
    assert.ok(BROWSER_LANE.includes('test/browser/dashboard.test.ts'));
  });
});
