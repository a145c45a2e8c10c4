import { ROOT_CONTEXT, type SpanKind } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace-node';

/**
 * A new trace's sampling decision, taken before its span is made (part of the SDK side: loaded
 * only with tracing on). Left to the tracer, a request the sampler leaves out still pays for a
 * span id, its attributes' copy, a non-recording span and the propagator's look at its headers,
 * nine requests in ten at 10 % sampling. Here the configured sampler is asked first, with a new
 * trace id, as the tracer would ask it; a trace it leaves out is never started, one it keeps is
 * started with that same trace id (this is the provider's id generator), so the tracer's own
 * decision is the same. Every sampler OTEL_TRACES_SAMPLER names decides a root by its trace id
 * alone, so asking twice gives one answer.
 */
export class RootDecisions implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  /** The trace id the sampler kept, for the one startSpan call of startKept. */
  private kept: string | undefined;

  constructor(private readonly sampler: Sampler) {}

  generateTraceId(): string {
    const id = this.kept ?? this.random.generateTraceId();
    this.kept = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  /** `start()` (which makes the root span) when the sampler keeps a new trace; else undefined, and `start` is not called. */
  startKept<T>(name: string, kind: SpanKind, start: () => T): T | undefined {
    const traceId = this.random.generateTraceId();
    if (this.sampler.shouldSample(ROOT_CONTEXT, traceId, name, kind, {}, []).decision === SamplingDecision.NOT_RECORD) return undefined;
    this.kept = traceId;
    try {
      return start();
    } finally {
      this.kept = undefined;
    }
  }
}
