import { after, before } from 'node:test';
import { type StartedProcess, startProcess, stopProcess } from '../bench/process.ts';
import { createTestApp, TEST_PROCESS_ENV, type TestContext } from './helpers.ts';

/** A test app and the real server processes that serve its database beside it. */
export interface ServedDatabase {
  ctx: TestContext;
  servers: StartedProcess[];
}

/**
 * Called inside a `describe`: a test app on a database of its own and two real server processes
 * (`node src/main.ts serve`) on that same PostgreSQL database, started before the suite's tests
 * and stopped after them, so requests spread over both race as they would behind a proxy.
 */
export function twoServersOnOneDatabase(): ServedDatabase {
  const served = { servers: [] } as unknown as ServedDatabase;
  before(async () => {
    served.ctx = await createTestApp();
    for (let i = 0; i < 2; i++) {
      served.servers.push(
        await startProcess(
          'src/main.ts',
          { ...TEST_PROCESS_ENV, DATABASE_URL: served.ctx.databaseUrl! },
          { args: ['serve'], readyPath: '/readyz' },
        ),
      );
    }
  });
  after(async () => {
    await Promise.all(served.servers.map((server) => stopProcess(server.child)));
    await served.ctx.close();
  });
  return served;
}
