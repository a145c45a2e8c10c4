import { ROOT_CONTEXT, SpanKind, TraceFlags } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { RootDecisions } from '../../src/telemetry/tracing-roots.js';

/**
 * A new trace's sampling decision taken before its span is made (tracing-roots.ts): it must be the
 * decision the tracer itself takes, through a real SDK tracer whose id generator it is.
 */

const RATIO = 0.25;
const DECISIONS = 4_000;

function tracerWith(sampler: TraceIdRatioBasedSampler | AlwaysOnSampler | AlwaysOffSampler) {
  const roots = new RootDecisions(sampler);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ sampler, idGenerator: roots, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { roots, exporter, tracer: provider.getTracer('roots-test') };
}

describe('root sampling decided before the span', () => {
  it('starts exactly the traces the ratio sampler keeps, each sampled under the trace id it was kept for', () => {
    const sampler = new TraceIdRatioBasedSampler(RATIO);
    const { roots, exporter, tracer } = tracerWith(sampler);
    let started = 0;
    for (let i = 0; i < DECISIONS; i++) {
      const span = roots.startKept('GET', SpanKind.SERVER, () => {
        started += 1;
        return tracer.startSpan('GET', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      });
      span?.end();
    }
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(started);
    // A fair share: 1,000 expected, the bounds are more than 6 standard deviations (27) away.
    expect(started).toBeGreaterThan(DECISIONS * RATIO - 170);
    expect(started).toBeLessThan(DECISIONS * RATIO + 170);
    for (const span of spans) {
      const { traceId, traceFlags } = span.spanContext();
      expect(traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
      expect(sampler.shouldSample(ROOT_CONTEXT, traceId).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    }
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(spans.length);
  });

  it('never calls start for a trace the sampler leaves out, and always for one it keeps', () => {
    const off = tracerWith(new AlwaysOffSampler());
    expect(off.roots.startKept('GET', SpanKind.SERVER, () => expect.unreachable('started a trace the sampler left out'))).toBeUndefined();
    const on = tracerWith(new AlwaysOnSampler());
    expect(on.roots.startKept('GET', SpanKind.SERVER, () => 'started')).toBe('started');
  });

  it('hands the kept trace id to that one start only: not to a later root, even when start threw or made no root', () => {
    // The sampler sees each decision's trace id first; it keeps all of them.
    const asked: string[] = [];
    const recording: Sampler = {
      shouldSample: (_context, traceId) => (asked.push(traceId), { decision: SamplingDecision.RECORD_AND_SAMPLED }),
      toString: () => 'Recording',
    };
    const roots = new RootDecisions(recording);
    expect(roots.startKept('GET', SpanKind.SERVER, () => roots.generateTraceId())).toBe(asked[0]);
    expect(
      () => roots.startKept('GET', SpanKind.SERVER, () => {
        throw new Error('start failed');
      }),
    ).toThrow('start failed');
    expect(roots.generateTraceId()).not.toBe(asked[1]);
    roots.startKept('GET', SpanKind.SERVER, () => undefined);
    expect(roots.generateTraceId()).not.toBe(asked[2]);
    expect(new Set(asked).size).toBe(3);
  });
});
