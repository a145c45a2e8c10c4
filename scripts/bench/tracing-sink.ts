import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from './numbers.js';
import type { NodeProcess } from './processes.js';

/**
 * What tracing costs the read API (docs/operations.md "Tracing"): fresh services, alike but for OTEL_*, one exporting
 * to a local sink that discards, compared by CPU time per request under the same load at the same time (in turns, two
 * identical services differed by up to 38 % in a round as the machine's load came and went; at once, by 0 to 7 %).
 */
const TRACED_SERVICE_ENV = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
/** Tracing at that sampling costs at most 10 % more server CPU per request. */
const TRACING_CPU_RATIO_TARGET = 1.1;
/** Rounds of each of two pairs of services, started (and loaded) in opposite order, so each side is once favoured by being first. */
const ROUNDS = 3;
type Measured = { requests: number; seconds: number; serverCpuMsPerRequest: number | null };

/** Starts the sink and each pair of services through `start`, loads both at once through `measure`, logs and stops them. */
export async function measureTracingCost<Side extends { proc: NodeProcess }>(input: {
  scenario: string;
  start(name: string, env: Record<string, string>): Promise<Side>;
  measure(side: Side): Promise<Measured>;
  log(line: string): void;
}) {
  let [exports, bytes] = [0, 0];
  const sink = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.writeHead(200).end(() => (exports += 1)));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const started: Side[] = [];
  try {
    const rounds: Record<'off' | 'on', Measured>[][] = [];
    for (const first of ['off', 'on'] as const) {
      const order = first === 'off' ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const which of order) {
        const env = which === 'on' ? { ...TRACED_SERVICE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } : {};
        started.push(await input.start(`service-${which === 'on' ? 'traced' : 'untraced'}-${rounds.length + 1}`, env));
      }
      const sides = started.slice(-2);
      const pair: Record<'off' | 'on', Measured>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const [a, b] = await Promise.all(sides.map((side) => input.measure(side)));
        pair.push(first === 'off' ? { off: a!, on: b! } : { on: a!, off: b! });
      }
      await Promise.all(sides.map((side) => side.proc.stop()));
      rounds.push(pair);
    }
    /** CPU per request over all rounds (null when a round's CPU time is unknown) and req/s. */
    const total = (which: 'off' | 'on') => {
      const runs = rounds.flat().map((r) => r[which]);
      const requests = runs.reduce((sum, r) => sum + r.requests, 0);
      const cpuMs = runs.reduce((sum, r) => sum + (r.serverCpuMsPerRequest ?? NaN) * r.requests, 0);
      return { cpuMsPerRequest: requests > 0 && !Number.isNaN(cpuMs) ? cpuMs / requests : null, requestsPerSecond: requests / runs.reduce((sum, r) => sum + r.seconds, 0) };
    };
    const [off, on] = [total('off'), total('on')], ratiosOf = (pair: Record<'off' | 'on', Measured>[]) =>
      pair.flatMap((r) => (r.off.serverCpuMsPerRequest && r.on.serverCpuMsPerRequest ? [r.on.serverCpuMsPerRequest / r.off.serverCpuMsPerRequest] : []));
    const [offFirst, onFirst] = rounds.map(ratiosOf) as [number[], number[]], roundRatios = [...offFirst, ...onFirst];
    const cost = {
      scenario: input.scenario, sampler: `${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER} ${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER_ARG}`,
      offCpuMsPerRequest: off.cpuMsPerRequest,
      onCpuMsPerRequest: on.cpuMsPerRequest,
      /** on / off: the geometric mean of each pair's median round (ROUNDS says why). */
      cpuRatio: roundRatios.length === 2 * ROUNDS ? Math.sqrt(median(offFirst) * median(onFirst)) : null,
      roundRatios,
      offRequestsPerSecond: off.requestsPerSecond,
      onRequestsPerSecond: on.requestsPerSecond,
      exports,
      exportedKb: Math.round(bytes / 1024),
    };
    input.log(
      `tracing ${cost.sampler} (${cost.scenario}): cpu/req ${cost.onCpuMsPerRequest?.toFixed(3)} vs ${cost.offCpuMsPerRequest?.toFixed(3)} ms off, ` +
        `ratio ${cost.cpuRatio?.toFixed(3)} (rounds ${offFirst.map((r) => r.toFixed(2)).join(', ')} untraced started first, ${onFirst.map((r) => r.toFixed(2)).join(', ')} traced first; target <= ${TRACING_CPU_RATIO_TARGET}); ` +
        `${on.requestsPerSecond.toFixed(0)} vs ${off.requestsPerSecond.toFixed(0)} req/s; ${exports} exports, ${cost.exportedKb} KB to the sink`,
    );
    return cost;
  } finally {
    await Promise.all(started.map((side) => side.proc.stop()));
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
