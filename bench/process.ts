import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../test/free-port.ts';

export interface StartedProcess {
  child: ChildProcess;
  url: string;
}

/**
 * Starts `node <script> <args>` on a free port of 127.0.0.1 and waits (up to three minutes: a start
 * takes seconds alone, over a minute on a machine running two test suites) until `readyPath`
 * answers 200. Its stdout is dropped and its stderr shown, so a crash is seen. A port
 * found free can be taken by another process before the child binds it (tests run side by side):
 * the child then exits saying so, and is started again on another port.
 */
export async function startProcess(
  script: string,
  env: Record<string, string>,
  options: { args?: string[]; nodeArgs?: string[]; readyPath: string },
): Promise<StartedProcess> {
  for (let attempt = 1; ; attempt++) {
    const started = await startOnFreePort(script, env, options);
    if ('child' in started) return started;
    if (!started.portTaken || attempt === 5) throw new Error(`${script} exited with ${started.exitCode}`);
  }
}

async function startOnFreePort(
  script: string,
  env: Record<string, string>,
  options: { args?: string[]; nodeArgs?: string[]; readyPath: string },
): Promise<StartedProcess | { exitCode: number | NodeJS.Signals; portTaken: boolean }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...(options.args ?? [])], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    if (said.length < 10_000) said += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    // A child killed by a signal has no exit code, only the signal's name.
    if (child.exitCode !== null || child.signalCode !== null) {
      return { exitCode: child.exitCode ?? child.signalCode!, portTaken: /already in use/.test(said) };
    }
    try {
      const response = await fetch(`${url}${options.readyPath}`);
      if (response.ok) return { child, url };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${script} did not start`);
}

/** SIGTERM, and SIGKILL if it has not exited 10 s later. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The V8 heap flags (`--max-...`) of `npm start`, which the image and the worker repeat
 * (test/deploy.test.ts): the server's memory depends on them, so benchmarks start it with them.
 */
export const SERVER_HEAP_FLAGS: string[] = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--max-'));

/**
 * The real server (`node src/main.ts`) on the database `databaseEnv` names, logging warnings only,
 * with `npm start`'s heap flags; `nodeArgs` go to Node itself (`--cpu-prof`).
 */
export function startServer(
  databaseEnv: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<StartedProcess> {
  return startProcess(
    'src/main.ts',
    { ...databaseEnv, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123', LOG_LEVEL: 'warn' },
    { readyPath: '/healthz', nodeArgs: [...SERVER_HEAP_FLAGS, ...nodeArgs] },
  );
}
