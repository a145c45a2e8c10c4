import type { PhaseCpu } from './cpu.js';
import type { WebhookResults } from './run.js';

/** The webhook part's CPU table and queue floor for the printed report (report.ts). */

const us = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(0));

/** Phases that carry CPU samples, by the report's name; older results files have none. */
function phases(w: WebhookResults): [string, number | null, PhaseCpu | undefined][] {
  return [
    ['throughput, 1 worker', w.throughput.perSecond, w.throughput.cpu],
    ['baseline sender', w.baseline.perSecond, w.baseline.cpu],
    ['postgres queue floor', w.floor?.perSecond ?? null, w.floor?.cpu],
    ['reference, 1 worker', w.failingEndpoints.reference.perSecond, w.failingEndpoints.reference.cpu],
    ['reference again', w.failingEndpoints.referenceAfter?.perSecond ?? null, w.failingEndpoints.referenceAfter?.cpu],
    ['scale-out, 2 workers', w.scaleOut.two.perSecond, w.scaleOut.two.cpu],
    ...w.backlog.map((r): [string, number, PhaseCpu | undefined] => [`backlog ${r.openDeliveries} open`, r.perSecond, r.cpu]),
  ];
}

export function printWebhookCpu(w: WebhookResults, log: (line: string) => void, table: (header: string[], rows: string[][]) => string): void {
  const rows = phases(w)
    .filter(([, , cpu]) => cpu)
    .map(([name, perSecond, cpu]) => {
      const p = cpu!.perDeliveryUs;
      return [
        name,
        perSecond === null ? '-' : perSecond.toFixed(0),
        us(p.workers),
        us(p.postgres),
        us(p.postgresForWorkers),
        us(p.receiver),
        us(p.sender),
        us(p.other),
        us(p.postgresOtherDatabases),
        us(p.machine),
        `${(cpu!.machineBusyShare * 100).toFixed(0)}%`,
      ];
    });
  if (rows.length === 0) return;
  const cores = phases(w).find(([, , cpu]) => cpu)?.[2]?.cores ?? '?';
  log(`\nCPU per delivery in µs (utime + stime between the phase's start and end), and the machine's busy share of its ${cores} cores`);
  log(table(['phase', 'per s', 'worker(s)', 'postgres', 'of which their backends', 'receiver', 'sender', 'other', 'of which other databases', 'machine', 'busy'], rows));
  if (w.floor) {
    log(
      `postgres queue floor (skip-locked claim, group-committed outcomes, no webhook limits): ${w.floor.perSecond.toFixed(0)}/s = ` +
        `${w.floor.ratio.toFixed(2)}x the baseline sender, ${w.floor.statementsPerDelivery.toFixed(3)} statements per delivery; ` +
        `the worker is ${(w.throughput.perSecond / w.floor.perSecond).toFixed(2)}x the floor`,
    );
  }
}

/** Sanity of the CPU samples for the smoke run. */
export function cpuProblems(w: WebhookResults): string[] {
  const problems: string[] = [];
  for (const [name, , cpu] of phases(w)) {
    if (cpu && !(cpu.perDeliveryUs.machine > 0 && cpu.machineBusyShare > 0)) problems.push(`webhooks ${name}: no CPU time sampled`);
  }
  return problems;
}

/** Sanity of the queue floor for the smoke run. */
export function floorProblems(w: WebhookResults): string[] {
  if (!w.floor) return ['webhooks floor: the phase did not run'];
  if (!(w.floor.sent > 0 && w.floor.ok === w.floor.sent && w.floor.perSecond > 0)) return ['webhooks floor: not every delivery was sent and recorded'];
  return [];
}
