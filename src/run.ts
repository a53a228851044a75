import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from './app.ts';
import { type Config, listenError } from './config.ts';
import { PasswordHasher } from './platform/auth.ts';
import { type Database, openPGlite, openPostgres } from './platform/db.ts';
import { migrate } from './platform/migrate.ts';
import { stopServing } from './platform/shutdown.ts';
import { stopTracing } from './platform/tracing.ts';
import { ensureSandbox } from './sandbox/sandbox.service.ts';

/*
 * What the commands of `main.ts` run, once their settings are read and their ports checked: this
 * module loads the whole service, which takes seconds on a busy machine.
 */

async function openDatabase(config: Config): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, undefined, config.dbTimeouts, config.databaseListenUrl)
    : openPGlite(config.dataDir, undefined, config.dbTimeouts);
}

/**
 * The log on stdout, written without blocking: lines logged while a write is under way go out
 * together in the next one (one write for many requests under load, each line at once when
 * quiet), and what is left is written when the process exits.
 */
function stdoutLog(config: Config) {
  return { level: config.logLevel, stream: pino.destination({ dest: 1, sync: false }) };
}

/** After the shutdown timeout, this long more for the app's own close (jobs, database) before giving up. */
const CLOSE_GRACE_MS = 5000;

/**
 * On SIGTERM or SIGINT: stop accepting, finish what is in flight (requests up to
 * SHUTDOWN_TIMEOUT_MS, job runs), flush key usage, stop the change feed, close the database, send
 * the last spans and exit 0; exit 1 when requests had to be cut or the close itself did not end.
 */
function stopOnSignal(app: FastifyInstance, database: Database, config: Config, what: string): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, `shutting down: finishing in-flight ${what}`);
    setTimeout(() => {
      app.log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + CLOSE_GRACE_MS).unref();
    try {
      const drained = await stopServing(app, config.shutdownTimeoutMs);
      await database.close();
      await stopTracing();
      process.exit(drained ? 0 : 1);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

export async function serve(config: Config): Promise<void> {
  const database = await openDatabase(config);
  await migrate(database);
  await ensureSandbox(database.db, new PasswordHasher(config.passwordCost));
  const app = await buildApp({ config, database, logger: stdoutLog(config) });
  stopOnSignal(app, database, config, 'requests');
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await database.close();
    throw listenError(error, config);
  }
  app.jobs.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.publicBaseUrl.replace(`:${config.port}`, `:${port}`);
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`;
  process.stdout.write(
    [
      '',
      `Slotwise is running at ${base} on ${storage}`,
      `API reference: ${base}/docs   OpenAPI: ${base}/openapi.json`,
      `Next: register a developer with POST ${base}/v1/auth/developer/register (see README "First session"),`,
      '      or stop and run `npm run demo` for a ready-made sandbox restaurant.',
      '',
    ].join('\n'),
  );
}

/**
 * The scheduled jobs alone (webhook deliveries and the rest), without an HTTP listener: more of
 * them beside the servers, sharing the work through the database. PGlite's data folder belongs
 * to one process, whose server already runs the jobs, so a worker needs PostgreSQL.
 */
export async function work(config: Config): Promise<void> {
  const database = await openDatabase(config);
  await migrate(database);
  const app = await buildApp({ config, database, logger: stdoutLog(config) });
  await app.ready();
  stopOnSignal(app, database, config, 'jobs');
  app.jobs.start({ keepAlive: true });
  process.stdout.write('Slotwise worker is running the scheduled jobs on PostgreSQL (DATABASE_URL)\n');
}

export async function runMigrations(config: Config): Promise<void> {
  const database = await openDatabase(config);
  try {
    const { migrations, definitions } = await migrate(database);
    const applied = [...migrations, ...definitions];
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await database.close();
  }
}
