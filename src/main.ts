import { createServer } from 'node:net';
import { type Config, ConfigError, listenError, loadConfig, metricsListenError } from './config.ts';
import { DataDirLockedError } from './platform/pglite-pool.ts';

/** Listens on `port` and closes again at once. */
const tryListening = (port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });

/**
 * A port that is taken or refused fails the start in a moment, before the database is opened,
 * migrated and locked (seconds on the embedded one). A port taken in between still fails the
 * listen itself, with the same line.
 */
async function checkPorts(config: Config, serving: boolean): Promise<void> {
  if (serving)
    await tryListening(config.port, config.host).catch((error) => Promise.reject(listenError(error, config)));
  const { metricsPort, metricsHost } = config;
  if (metricsPort !== undefined) {
    await tryListening(metricsPort, metricsHost).catch((error) =>
      Promise.reject(metricsListenError(error, metricsPort, metricsHost)),
    );
  }
}

/**
 * The service itself (`run.ts`), loaded only once the settings are read and the ports checked: a
 * bad setting or a taken port is said in a moment, not after the whole service has loaded.
 */
const service = () => import('./run.ts');

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'serve';
  const config = loadConfig();
  if (command === 'serve') {
    await checkPorts(config, true);
    return (await service()).serve(config);
  }
  if (command === 'worker') {
    if (!config.databaseUrl) {
      throw new ConfigError(
        'worker needs DATABASE_URL: with the embedded database the server runs the jobs itself',
      );
    }
    await checkPorts(config, false);
    return (await service()).work(config);
  }
  if (command === 'migrate') return (await service()).runMigrations(config);
  if (command === 'demo') {
    const { runDemo } = await import('./demo.ts');
    return runDemo(config);
  }
  throw new ConfigError(`unknown command "${command}"; use serve, worker, migrate or demo`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`slotwise: ${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`slotwise: could not start: ${message}\n`);
  }
  process.exit(1);
});
