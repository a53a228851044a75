/**
 * Preloaded with `node --import` into the real server (`src/main.ts serve`) by
 * idempotency-crash.test.ts: the server then dies the instant a request's transaction has
 * committed, before anything else runs. The COMMIT of the transaction that created the resource
 * named `CRASH_AFTER_CREATING` kills the process. Only that one: the server's own work (the
 * sandbox it sets up at start, its jobs, the key usage it records) commits too, and on a busy
 * machine may do so while the request runs.
 */
import pg from 'pg';

const creatingResource = new WeakSet<pg.Client>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : '';
  const values = Array.isArray(args[1]) ? args[1] : [];
  if (/^insert into "resources"/i.test(text) && values.includes(process.env.CRASH_AFTER_CREATING)) {
    creatingResource.add(this);
  }
  const result = query.apply(this, args);
  if (!creatingResource.has(this) || !/^commit\b/i.test(text) || !(result instanceof Promise)) return result;
  return result.then(() => process.kill(process.pid, 'SIGKILL'));
} as typeof pg.Client.prototype.query;
