import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  isSpanContextValid,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/tracing.js';
import { nameServerSpan, requestSpanStarter, requestSpan } from './tracing-http.js';
import { RootDecisions } from './tracing-roots.js';
import { instrumentPostgres, spanOfSql, tracedSql, uninstrumentPostgres } from './tracing-postgres.js';
import type { SpanKindName, SpanOptions, TracingRuntime } from './tracing-types.js';

/**
 * The OpenTelemetry SDK, loaded by startTracing (tracing.ts) only when tracing is enabled: a Node
 * tracer provider (W3C trace-context propagation), the sampler of OTEL_TRACES_SAMPLER, and a batch
 * processor exporting OTLP over HTTP. No context manager: spans are handed on by value (tracing.ts
 * withSpan says why), so `context.active()` is always the root and nothing enters a context.
 */

const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};
const TRACER_NAME = 'offerdesk';

export function startSdk(config: TracingConfig, options: { exportTimeoutMs?: number } = {}): TracingRuntime {
  // The endpoint is passed, and a short-lived command's export timeout (given settings win over
  // the environment's): the exporter reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and
  // the certificate variables from the environment itself (config/tracing.ts).
  const settings = { url: config.tracesUrl, ...(options.exportTimeoutMs === undefined ? {} : { timeoutMillis: options.exportTimeoutMs }) };
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter(settings) : new OtlpProtobufExporter(settings);
  const configured = new FollowLinksSampler(sampler(config));
  const roots = new RootDecisions(configured);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName })),
    sampler: configured,
    idGenerator: roots,
    // OTEL_BSP_* (queue size, delay, batch size) are read by the processor from the environment.
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register({ contextManager: null });
  const tracer = provider.getTracer(TRACER_NAME);

  return {
    withSpan: (name, options, work) => runInSpan(tracer, name, options, work),
    traceparent,
    logFields,
    instrumentQueries: (probe) => instrumentPostgres(probe, tracer),
    tracedSql,
    spanOfSql,
    requestSpan,
    startRequestSpan: requestSpanStarter(tracer, roots),
    nameRequest: nameServerSpan,
    flush: () => provider.forceFlush(),
    async shutdown() {
      uninstrumentPostgres();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
    },
  };
}

function sampler(config: TracingConfig): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
  }
}

/**
 * The configured sampler, with one addition: a root span linked to a sampled span is sampled
 * too. The fan-out and the delivery attempts start traces of their own, linked to the action that
 * wrote the event; decided by the ratio alone, the attempts of a sampled "offer sent" would be
 * kept at 10 % of 10 %. Following the links, a trace that was kept keeps its attempts. Spans with
 * a parent, and roots without a sampled link, are the configured sampler's to decide.
 */
class FollowLinksSampler implements Sampler {
  constructor(private readonly configured: Sampler) {}

  shouldSample(parent: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, spanLinks: Link[]): SamplingResult {
    if (!trace.getSpanContext(parent) && spanLinks.some((link) => (link.context.traceFlags & TraceFlags.SAMPLED) !== 0)) {
      return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    }
    return this.configured.shouldSample(parent, traceId, name, kind, attributes, spanLinks);
  }

  toString(): string {
    return `FollowLinks{${this.configured.toString()}}`;
  }
}

async function runInSpan<T>(tracer: Tracer, name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const kind = KINDS[options.kind ?? 'internal'];
  const span = tracer.startSpan(name, { kind, attributes: options.attributes, links: links(options.links), root: true }, ROOT_CONTEXT);
  try {
    return await work(span);
  } catch (thrown) {
    // The error's class or code only: a message may quote a value (an email, a URL with a token).
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute(ATTR_ERROR_TYPE, errorType(thrown));
    throw thrown;
  } finally {
    span.end();
  }
}

function errorType(thrown: unknown): string {
  const error = thrown as { code?: unknown; name?: unknown } | null;
  if (typeof error?.code === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(error.code)) return error.code;
  if (typeof error?.name === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(error.name)) return error.name;
  return 'error';
}

function links(traceparents: SpanOptions['links']): Link[] | undefined {
  if (!traceparents || traceparents.length === 0) return undefined;
  const result: Link[] = [];
  for (const traceparent of traceparents) {
    const spanContext = traceparent ? parseTraceParent(traceparent) : null;
    if (spanContext) result.push({ context: spanContext });
  }
  return result;
}

/** W3C trace-context version 00 of `span`. */
function traceparent(span: Span): string | null {
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return null;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A new object for every call: pino keeps what it is given as a child's bindings. */
function logFields(span: Span): Record<string, string> {
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
