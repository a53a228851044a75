import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { JobRunner } from './jobs.ts';

const logged: unknown[] = [];
const log = { error: (entry: unknown) => logged.push(entry) } as unknown as FastifyBaseLogger;

/** A job whose runs each wait for `release()` and handle whatever `due` holds when they start. */
function gatedJob() {
  let due = 0;
  let runs = 0;
  let release: () => void = () => {};
  const job = {
    name: 'gated',
    everyMs: 60_000,
    run: async () => {
      runs++;
      const handled = due;
      due = 0;
      await new Promise<void>((resolve) => (release = resolve));
      return handled;
    },
  };
  return {
    job,
    makeDue: () => due++,
    release: () => release(),
    runs: () => runs,
  };
}

describe('JobRunner.kick', () => {
  it('runs the job at once, and once more after a run in flight that looked before the work was due', async () => {
    const runner = new JobRunner(log);
    const gated = gatedJob();
    runner.add(gated.job);
    gated.makeDue();
    const first = runner.kick('gated');
    await Promise.resolve();
    // Due after the run in flight took its work: two kicks meanwhile make one more run, not two.
    gated.makeDue();
    const second = runner.kick('gated');
    const third = runner.kick('gated');
    assert.equal(second, third);
    gated.release();
    assert.equal(await first, 1);
    await new Promise((resolve) => setImmediate(resolve));
    gated.release();
    assert.equal(await second, 1);
    assert.equal(gated.runs(), 2);
  });

  it('logs a failed run and answers 0; after stop it runs nothing', async () => {
    const runner = new JobRunner(log);
    let runs = 0;
    runner.add({
      name: 'failing',
      everyMs: 60_000,
      run: async () => {
        runs++;
        throw new Error('boom');
      },
    });
    logged.length = 0;
    assert.equal(await runner.kick('failing'), 0);
    assert.equal(logged.length, 1);
    await runner.stop();
    assert.equal(await runner.kick('failing'), 0);
    assert.equal(runs, 1);
  });
});
