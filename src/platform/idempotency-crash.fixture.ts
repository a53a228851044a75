/**
 * A server that dies the instant a request's transaction has committed, before anything else
 * runs: the COMMIT of the transaction that created a resource kills the process. Only that one:
 * the server's own work (its jobs, the key usage it records) commits too, and on a busy machine
 * may do so while the request runs. Started by idempotency-crash.test.ts.
 */
import pg from 'pg';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openPostgres } from './db.ts';

const creatingResource = new WeakSet<pg.Client>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : '';
  if (/^insert into "resources"/i.test(text)) creatingResource.add(this);
  const result = query.apply(this, args);
  if (!creatingResource.has(this) || !/^commit\b/i.test(text) || !(result instanceof Promise)) return result;
  return result.then(() => process.kill(process.pid, 'SIGKILL'));
} as typeof pg.Client.prototype.query;

const config = loadConfig(process.env);
// Opened as `src/main.ts` opens it: with the configured timeouts, which the request deadline cuts only when it is nearer.
const database = await openPostgres(process.env.DATABASE_URL!, undefined, config.dbTimeouts);
const app = await buildApp({ config, database });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${typeof address === 'object' && address ? address.port : ''}\n`);
