import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Sql } from '../../../src/db/connect.js';

/**
 * Where a webhook phase's CPU goes: utime + stime from /proc/<pid>/stat of the worker processes,
 * every PostgreSQL server process (comm `postgres`), the receiver and the sender, and the machine
 * as a whole (/proc/stat busy against idle), between two samples taken at the phase's start and
 * end. Per delivery, so phases of different sizes and rates compare; the busy share says whether
 * a phase already had the machine's cores to itself.
 *
 * PostgreSQL's backends come and go (a pool reconnects, the bench's own connections), so two
 * samples alone would lose the CPU of a backend that ended between them: the postmaster's
 * cutime + cstime grows by the whole lifetime CPU of every child it reaps, so a backend gone by
 * the end counts as that growth minus what it had used at the start.
 *
 * Other work shares the server (other databases: tests, other benchmarks' copies): backends
 * connected to another database at the end sample are counted apart, not as this phase's
 * PostgreSQL. One that ended before it cannot be told apart any more and stays in.
 */

/** Clock ticks per second of /proc (USER_HZ; `getconf CLK_TCK`, 100 on Linux). */
const TICKS_PER_SECOND = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(out.stdout?.trim());
  return out.status === 0 && Number.isFinite(value) && value > 0 ? value : 100;
})();
const US_PER_TICK = 1_000_000 / TICKS_PER_SECOND;

/** Application names whose backends serve the process under test (worker, its liveness session, the floor queue). */
const MEASURED_APPLICATIONS = new Set(['offerdesk-bench-worker', 'offerdesk-worker-liveness', 'offerdesk-bench-floor']);

interface ProcStat {
  comm: string;
  ppid: number;
  /** utime + stime */
  ticks: number;
  /** cutime + cstime: children already reaped */
  childTicks: number;
}

function readStat(pid: number | 'self'): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      comm,
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      childTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

/** Busy and idle ticks of all cores together (/proc/stat's `cpu` line; iowait counts as idle). */
function machineTicks(): { busy: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  return { busy: user! + nice! + system! + irq! + softirq! + (steal ?? 0), idle: idle! + iowait! };
}

export interface CpuSnapshot {
  at: number;
  machine: { busy: number; idle: number };
  processes: Map<number, number>;
  postgres: Map<number, number>;
  /** cutime + cstime of the postmaster(s). */
  postmasterReaped: number;
  /** Backends by pid (pg_stat_activity right after the ticks): the bench database's or another's, and the application_name. */
  backends: Map<number, { ours: boolean; application: string }>;
}

/** The processes a phase names: the worker(s) or floor queue, the receiver, the sender. */
export interface PhaseProcesses {
  workers: number[];
  receiver: number;
  sender?: number;
}

/** `sql` is the bench database's pool. */
export async function cpuSnapshot(sql: Sql, processes: PhaseProcesses): Promise<CpuSnapshot> {
  const machine = machineTicks();
  const own = new Map<number, number>();
  for (const pid of [...processes.workers, processes.receiver, ...(processes.sender ? [processes.sender] : [])]) {
    const stat = readStat(pid);
    if (stat) own.set(pid, stat.ticks);
  }
  const postgres = new Map<number, number>();
  let postmasterReaped = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat?.comm !== 'postgres') continue;
    postgres.set(Number(entry), stat.ticks);
    // The postmaster is the postgres process whose parent is not one.
    if (readStat(stat.ppid)?.comm !== 'postgres') postmasterReaped += stat.childTicks;
  }
  const at = performance.now();
  const activity = await sql<{ pid: number; ours: boolean; application: string }[]>`
    select pid, datname = current_database() as ours, application_name as application from pg_stat_activity where datname is not null`;
  const backends = new Map(activity.map((a) => [a.pid, { ours: a.ours, application: a.application }]));
  return { at, machine, processes: own, postgres, postmasterReaped, backends };
}

/** CPU of one phase, per delivery (µs), by group. */
export interface PhaseCpu {
  deliveries: number;
  /** Wall time between the two samples. */
  seconds: number;
  cores: number;
  clockTicksPerSecond: number;
  perDeliveryUs: {
    /** The worker process(es), or the floor queue's process. */
    workers: number;
    /** Every PostgreSQL server process but the backends of other databases. */
    postgres: number;
    /** Of which the backends serving the process(es) under test (their application_name). */
    postgresForWorkers: number;
    /** Backends of other databases on the same server (counted in `other`, not in `postgres`). */
    postgresOtherDatabases: number;
    receiver: number;
    sender: number | null;
    /** The machine's busy time less the groups above: the bench's own process, other load (other databases' backends included). */
    other: number;
    machine: number;
  };
  /** Busy share of all cores between the samples (1 = every core busy all the time). */
  machineBusyShare: number;
}

function delta(end: Map<number, number>, start: Map<number, number>, pids: Iterable<number>): number {
  let sum = 0;
  for (const pid of pids) sum += (end.get(pid) ?? 0) - (start.get(pid) ?? 0);
  return sum;
}

/** The CPU between two snapshots, divided by `deliveries`; backends told apart as the end snapshot saw them. */
export function phaseCpu(start: CpuSnapshot, end: CpuSnapshot, processes: PhaseProcesses, deliveries: number): PhaseCpu {
  const { backends } = end;
  let allPostgres = end.postmasterReaped - start.postmasterReaped;
  for (const [pid, ticks] of end.postgres) allPostgres += ticks - (start.postgres.get(pid) ?? 0);
  for (const [pid, ticks] of start.postgres) if (!end.postgres.has(pid)) allPostgres -= ticks;
  const alive = [...end.postgres.keys()];
  const postgresForWorkers = delta(end.postgres, start.postgres, alive.filter((pid) => MEASURED_APPLICATIONS.has(backends.get(pid)?.application ?? '')));
  const otherDatabases = delta(end.postgres, start.postgres, alive.filter((pid) => backends.get(pid)?.ours === false));
  const postgres = allPostgres - otherDatabases;
  const workers = delta(end.processes, start.processes, processes.workers);
  const receiver = delta(end.processes, start.processes, [processes.receiver]);
  const sender = processes.sender ? delta(end.processes, start.processes, [processes.sender]) : null;
  const busy = end.machine.busy - start.machine.busy;
  const idle = end.machine.idle - start.machine.idle;
  const per = (ticks: number) => (ticks * US_PER_TICK) / Math.max(1, deliveries);
  return {
    deliveries,
    seconds: (end.at - start.at) / 1000,
    cores: cpus().length,
    clockTicksPerSecond: TICKS_PER_SECOND,
    perDeliveryUs: {
      workers: per(workers),
      postgres: per(postgres),
      postgresForWorkers: per(postgresForWorkers),
      postgresOtherDatabases: per(otherDatabases),
      receiver: per(receiver),
      sender: sender === null ? null : per(sender),
      other: per(busy - workers - postgres - receiver - (sender ?? 0)),
      machine: per(busy),
    },
    machineBusyShare: busy + idle > 0 ? busy / (busy + idle) : 0,
  };
}

/** One line for the bench's log. */
export function describeCpu(cpu: PhaseCpu): string {
  const p = cpu.perDeliveryUs;
  const us = (v: number | null) => (v === null ? '-' : v.toFixed(0));
  return (
    `  CPU µs/delivery: workers ${us(p.workers)}, postgres ${us(p.postgres)} (their backends ${us(p.postgresForWorkers)}; other databases ${us(p.postgresOtherDatabases)}), ` +
    `receiver ${us(p.receiver)}, sender ${us(p.sender)}, other ${us(p.other)}, machine ${us(p.machine)}; ` +
    `machine busy ${(cpu.machineBusyShare * 100).toFixed(0)}% of ${cpu.cores} cores over ${cpu.seconds.toFixed(1)} s`
  );
}
