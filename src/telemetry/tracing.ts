import type { Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { TracingConfig } from '../config/tracing.js';
import type { RoutedRequest, RoutedResponse, SpanOptions, TracingRuntime } from './tracing-types.js';

/**
 * The one door to tracing (docs/operations.md "Tracing"). Code that makes spans calls these
 * functions; none of them loads OpenTelemetry. Until startTracing has loaded the SDK (only when
 * config.tracing.enabled), each is one check of `runtime` and then the plain work: tracing off
 * costs nothing else, and the SDK is never imported (only `import type` above and below).
 */

export type { Span };
export type { SpanKindName, SpanOptions } from './tracing-types.js';
export interface Tracing {
  /** Exports every span ended so far (a short-lived CLI command calls it before it exits). */
  flush(): Promise<void>;
  /** Flushes, then stops the SDK; tracing is off again afterwards. */
  shutdown(): Promise<void>;
}

let runtime: TracingRuntime | undefined;
const OFF: Tracing = { flush: async () => {}, shutdown: async () => {} };

/**
 * Loads and registers the SDK when tracing is enabled; otherwise does nothing. Call it before the
 * logger, the database pool and the app are made, so they pick tracing up.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  if (!config.enabled) return OFF;
  if (runtime) throw new Error('tracing is already started in this process');
  const { startSdk } = await import('./tracing-sdk.js');
  const started = startSdk(config);
  runtime = started;
  return {
    flush: () => started.flush(),
    async shutdown() {
      if (runtime === started) runtime = undefined;
      await started.shutdown();
    },
  };
}

export function tracingActive(): boolean {
  return runtime !== undefined;
}

/**
 * Runs `work` inside a new span that ends when it settles (a throw marks it failed). Off, or
 * inside a span that is not sampled, `work` gets no span (undefined), or a non-recording one.
 */
export function withSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!runtime) return work(undefined);
  return runtime.withSpan(name, options, work);
}

/** SpanStatusCode.ERROR of @opentelemetry/api, a fixed value of the API, so callers load nothing. */
const SPAN_STATUS_ERROR = 2;

/** Marks a span failed with a short error type (a code or a category, never a message). */
export function markSpanFailed(span: Span | undefined, errorType: string): void {
  if (!span) return;
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SPAN_STATUS_ERROR });
}

/** The W3C traceparent of the span in effect, for the outbox row; null when there is none. */
export function currentTraceparent(): string | null {
  return runtime ? runtime.traceparent() : null;
}

/**
 * pino `mixin`: `trace_id` and `span_id` of the span a log line is written in. A new object each
 * time: pino merges the line's own fields into it.
 */
export function traceLogFields(): Record<string, string> {
  return runtime ? runtime.logFields() : {};
}

/**
 * A span per PostgreSQL statement sent inside a span (tracing-postgres.ts). `probe` is a query of
 * the pool, made and never sent, whose prototype is postgres.js's query class.
 */
export function traceQueries(probe: () => object): void {
  runtime?.instrumentQueries(probe());
}

/** The server span of each request, for the express app; undefined when tracing is off. */
export function requestSpans(): RequestHandler | undefined {
  return runtime?.requestSpans();
}

/**
 * Names the request's server span by the operation the router matched; `route` is the
 * operation's path template under the router's mount (`req.baseUrl`).
 */
export function nameRequestSpan(req: RoutedRequest, res: RoutedResponse, operationId: string, path: string): void {
  if (runtime) runtime.nameRequest(req, res, operationId, path);
}
