/**
 * OpenTelemetry tracing, opt-in: `node --import ./src/tracing.ts src/main.ts serve` (as `npm start`
 * and the container run it) traces every request when `OTEL_EXPORTER_OTLP_ENDPOINT` is set and
 * does nothing otherwise. It is a separate entry point because the instrumentation has to be in
 * place before `fastify`, `pg` and `ioredis` are first loaded.
 */
import { startTracing } from './platform/tracing.ts';

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) await startTracing();
