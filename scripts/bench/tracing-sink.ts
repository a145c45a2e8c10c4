import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from './numbers.js';
import type { NodeProcess } from './processes.js';

/**
 * What tracing costs the read API (docs/operations.md "Tracing"): fresh services, alike but for OTEL_*, one exporting to a
 * local sink that discards, each warmed alone, then loaded at once at one fixed rate, both pinned to one CPU, compared by CPU
 * time per request. Two identical services differed by 4 to 38 % in turns or on two CPUs, by 0.2 to 3 % this way (operations.md).
 */
const TRACED_SERVICE_ENV = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
const TRACING_CPU_RATIO_TARGET = 1.1; // tracing at that sampling costs at most 10 % more server CPU per request
const PINNED_CPU = 0;
/** Each side's rate, a share of the untraced service's req/s alone on two CPUs: both together kept the one about 80 % busy. */
const RATE_SHARE = 0.25;

/** Starts the sink and each pair of services through `start`, loads both at once through `measure`, logs and stops them. */
export async function measureTracingCost<Side extends { proc: NodeProcess }>(input: {
  scenario: string;
  untracedRequestsPerSecond: number;
  start(name: string, env: Record<string, string>, cpu: number): Promise<Side>;
  measure(side: Side, ratePerSecond?: number): Promise<{ serverCpuMsPerRequest: number | null }>; // no rate: as fast as it answers
  log(line: string): void;
  rounds: number; warmUp: boolean; // rounds of each pair (started in opposite order); warmUp: each side alone first
}) {
  let exports = 0;
  const sink = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end(() => (exports += 1))));
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const rate = Math.max(1, Math.round(input.untracedRequestsPerSecond * RATE_SHARE));
  const started: Side[] = [];
  try {
    /** Each round's CPU per request (NaN where unknown), by start order: untraced first, then traced first. */
    const pairs: { off: number; on: number }[][] = [];
    for (const first of ['off', 'on'] as const) {
      const sides = {} as Record<'off' | 'on', Side>;
      for (const which of first === 'off' ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const env = which === 'on' ? { ...TRACED_SERVICE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } : {};
        started.push((sides[which] = await input.start(`service-${which === 'on' ? 'traced' : 'untraced'}-${pairs.length + 1}`, env, PINNED_CPU)));
      }
      // Each alone as fast as it answers first, so that the traced side's sampled tenth is compiled before the fixed rate.
      if (input.warmUp) for (const side of [sides.off, sides.on]) await input.measure(side);
      const pair = [];
      for (let round = 0; round < input.rounds; round++) {
        const [off, on] = (await Promise.all([input.measure(sides.off, rate), input.measure(sides.on, rate)])).map((m) => m.serverCpuMsPerRequest ?? NaN);
        pair.push({ off: off!, on: on! });
      }
      await Promise.all([sides.off.proc.stop(), sides.on.proc.stop()]);
      pairs.push(pair);
    }
    const [offFirst, onFirst] = pairs.map((pair) => pair.map((r) => r.on / r.off)) as [number[], number[]];
    const known = (values: number[]) => (values.every(Number.isFinite) ? median(values) : null);
    const cost = {
      scenario: input.scenario,
      sampler: `${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER} ${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER_ARG}`,
      ratePerSecond: rate,
      /** Each side's median round. */
      offCpuMsPerRequest: known(pairs.flat().map((r) => r.off)),
      onCpuMsPerRequest: known(pairs.flat().map((r) => r.on)),
      /** on / off: the geometric mean of each pair's median round. */
      cpuRatio: [...offFirst, ...onFirst].every(Number.isFinite) ? Math.sqrt(median(offFirst) * median(onFirst)) : null,
      roundRatios: [...offFirst, ...onFirst],
      exports,
    };
    input.log(
      `tracing ${cost.sampler} (${cost.scenario}, ${rate} req/s a side, both on CPU ${PINNED_CPU}): cpu/req ${cost.onCpuMsPerRequest?.toFixed(3)} vs ${cost.offCpuMsPerRequest?.toFixed(3)} ms off, ` +
        `ratio ${cost.cpuRatio?.toFixed(3)} (rounds ${offFirst.map((r) => r.toFixed(2)).join(', ')} untraced started first, ${onFirst.map((r) => r.toFixed(2)).join(', ')} traced first; target <= ${TRACING_CPU_RATIO_TARGET}); ` +
        `${exports} exports to the sink`,
    );
    return cost;
  } finally {
    await Promise.all(started.map((side) => side.proc.stop()));
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
