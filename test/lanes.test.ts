import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BROWSER_LANE, fastLane, laneClaims, PROCESS_LANE, SYSTEM_LANE, SYSTEM_LANE_MARK } from './lanes.ts';

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

  it('run every system file once: the browser files in the browser lane, the others a process each', () => {
    assert.deepEqual([...BROWSER_LANE, ...PROCESS_LANE].sort(), [...SYSTEM_LANE].sort());
    assert.equal(new Set(SYSTEM_LANE).size, SYSTEM_LANE.length);
    assert.ok(BROWSER_LANE.includes('test/browser/dashboard.test.ts'));
    assert.ok(!PROCESS_LANE.some((file) => BROWSER_LANE.includes(file)));
  });

  it('give each file of a lane to one of its processes, whichever asks first, and all of them to a process alone', () => {
    const folder = mkdtempSync(join(tmpdir(), 'slotwise-lanes-test-'));
    try {
      const first = laneClaims(join(folder, 'fast lane'));
      const second = laneClaims(join(folder, 'fast lane'));
      const other = laneClaims(join(folder, 'browser lane'));
      const taken: string[] = [];
      for (const index of [0, 1, 2, 3, 4]) {
        if (index % 2 === 0 && second(index)) taken.push(`second ${index}`);
        if (first(index)) taken.push(`first ${index}`);
        if (second(index)) taken.push(`second ${index}`);
      }
      assert.deepEqual(taken, ['second 0', 'first 1', 'second 2', 'first 3', 'second 4']);
      assert.ok(other(0), "another lane's files are its own");
      const alone = laneClaims(undefined);
      assert.ok([0, 1, 2].every((index) => alone(index)));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
