import { appendFileSync } from 'node:fs';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing } from './tracing.ts';

/**
 * Preloaded with `node --import` into a server process under test, in place of `src/tracing.ts`:
 * the same tracing, exported to memory instead of OTLP, each finished span also appended as one
 * JSON line to `SPANS_FILE` for the test process to read.
 */
class SpansToFile extends InMemorySpanExporter {
  override export(spans: ReadableSpan[], done: Parameters<InMemorySpanExporter['export']>[1]): void {
    appendFileSync(
      process.env.SPANS_FILE!,
      spans
        .map((span) =>
          JSON.stringify({
            name: span.name,
            kind: span.kind,
            scope: span.instrumentationScope.name,
            traceId: span.spanContext().traceId,
            spanId: span.spanContext().spanId,
            parentSpanId: span.parentSpanContext?.spanId,
            attributes: span.attributes,
          }),
        )
        .map((line) => `${line}\n`)
        .join(''),
    );
    super.export(spans, done);
  }
}

await startTracing([new SimpleSpanProcessor({ exporter: new SpansToFile() })]);
