import type { Span } from '@opentelemetry/api';
import type { Request, Response } from 'express';
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
  /**
   * Exports what is left, then stops the SDK; tracing is off again afterwards. Never rejects and
   * never outlasts `shutdownTimeoutMs`: a collector that is down or silent costs the spans not
   * yet exported, never the caller's result. Resolves to why spans were lost, or null.
   */
  shutdown(): Promise<string | null>;
}

export interface TracingOptions {
  /**
   * Longest one export may take, its retries included (the OTLP exporter's timeout), for a
   * short-lived command; unset, the exporter's own (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s).
   */
  exportTimeoutMs?: number;
  /** Longest shutdown() waits for the last export; unset, as long as the export takes. */
  shutdownTimeoutMs?: number;
}

let runtime: TracingRuntime | undefined;
const OFF: Tracing = { flush: async () => {}, shutdown: async () => null };

/**
 * Loads and registers the SDK when tracing is enabled; otherwise does nothing. Call it before the
 * database pool and the app are made, so they pick tracing up.
 */
export async function startTracing(config: TracingConfig, options: TracingOptions = {}): Promise<Tracing> {
  if (!config.enabled) return OFF;
  if (runtime) throw new Error('tracing is already started in this process');
  const { startSdk } = await import('./tracing-sdk.js');
  const started = startSdk(config, { exportTimeoutMs: options.exportTimeoutMs });
  runtime = started;
  return {
    flush: () => started.flush(),
    async shutdown() {
      if (runtime === started) runtime = undefined;
      return boundedShutdown(started.shutdown(), options.shutdownTimeoutMs);
    },
  };
}

/** `stopping` settled as a reason (null: all exported); past `limitMs`, a reason saying so. */
async function boundedShutdown(stopping: Promise<void>, limitMs: number | undefined): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = stopping.then(
    () => null,
    (thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown)) || 'export failed',
  );
  if (limitMs === undefined) return outcome;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer from the collector within ${limitMs} ms`), limitMs);
    // The export in flight ends by its own timeout; this timer must not hold the process.
    timer.unref();
  });
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` in a new span, the root of a trace of its own (linked to `options.links`), that ends
 * when it settles (a throw marks it failed). Off, `work` gets no span (undefined); unsampled, a
 * non-recording one.
 *
 * No context is entered: on Node 20 entering any AsyncLocalStorage context turns on its promise
 * hooks for the whole process, and every promise after that pays for them (they would be most
 * of what tracing costs a request). The span is handed on instead, by value: `work` passes it to
 * tracedSql and spanLogger (or tracedDeps) for the statements and log lines it makes.
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

/**
 * `sql` (the pool or a transaction) whose statements each get a span, a child of `span`: its
 * transactions and savepoints are traced handles too. Tracing off, `sql` itself.
 *
 * Tracing on, a request the sampler left out gets a traced handle too, one that marks nothing
 * (made once per `sql`). Handed the pool's own `sql` nine times in ten and a traced handle the
 * tenth, the read path's call sites turned polymorphic, V8 stopped inlining through them, and a
 * request's short-lived objects outlived the young generation: at 10 % sampling the service
 * scavenged 17 % more often and ran mark-compacts it never ran untraced, and each request cost
 * more CPU than with every request traced (docs/operations.md "Tracing").
 */
export function tracedSql<Q extends object>(sql: Q, span: Span | undefined): Q {
  return runtime ? runtime.tracedSql(sql, recording(span)) : sql;
}

function recording(span: Span | undefined): Span | undefined {
  return span?.isRecording() ? span : undefined;
}

/**
 * The W3C traceparent of the span the handle carries (tracedSql), for the outbox row its
 * transaction writes; null when it carries none.
 */
export function traceparentOf(sql: object): string | null {
  if (!runtime) return null;
  const span = runtime.spanOfSql(sql);
  return span ? runtime.traceparent(span) : null;
}

/** A logger, as pino's, whose child carries fixed fields on every line. */
export interface ChildLogger<L> {
  child(bindings: Record<string, string>): L;
}

/** `logger` whose lines carry the `trace_id` and `span_id` of a recording `span`; else `logger`. */
export function spanLogger<L extends ChildLogger<L>>(logger: L, span: Span | undefined): L {
  return runtime && span?.isRecording() ? logger.child(runtime.logFields(span)) : logger;
}

/**
 * Work's deps inside a span: the same, with `sql` traced and `logger` carrying the trace. Tracing
 * off, `deps` itself. Tracing on and the span not recording, a copy with a traced handle that
 * marks nothing, made once per `deps` (tracedSql says why it is not `deps` itself).
 */
export function tracedDeps<D extends { sql: object; logger?: object }>(deps: D, span: Span | undefined): D {
  if (!runtime) return deps;
  const recorded = recording(span);
  if (!recorded) {
    let unsampled = unsampledDeps.get(deps) as D | undefined;
    if (!unsampled) {
      unsampled = { ...deps, sql: runtime.tracedSql(deps.sql, undefined) };
      unsampledDeps.set(deps, unsampled);
    }
    return unsampled;
  }
  const traced = { ...deps, sql: runtime.tracedSql(deps.sql, recorded) };
  if (deps.logger) traced.logger = (deps.logger as ChildLogger<D['logger']>).child(runtime.logFields(recorded));
  return traced;
}

/** The span-less copy of each deps object (tracedDeps). */
const unsampledDeps = new WeakMap<object, object>();

/** The server span of a request the sampler kept (tracing on), for its handler's statements. */
export function requestSpan(res: RoutedResponse): Span | undefined {
  return runtime?.requestSpan(res);
}

/** `trace_id` and `span_id` of a request's server span, for its log line; undefined when it has none. */
export function requestLogFields(res: RoutedResponse): Record<string, string> | undefined {
  const span = runtime?.requestSpan(res);
  return span ? runtime!.logFields(span) : undefined;
}

/**
 * A span per PostgreSQL statement sent inside a span (tracing-postgres.ts). `probe` is a query of
 * the pool, made and never sent, whose prototype is postgres.js's query class.
 */
export function traceQueries(probe: () => object): void {
  runtime?.instrumentQueries(probe());
}

/**
 * Starts the server span of a request (tracing on), kept on its response for what comes after
 * (requestSpan). Called by the request log's middleware, the first of the app, rather than being
 * a middleware of its own: each layer of express's router costs every request its matching and
 * dispatch, and that one layer would be most of what tracing at 10 % sampling costs a one-offer
 * read (docs/operations.md "Tracing").
 */
export function startRequestSpan(req: Request, res: Response): void {
  runtime?.startRequestSpan(req, res);
}

/**
 * Names the request's server span by the operation the router matched; `route` is the
 * operation's path template under the router's mount (`req.baseUrl`).
 */
export function nameRequestSpan(req: RoutedRequest, res: RoutedResponse, operationId: string, path: string): void {
  if (runtime) runtime.nameRequest(req, res, operationId, path);
}
