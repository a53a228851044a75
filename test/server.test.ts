// test lane: system
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMPILE_CACHE } from './compile-cache.ts';
import { freePort } from './free-port.ts';

/** The real server process, as `npm start` runs it, driven over HTTP on 127.0.0.1. */

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const JWT_SECRET = 'server-test-secret-server-test-secret-0123';

interface Run {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
}

const runs: Run[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slotwise-server-'));
  dirs.push(dir);
  return dir;
}

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...COMPILE_CACHE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = { child, exited, stdout: () => stdout, stderr: () => stderr };
  runs.push(started);
  return started;
}

/** Polls /healthz until it answers; fails as soon as the process dies instead. */
async function waitUntilHealthy(server: Run, port: number): Promise<void> {
  let exitCode: number | null | undefined;
  void server.exited.then((code) => {
    exitCode = code;
  });
  for (;;) {
    if (exitCode !== undefined) assert.fail(`the server exited (${exitCode}): ${server.stderr()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function assertOneLine(text: string, includes: string[]): void {
  const lines = text.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got: ${text}`);
  for (const part of includes) assert.ok(lines[0]!.includes(part), `"${part}" in: ${lines[0]}`);
}

after(() => {
  for (const { child } of runs) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('node src/main.ts', { timeout: 240_000 }, () => {
  let server: Run;
  let port: number;
  let dataDir: string;

  before(async () => {
    port = await freePort();
    dataDir = tempDir();
    server = run({ PORT: String(port), DATA_DIR: dataDir, JWT_SECRET });
    await waitUntilHealthy(server, port);
  });

  it('serves HTTP on HOST and PORT, and prints where', async () => {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get('api-version'), '2.0.0');
    const home = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(home.status, 200);
    assert.equal(((await home.json()) as { links: { docs: string } }).links.docs, '/docs');
    const unknown = await fetch(`http://127.0.0.1:${port}/v1/unknown`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
    assert.ok(server.stdout().includes(`http://127.0.0.1:${port}`), server.stdout());
    assert.ok(server.stdout().includes(`http://127.0.0.1:${port}/docs`), server.stdout());
  });

  it('refuses a second process on the same DATA_DIR with one clear line', async () => {
    const second = run({ PORT: String(await freePort()), DATA_DIR: dataDir, JWT_SECRET });
    const code = await second.exited;
    assert.notEqual(code, 0);
    assertOneLine(second.stderr(), ['in use', dataDir]);
  });

  it('refuses a bad PORT with one line naming PORT', async () => {
    const bad = run({ PORT: 'eighty', DATA_DIR: tempDir(), JWT_SECRET });
    const code = await bad.exited;
    assert.notEqual(code, 0);
    assertOneLine(bad.stderr(), ['PORT', 'eighty']);
  });

  it('refuses a PORT that is taken with one line naming PORT, before it takes its DATA_DIR', async () => {
    const otherDir = tempDir();
    const clash = run({ PORT: String(port), DATA_DIR: otherDir, JWT_SECRET });
    const code = await clash.exited;
    assert.notEqual(code, 0);
    assertOneLine(clash.stderr(), ['PORT', String(port)]);
    assert.deepEqual(readdirSync(otherDir), [], 'no database created, no lock left');
  });

  it('refuses a METRICS_PORT that is taken with one line naming METRICS_PORT', async () => {
    const metricsDir = tempDir();
    const clash = run({
      PORT: String(await freePort()),
      DATA_DIR: metricsDir,
      JWT_SECRET,
      METRICS_PORT: String(port),
    });
    const code = await clash.exited;
    assert.notEqual(code, 0);
    assertOneLine(clash.stderr(), ['METRICS_PORT', String(port)]);
    assert.deepEqual(readdirSync(metricsDir), [], 'no database created, no lock left');
  });

  it('exits 0 on SIGTERM and releases its DATA_DIR', async () => {
    assert.equal(existsSync(join(dataDir, 'slotwise.lock')), true);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.equal(existsSync(join(dataDir, 'slotwise.lock')), false);
  });
});
