import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadResult } from './load.js';
import { cpuMs, type NodeProcess } from './processes.js';

/**
 * What tracing costs the read API (docs/operations.md "Tracing"): the same requests against two
 * fresh service processes, one without tracing and one exporting traces at 10 % sampling
 * (parentbased_traceidratio 0.1) to a local OTLP sink that takes every export and discards it,
 * compared by the server's CPU time per request. Target: at most 10 % more. Both are started
 * here, alike but for OTEL_*, so neither has served more before (a warm heap, a grown pool).
 */

/** The sampling the target is stated for: 10 % of traces, and the children of those. */
export const TRACED_SERVICE_ENV = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
/** Tracing at that sampling costs at most 10 % more server CPU per request. */
export const TRACING_CPU_RATIO_TARGET = 1.1;
/** Each side runs this many times, alternating which goes first, so a drift in load evens out. */
const ROUNDS = 4;

export interface TracingCost {
  scenario: string;
  sampler: string;
  offCpuMsPerRequest: number | null;
  onCpuMsPerRequest: number | null;
  /**
   * on / off, target <= TRACING_CPU_RATIO_TARGET: the median of the rounds' ratios (each round
   * runs both sides back to back), which a burst of other load on a shared machine moves less
   * than the totals.
   */
  cpuRatio: number | null;
  /** Each round's on / off ratio. */
  roundRatios: number[];
  offRequestsPerSecond: number;
  onRequestsPerSecond: number;
  /** Export requests the sink took from the traced service, and their bytes. */
  exports: number;
  exportedKb: number;
}

interface Side {
  proc: NodeProcess;
  origin: string;
}

/**
 * Starts the sink and both services through `start` (the traced one given the OTEL_* environment
 * that points it at the sink), runs `scenario` against both sides in turns, and stops them.
 */
export async function measureTracingCost(input: {
  scenario: string;
  start(name: string, env: Record<string, string>): Promise<Side>;
  run(origin: string, seconds: number): Promise<LoadResult>;
  durationSeconds: number;
  warmupSeconds: number;
}): Promise<TracingCost> {
  let exports = 0;
  let bytes = 0;
  const sink = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  let traced: Side | undefined;
  let untraced: Side | undefined;
  try {
    untraced = await input.start('service-untraced', {});
    traced = await input.start('service-traced', { ...TRACED_SERVICE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl });
    const totals = { off: { cpu: 0, requests: 0, seconds: 0 }, on: { cpu: 0, requests: 0, seconds: 0 } };
    const roundRatios: number[] = [];
    let cpuKnown = true;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const perRequestThisRound = { off: 0, on: 0 };
      for (const which of order) {
        const side = which === 'on' ? traced : untraced;
        if (input.warmupSeconds > 0) await input.run(side.origin, input.warmupSeconds);
        const before = cpuMs(side.proc.pid);
        const result = await input.run(side.origin, input.durationSeconds);
        const after = cpuMs(side.proc.pid);
        if (before === null || after === null) cpuKnown = false;
        else totals[which].cpu += after - before;
        totals[which].requests += result.requests;
        totals[which].seconds += result.seconds;
        if (before !== null && after !== null && result.requests > 0) perRequestThisRound[which] = (after - before) / result.requests;
      }
      if (perRequestThisRound.off > 0 && perRequestThisRound.on > 0) roundRatios.push(perRequestThisRound.on / perRequestThisRound.off);
    }
    const perRequest = (t: { cpu: number; requests: number }) => (cpuKnown && t.requests > 0 ? t.cpu / t.requests : null);
    const off = perRequest(totals.off);
    const on = perRequest(totals.on);
    return {
      scenario: input.scenario,
      sampler: `${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER} ${TRACED_SERVICE_ENV.OTEL_TRACES_SAMPLER_ARG}`,
      offCpuMsPerRequest: off,
      onCpuMsPerRequest: on,
      cpuRatio: cpuKnown && roundRatios.length === ROUNDS ? median(roundRatios) : null,
      roundRatios,
      offRequestsPerSecond: totals.off.requests / totals.off.seconds,
      onRequestsPerSecond: totals.on.requests / totals.on.seconds,
      exports,
      exportedKb: Math.round(bytes / 1024),
    };
  } finally {
    await Promise.all([traced?.proc.stop(), untraced?.proc.stop()]);
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
