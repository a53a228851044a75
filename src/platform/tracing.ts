import { register } from 'node:module';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * Packages the application imports as ES modules whose instrumentation patches the package's own
 * export: `require` hooks never see such an import, so the ESM loader hook wraps them.
 */
const IMPORTED_AS_ESM = ['ioredis'];

/** Probes and scrapes, polled every few seconds: a span each would drown the requests that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing: the spans of incoming HTTP requests, of Fastify's routing and hooks
 * (`@fastify/otel`), of every SQL statement sent through `pg` and of every Redis command, in one
 * trace per request. It must run before `fastify`, `pg` and `ioredis` are first loaded, which is
 * why `src/tracing.ts` calls it from `node --import`. Without `spanProcessors`, the spans go to the
 * OTLP exporter the `OTEL_*` environment variables configure. Only traces: metrics are scraped
 * from `/metrics` and logs are the JSON lines on stdout.
 */
export async function startTracing(spanProcessors?: SpanProcessor[]): Promise<void> {
  if (sdk) return;
  // Loaded only here, so a process without tracing never loads the SDK.
  const [
    { NodeSDK },
    { HttpInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
    fastifyOtel,
    esmHooks,
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@fastify/otel'),
    import('import-in-the-middle/register-hooks.mjs'),
  ]);
  if (esmHooks.supportsSyncHooks()) {
    esmHooks.register({ include: IMPORTED_AS_ESM });
  } else {
    register('import-in-the-middle/hook.mjs', import.meta.url, { data: { include: IMPORTED_AS_ESM } });
  }
  sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || 'slotwise',
    ...(spanProcessors ? { spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]!),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new fastifyOtel.FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: ({ url }) => UNTRACED_PATHS.has(url),
      }),
    ],
  });
  sdk.start();
}

/** Sends the spans still buffered and stops tracing: the last step of a shutdown. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
