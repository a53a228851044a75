import { after, describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { shareDatabases } from './helpers.ts';

/*
 * Runs a lane's files (the fast lane's, the browser lane's) one after another in this one
 * process, so the loaded code, PGlite's compiled module and the migrated databases are paid for
 * once rather than once per file. Each file is imported inside a suite of its own: the hooks a file
 * declares at its top level (`before`, `beforeEach`, `after`) then belong to that suite alone, as
 * they belong to the file when it runs in a process of its own, instead of running around every
 * test of every file.
 */
export function runInThisProcess(files: string[]): void {
  after(shareDatabases());
  for (const file of files) {
    describe(file, async () => {
      await import(pathToFileURL(file).href);
    });
  }
}
