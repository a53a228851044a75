// test lane: system
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMPILE_CACHE } from '../../test/compile-cache.ts';
import {
  createTestApp,
  ENGINE,
  migratedDataDir,
  TEST_PROCESS_ENV,
  type TestContext,
} from '../../test/helpers.ts';

/**
 * Tracing in a real server process: the instrumentation is loaded by `node --import` before
 * Fastify and `pg`, as `npm start` and the container load it, so it is tested in a child process.
 */

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const TRACING = fileURLToPath(new URL('../tracing.ts', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./tracing.fixture.ts', import.meta.url));

/**
 * A server started with the instrumentation, one request and its stop: seconds alone, minutes on
 * a machine running two suites.
 */
const TRACED_SERVER_MS = 300_000;

const SPAN_KIND_SERVER = 1;
/** An upstream proxy's trace, which the request's spans must join (W3C Trace Context). */
const UPSTREAM_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${UPSTREAM_TRACE_ID}-00f067aa0ba902b7-01`;

interface SpanLine {
  name: string;
  kind: number;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

interface Server {
  child: ChildProcess;
  base: string;
  exited: Promise<unknown[]>;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slotwise-tracing-'));
  dirs.push(dir);
  return dir;
}

/** Starts `node --import <preload> src/main.ts serve` on a free port; resolves once it listens. */
async function startServer(preload: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', preload, MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      ...TEST_PROCESS_ENV,
      ...COMPILE_CACHE,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const running = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (running) resolve(running[1]!);
    });
    void exited.then(([code]) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
  return { child, base, exited };
}

async function register(base: string, email: string): Promise<void> {
  const response = await fetch(`${base}/v1/auth/developer/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
    body: JSON.stringify({ email, password: 'a long password', first_name: 'Ada', last_name: 'Lovelace' }),
  });
  assert.equal(response.status, 201, await response.text());
}

/**
 * The finished spans the fixture wrote, once the request's tree is whole: its server span and the
 * parent of every other span (spans end, and are written, in no fixed order).
 */
async function spansOfRequest(file: string): Promise<SpanLine[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {}
    const spans = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SpanLine);
    const ids = new Set(spans.map((span) => span.spanId));
    const whole = spans.every((span) => span.kind === SPAN_KIND_SERVER || ids.has(span.parentSpanId ?? ''));
    if (whole && spans.some((span) => span.kind === SPAN_KIND_SERVER)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail('the request never produced a whole tree of spans');
}

/** The chain of span names from `span` up to the root of its trace. */
function ancestry(span: SpanLine, spans: SpanLine[]): string[] {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  const names = [span.name];
  for (let current = span; current.parentSpanId && byId.has(current.parentSpanId); ) {
    current = byId.get(current.parentSpanId)!;
    names.push(current.name);
  }
  return names;
}

after(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('one request, one trace', { timeout: TRACED_SERVER_MS }, () => {
  let ctx: TestContext | undefined;
  before(async () => {
    if (ENGINE === 'postgres') ctx = await createTestApp();
  });
  after(() => ctx?.close());

  it('runs from the HTTP request through Fastify down to each SQL statement on PostgreSQL', async (t) => {
    if (!ctx?.databaseUrl) {
      t.skip('needs a PostgreSQL server (TEST_DATABASE_URL): the pg instrumentation traces the pg driver');
      return;
    }
    const spansFile = join(tempDir(), 'spans.jsonl');
    const redis: Record<string, string> = process.env.TEST_REDIS_URL
      ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `slotwise-tracing-${process.pid}:` }
      : {};
    const server = await startServer(FIXTURE, {
      DATABASE_URL: ctx.databaseUrl,
      SPANS_FILE: spansFile,
      ...redis,
    });
    // Probes are not traced, so the server's own readiness polls leave no trace behind.
    assert.equal((await fetch(`${server.base}/healthz`)).status, 200);
    await register(server.base, 'traced@example.com');
    const spans = await spansOfRequest(spansFile);

    assert.deepEqual(
      [...new Set(spans.map((span) => span.traceId))],
      [UPSTREAM_TRACE_ID],
      'every span recorded belongs to the one request, in the trace its caller started',
    );
    const serverSpan = spans.find((span) => span.kind === SPAN_KIND_SERVER);
    assert.equal(serverSpan?.scope, '@opentelemetry/instrumentation-http');
    assert.equal(serverSpan.attributes['http.route'], '/v1/auth/developer/register');
    assert.equal(serverSpan.attributes['http.response.status_code'], 201);

    const fastifyRequest = spans.find((span) => span.scope === '@fastify/otel' && span.name === 'request');
    assert.equal(fastifyRequest?.parentSpanId, serverSpan.spanId, "Fastify's span is the HTTP span's child");

    const insert = spans.find(
      (span) =>
        span.scope === '@opentelemetry/instrumentation-pg' &&
        /INSERT INTO "?developers"?/i.test(String(span.attributes['db.query.text'])),
    );
    assert.ok(insert, `an INSERT into developers among: ${spans.map((span) => span.name).join(', ')}`);
    const chain = ancestry(insert, spans);
    assert.equal(
      chain.at(-1),
      serverSpan.name,
      `the SQL span leads up to the HTTP span: ${chain.join(' <- ')}`,
    );
    assert.ok(chain.includes('request'), `through Fastify's span: ${chain.join(' <- ')}`);
    for (const statement of spans.filter((span) => span.scope === '@opentelemetry/instrumentation-pg')) {
      assert.equal(
        ancestry(statement, spans).at(-1),
        serverSpan.name,
        `${statement.name} is in the request's tree`,
      );
    }
    if (process.env.TEST_REDIS_URL) {
      assert.ok(
        spans.some((span) => span.scope === '@opentelemetry/instrumentation-ioredis'),
        'the rate limit charged in Redis is in the trace too',
      );
    }

    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, [0, null]);
  });
});

describe('tracing switched on by OTEL_EXPORTER_OTLP_ENDPOINT', { timeout: TRACED_SERVER_MS }, () => {
  let ctx: TestContext | undefined;
  before(async () => {
    if (ENGINE === 'postgres') ctx = await createTestApp();
  });
  after(() => ctx?.close());

  it('exports the spans to the OTLP endpoint, the last of them at shutdown', async (t) => {
    const received: unknown[] = [];
    const collector = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/v1/traces') received.push(JSON.parse(body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    t.after(() => collector.close());
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

    const server = await startServer(TRACING, {
      ...(ctx?.databaseUrl
        ? { DATABASE_URL: ctx.databaseUrl }
        : { DATA_DIR: await migratedDataDir(tempDir()) }),
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'slotwise-under-test',
    });
    await register(server.base, 'exported@example.com');
    // The batch exporter waits seconds before sending; a stop right away must still send the spans.
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.exited, [0, null]);

    const exported = JSON.stringify(received);
    assert.ok(exported.includes('"slotwise-under-test"'), 'the resource names the service');
    assert.ok(exported.includes(UPSTREAM_TRACE_ID), 'the spans carry the caller’s trace');
    assert.ok(exported.includes('POST /v1/auth/developer/register'), 'the HTTP span was exported');
    assert.ok(exported.includes('@fastify/otel'), "Fastify's spans were exported");
  });
});
