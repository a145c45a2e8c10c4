import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from './numbers.js';
import type { NodeProcess } from './processes.js';

/**
 * What tracing costs the read API (docs/operations.md "Tracing"): two fresh services, alike but for OTEL_* (so
 * neither has a warmer heap), one exporting to a local sink that discards, compared by CPU time per request.
 */

const TRACED_SERVICE_ENV = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
/** Tracing at that sampling costs at most 10 % more server CPU per request. */
const TRACING_CPU_RATIO_TARGET = 1.1;
/** Each side runs this many times, alternating which goes first, so a drift in load evens out. */
const ROUNDS = 4;

type Measured = { requests: number; seconds: number; serverCpuMsPerRequest: number | null };

/** Starts the sink and both services through `start`, measures them in turns through `measure`, logs and stops them. */
export async function measureTracingCost<Side extends { proc: NodeProcess }>(input: {
  scenario: string;
  start(name: string, env: Record<string, string>): Promise<Side>;
  measure(side: Side): Promise<Measured>;
  log(line: string): void;
}) {
  let [exports, bytes] = [0, 0];
  const sink = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const sides: Partial<Record<'off' | 'on', Side>> = {};
  try {
    sides.off = await input.start('service-untraced', {});
    sides.on = await input.start('service-traced', { ...TRACED_SERVICE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl });
    const rounds: Record<'off' | 'on', Measured>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const measured: Partial<Record<'off' | 'on', Measured>> = {};
      for (const which of order) measured[which] = await input.measure(sides[which]!);
      rounds.push(measured as Record<'off' | 'on', Measured>);
    }
    /** CPU per request over all rounds (null when any round's CPU time is unknown) and req/s. */
    const total = (which: 'off' | 'on') => {
      const runs = rounds.map((r) => r[which]);
      const requests = runs.reduce((sum, r) => sum + r.requests, 0);
      const cpuKnown = runs.every((r) => r.serverCpuMsPerRequest !== null);
      const cpuMs = runs.reduce((sum, r) => sum + (r.serverCpuMsPerRequest ?? 0) * r.requests, 0);
      return { cpuMsPerRequest: cpuKnown && requests > 0 ? cpuMs / requests : null, requestsPerSecond: requests / runs.reduce((sum, r) => sum + r.seconds, 0) };
    };
    const [off, on] = [total('off'), total('on')];
    const roundRatios = rounds.flatMap((r) => (r.off.serverCpuMsPerRequest && r.on.serverCpuMsPerRequest ? [r.on.serverCpuMsPerRequest / r.off.serverCpuMsPerRequest] : []));
    const cost = {
      scenario: input.scenario,
      sampler: `${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER} ${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER_ARG}`,
      offCpuMsPerRequest: off.cpuMsPerRequest,
      onCpuMsPerRequest: on.cpuMsPerRequest,
      /** on / off: the median of the rounds' ratios, which a burst of other load moves less than the totals. */
      cpuRatio: roundRatios.length === ROUNDS ? median(roundRatios) : null,
      roundRatios,
      offRequestsPerSecond: off.requestsPerSecond,
      onRequestsPerSecond: on.requestsPerSecond,
      exports,
      exportedKb: Math.round(bytes / 1024),
    };
    input.log(
      `tracing ${cost.sampler} (${cost.scenario}): cpu/req ${cost.onCpuMsPerRequest?.toFixed(3)} vs ${cost.offCpuMsPerRequest?.toFixed(3)} ms off, ` +
        `ratio ${cost.cpuRatio?.toFixed(3)} (median of ${roundRatios.map((r) => r.toFixed(2)).join(', ')}; target <= ${TRACING_CPU_RATIO_TARGET}); ` +
        `${on.requestsPerSecond.toFixed(0)} vs ${off.requestsPerSecond.toFixed(0)} req/s; ${exports} exports, ${cost.exportedKb} KB to the sink`,
    );
    return cost;
  } finally {
    await Promise.all([sides.on?.proc.stop(), sides.off?.proc.stop()]);
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
