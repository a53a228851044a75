import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { shareDatabases } from './helpers.ts';
import { laneClaims } from './lanes.ts';

/**
 * Runs the files of a lane (the fast lane's, the browser lane's) one after another in this one
 * process, so the loaded code, PGlite's compiled module and the migrated databases are paid for
 * once rather than once per file. `test/run.ts` runs each lane by two processes or more, which
 * share its files as they go (`laneClaims`, in the folder `TEST_LANE_CLAIMS` that it makes); a
 * lane file run by itself runs all of them. Each file is imported inside a suite of its own: the
 * hooks a file declares at its top level (`before`, `beforeEach`, `after`) then belong to that
 * suite alone, as they belong to the file when it runs in a process of its own, instead of running
 * around every test of every file.
 */
export function runInThisProcess(lane: string, files: string[]): void {
  after(shareDatabases());
  const folder = process.env.TEST_LANE_CLAIMS;
  const claim = laneClaims(folder && join(folder, lane));
  test(lane, async () => {
    for (const [index, file] of files.entries()) {
      if (!claim(index)) continue;
      await describe(file, async () => {
        await import(pathToFileURL(file).href);
      });
    }
  });
}
