import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';

/**
 * A PostgreSQL server, a PgBouncer and a Redis of a test's own, on ports of their own, for tests that stop,
 * pause or kill them: the machine's shared servers are never touched. Only the processes started
 * here are ended, by their PID (PostgreSQL's from its own data folder).
 */

const run = promisify(execFile);

/** The newest PostgreSQL's binaries in the Debian layout, else those on the PATH. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, name)));
}

const PG_BIN = postgresBin();
const IS_ROOT = process.getuid?.() === 0;

/** Why a test of a stopped PostgreSQL cannot run here; undefined when it can. */
export const noOwnPostgres: string | undefined = !PG_BIN
  ? 'needs the PostgreSQL server binaries (initdb, pg_ctl) to start a PostgreSQL of its own'
  : IS_ROOT && !onPath('runuser')
    ? 'runs as root and needs runuser to start PostgreSQL as the postgres user'
    : undefined;

/** Why a test of a lost Redis cannot run here; undefined when it can. */
export const noOwnRedis: string | undefined = onPath('redis-server')
  ? undefined
  : 'needs redis-server to start a Redis of its own';

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  url: string;
  /** `pg_ctl stop -m immediate`: every backend ends at once, as in a crash. */
  stopImmediately(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Runs SQL on a connection of its own. */
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/** Runs a PostgreSQL binary, as the postgres user when the test runs as root (PostgreSQL refuses root). */
async function pgTool(tool: string, args: string[]): Promise<void> {
  const binary = join(PG_BIN!, tool);
  if (IS_ROOT) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

/** A temporary folder the server's user may write in. */
async function serverFolder(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (IS_ROOT) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}

/**
 * A blank cluster made by initdb, once per PostgreSQL version and kept in the temporary folder:
 * copying it takes a fraction of initdb's seconds. It is made under a temporary name and renamed,
 * so a test file running beside the one making it never copies half of it.
 */
async function blankCluster(): Promise<string> {
  const version = PG_BIN!.replace(/\W+/g, '-');
  const cluster = join(tmpdir(), `slotwise-pg-cluster${version}`);
  if (existsSync(join(cluster, 'PG_VERSION'))) return cluster;
  const dir = await serverFolder('slotwise-pg-initdb-');
  await pgTool('initdb', [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  try {
    renameSync(join(dir, 'data'), cluster);
  } catch (error) {
    // Another file made it first: theirs is as good.
    if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  rmSync(dir, { recursive: true, force: true });
  return cluster;
}

/**
 * A copy of a blank cluster in a temporary folder, then pg_ctl start on a free port of 127.0.0.1
 * (no Unix socket). `settings` are extra server settings (`name=value`), such as a library to
 * preload.
 */
export async function startOwnPostgres(settings: string[] = []): Promise<OwnPostgres> {
  assert.equal(noOwnPostgres, undefined, noOwnPostgres);
  const dir = await serverFolder('slotwise-pg-');
  const data = join(dir, 'data');
  const port = await freePort();
  // `cp -a` keeps the files' owner and modes, which PostgreSQL checks.
  await run('cp', ['-a', await blankCluster(), data]);
  const options = [
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=50`,
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');
  const start = () =>
    pgTool('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'), '-o', options]);
  let running = false;
  await start();
  running = true;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    async stopImmediately() {
      await pgTool('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async query(text, values) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await client.query(text, values);
      } finally {
        await client.end();
      }
    },
    async close() {
      if (running) await pgTool('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  url: string;
  /** SIGKILL: the connection drops, nothing answers on the port. */
  kill(): Promise<void>;
  /** SIGSTOP: the connection stays open, nothing answers on it. */
  pause(): void;
  resume(): void;
  /** Starts a fresh Redis on the same port (after `kill`). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Whether a Redis answers PING on the port, asked in its wire protocol. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1000);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  assert.equal(noOwnRedis, undefined, noOwnRedis);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child = started;
    // Ready once it answers PING on its port.
    for (let attempt = 0; ; attempt++) {
      if (started.exitCode !== null) assert.fail(`redis-server exited with ${started.exitCode}`);
      if (await answersPing(port)) return;
      assert.ok(attempt < 100, 'redis-server did not answer within 10 seconds');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const stop = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running?.pid || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    process.kill(running.pid, 'SIGCONT');
    process.kill(running.pid, signal);
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => stop('SIGKILL'),
    pause() {
      if (child?.pid) process.kill(child.pid, 'SIGSTOP');
    },
    resume() {
      if (child?.pid) process.kill(child.pid, 'SIGCONT');
    },
    start,
    close: () => stop('SIGKILL'),
  };
}

/** Debian's `pgbouncer`, else one on the PATH. */
const PGBOUNCER = ['/usr/sbin', ...(process.env.PATH ?? '').split(':')]
  .map((dir) => join(dir, 'pgbouncer'))
  .find((path) => existsSync(path));

/**
 * Why a test through a PgBouncer of its own cannot run here; undefined when it can. `.ci/run`
 * installs it: in CI (`CI=true`) its absence fails the test instead of skipping it.
 */
export function noOwnPgBouncer(): string | undefined {
  const reason = !PGBOUNCER
    ? 'needs pgbouncer (apt-get install pgbouncer)'
    : IS_ROOT && !onPath('runuser')
      ? 'runs as root and needs runuser to start pgbouncer as the postgres user'
      : undefined;
  if (reason && process.env.CI === 'true') throw new Error(`CI needs the PgBouncer test: ${reason}`);
  return reason;
}

export interface OwnPgBouncer {
  /** `postgres://USER@127.0.0.1:PORT/DATABASE`: the database of `startOwnPgBouncer`, through it. */
  url: string;
  pid: number;
  /** Stops it (by the PID it wrote) and removes its folder. */
  close(): Promise<void>;
}

/** Whether something accepts a TCP connection on the port of 127.0.0.1. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * PgBouncer on a free port of 127.0.0.1 in front of the database `databaseUrl` names, in
 * transaction pooling with `poolSize` server connections, so that consecutive transactions of one
 * client really run on different server connections. Trusts its clients, as the server does.
 */
export async function startOwnPgBouncer(databaseUrl: string, poolSize: number): Promise<OwnPgBouncer> {
  const reason = noOwnPgBouncer();
  assert.equal(reason, undefined, reason);
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username) || 'postgres';
  const database = target.pathname.slice(1);
  const dir = await serverFolder('slotwise-pgbouncer-');
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  const pidFile = join(dir, 'pgbouncer.pid');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${pidFile}`,
      '',
    ].join('\n'),
  );
  const args = ['-d', ini];
  if (IS_ROOT) await run('runuser', ['-u', 'postgres', '--', PGBOUNCER!, ...args]);
  else await run(PGBOUNCER!, args);
  // The daemon writes its PID and listens shortly after the command returns.
  for (let attempt = 0; !(existsSync(pidFile) && (await accepts(port))); attempt++) {
    assert.ok(attempt < 100, `pgbouncer did not listen within 10 seconds: see ${join(dir, 'pgbouncer.log')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    pid,
    async close() {
      // SIGTERM: PgBouncer closes every connection at once.
      if (exists(pid)) process.kill(pid, 'SIGTERM');
      for (let attempt = 0; exists(pid) && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
