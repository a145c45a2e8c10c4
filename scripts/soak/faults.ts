import { randomBytes } from 'node:crypto';
import { runJson, sleep } from '../bench/processes.js';
import type { Ledger } from './ledger.js';
import { definedEnv } from './traffic.js';
import type { World } from './world.js';

/**
 * The faults and their schedule. The run is cut into cycles of about 12 minutes (one cycle for a
 * shorter run), and each cycle holds every fault once at the same share of it; a rekey happens in
 * the first two cycles only: each one restarts every process, and memory is judged per process
 * over the process's later life, so the serve and worker judged must live the rest of the run.
 * Durations are short in a run under 10 minutes, so that retries (webhooks: 1 minute, then 5;
 * mail: 1 minute, then 5) still fit before the end.
 */

export interface FaultContext {
  world: World;
  ledger: Ledger;
  log: (line: string) => void;
  short: boolean;
}

interface FaultSpec {
  name: string;
  /** Share of the cycle at which it starts. */
  at: number;
  /** Restarts or kills processes: never at the same time as another such fault. */
  exclusive: boolean;
  /** For how long after its end answers 5xx are put down to it (0: none may be). */
  explainsMs: number;
  inCycle?: (cycle: number, cycles: number, short: boolean) => boolean;
  /** Share of the cycle in a run under 10 minutes, when not `at`: what must end before the drain moves up. */
  shortAt?: number;
  run(ctx: FaultContext): Promise<string>;
}

const seconds = (ctx: FaultContext, short: number, long: number) => (ctx.short ? short : long) * 1000;

const FAULTS: FaultSpec[] = [
  {
    name: 'worker-killed',
    at: 0.05,
    exclusive: true,
    explainsMs: 0,
    async run({ world, ledger }) {
      // In the middle of sending: wait (a little) for attempts the receiver holds open.
      const deadline = Date.now() + 5_000;
      while (ledger.openRequests === 0 && Date.now() < deadline) await sleep(50);
      const victim = world.workers.get('victim');
      const inFlight = ledger.noteKill();
      await victim?.child.kill9();
      world.workers.delete('victim');
      await sleep(2_000);
      await world.startWorker('victim');
      return `SIGKILL with ${inFlight} attempts in flight or just answered; a new worker 2 s later`;
    },
  },
  {
    name: 'smtp-down-then-slow',
    at: 0.1,
    exclusive: false,
    explainsMs: 0,
    async run(ctx) {
      const down = seconds(ctx, 20, 180);
      const slow = seconds(ctx, 15, 120);
      await ctx.world.smtpGate.down();
      await sleep(down);
      await ctx.world.smtpGate.up();
      ctx.world.smtpGate.slow(3_000);
      await sleep(slow);
      ctx.world.smtpGate.slow(0);
      return `SMTP server away ${down / 1000} s, then every answer 3 s late for ${slow / 1000} s`;
    },
  },
  {
    name: 'endpoints-failing',
    at: 0.15,
    exclusive: false,
    explainsMs: 0,
    async run(ctx) {
      const hold = seconds(ctx, 20, 180);
      ctx.world.flakyFailing = true;
      await sleep(hold);
      ctx.world.flakyFailing = false;
      return `the flaky endpoints answered 500 for ${hold / 1000} s, then 200`;
    },
  },
  {
    name: 'trace-collector-down',
    at: 0.2,
    exclusive: false,
    explainsMs: 0,
    async run(ctx) {
      const hold = seconds(ctx, 20, 240);
      await ctx.world.otlpGate.down();
      await sleep(hold);
      await ctx.world.otlpGate.up();
      return `OTLP collector away ${hold / 1000} s`;
    },
  },
  {
    name: 'redis-restarted',
    at: 0.3,
    exclusive: true,
    explainsMs: 0,
    async run({ world }) {
      await world.redis.kill();
      await sleep(3_000);
      await world.redis.restart();
      return 'redis-server killed, started again on its port 3 s later';
    },
  },
  {
    name: 'postgres-connections-terminated',
    at: 0.4,
    exclusive: true,
    // A pooled connection cut while idle fails the first query sent on it, whenever that comes:
    // postgres.js learns of the termination only then (seen 18 s after the fault).
    explainsMs: 60_000,
    async run({ world, ledger }) {
      const inFlight = ledger.noteKill();
      // The service's backends on the soak's own database; the soak's own pool is left alone.
      const [row] = await world.sql<{ n: number }[]>`
        select count(*)::int as n
          from (select pg_terminate_backend(pid)
                  from pg_stat_activity
                 where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
                   and application_name not like 'offerdesk-soak%') t`;
      await sleep(2_000);
      return `${row!.n} connections terminated (${inFlight} attempts in flight)`;
    },
  },
  {
    name: 'redis-frozen',
    at: 0.5,
    exclusive: true,
    explainsMs: 0,
    async run(ctx) {
      const hold = seconds(ctx, 3, 10);
      ctx.world.redis.freeze();
      await sleep(hold);
      ctx.world.redis.thaw();
      return `redis-server frozen (SIGSTOP) ${hold / 1000} s`;
    },
  },
  {
    name: 'second-worker',
    at: 0.55,
    exclusive: true,
    explainsMs: 0,
    async run(ctx) {
      const hold = seconds(ctx, 15, 120);
      await ctx.world.startWorker('extra');
      await sleep(hold);
      await ctx.world.stopWorker('extra');
      return `a further worker ran ${hold / 1000} s, then SIGTERM`;
    },
  },
  {
    name: 'rekey',
    at: 0.65,
    // It restarts every process (tens of seconds on a busy machine): early enough to end in the run.
    shortAt: 0.4,
    exclusive: true,
    explainsMs: 0,
    inCycle: (cycle) => cycle < 2,
    async run({ world }) {
      // docs/reliability.md "A changed master key never breaks webhooks silently", rotation steps
      // 1 and 2: every process restarted with the new key and the old ones as previous keys
      // (rolling: each new process runs before the one it replaces stops), then `secrets rekey`.
      const key = randomBytes(32).toString('base64');
      world.masterKeys.unshift(key);
      world.env.OFFERDESK_MASTER_KEY = key;
      world.env.OFFERDESK_MASTER_KEYS_PREVIOUS = world.masterKeys.slice(1).join(',');
      const old = [...world.workers.values()];
      await Promise.all([...world.workers.keys()].map((role) => world.startWorker(role)));
      await Promise.all(old.map((worker) => worker.child.stop()));
      await world.startApi();
      const result = await runJson<{ reSealed?: number; resealed?: number }>('offerdesk secrets rekey', 'bin/offerdesk.js', ['secrets', 'rekey', '--json'], definedEnv(world.env), true);
      return `processes restarted with a new master key, then secrets rekey: ${JSON.stringify(result)}`;
    },
  },
  {
    name: 'worker-killed',
    at: 0.75,
    exclusive: true,
    explainsMs: 0,
    // A killed worker's claimed mails wait for their lease (2 minutes): once is enough in a short run.
    inCycle: (_cycle, _cycles, short) => !short,
    run: (ctx) => FAULTS[0]!.run(ctx),
  },
];

export interface FaultRecord {
  name: string;
  startedAt: string;
  seconds: number;
  outcome: string;
}

export interface FaultSchedule {
  /** Scheduled runs by fault name. */
  planned: Record<string, number>;
  done: FaultRecord[];
  failed: string[];
  /** Resolves once every scheduled fault has run. */
  finished: Promise<void>;
  cancel(): void;
}

export function scheduleFaults(ctx: FaultContext, runMs: number): FaultSchedule {
  const cycles = Math.max(1, Math.round(runMs / 60_000 / 12));
  const cycleMs = runMs / cycles;
  const planned: Record<string, number> = {};
  const done: FaultRecord[] = [];
  const failed: string[] = [];
  const timers: NodeJS.Timeout[] = [];
  let exclusive: Promise<unknown> = Promise.resolve();
  const runs: Promise<void>[] = [];
  let cancelled = false;

  for (let cycle = 0; cycle < cycles; cycle++) {
    for (const fault of FAULTS) {
      if (fault.inCycle && !fault.inCycle(cycle, cycles, ctx.short)) continue;
      planned[fault.name] = (planned[fault.name] ?? 0) + 1;
      runs.push(
        new Promise<void>((resolve) => {
          timers.push(
            setTimeout(() => {
              if (cancelled) return resolve();
              const go = async () => {
                if (cancelled) return;
                const window = ctx.ledger.openFault(fault.name, fault.explainsMs);
                const started = Date.now();
                ctx.log(`fault ${fault.name}: start`);
                try {
                  const outcome = await fault.run(ctx);
                  done.push({ name: fault.name, startedAt: new Date(started).toISOString(), seconds: Math.round((Date.now() - started) / 100) / 10, outcome });
                  ctx.log(`fault ${fault.name}: ${outcome}`);
                } catch (error) {
                  failed.push(`${fault.name}: ${(error as Error).message}`);
                  ctx.log(`fault ${fault.name} FAILED: ${(error as Error).message}`);
                } finally {
                  window.endedAt = Date.now();
                }
              };
              const turn = fault.exclusive ? (exclusive = exclusive.then(go, go)) : go();
              void turn.finally(resolve);
            }, cycle * cycleMs + ((ctx.short ? fault.shortAt : undefined) ?? fault.at) * cycleMs),
          );
        }),
      );
    }
  }
  return {
    planned,
    done,
    failed,
    finished: Promise.all(runs).then(() => undefined),
    cancel() {
      cancelled = true;
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
