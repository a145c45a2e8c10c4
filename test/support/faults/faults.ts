import { randomBytes } from 'node:crypto';
import { connect as connectTcp } from 'node:net';
import { startChild, startWorkerProcess } from './children.js';
import type { World } from './world.js';

/**
 * The faults, one at a time. `inject` acts and returns at the fault's end: the moment recovery is
 * measured from. Bounds are what docs/reliability.md promises for each.
 */
export interface Fault {
  name: string;
  /** One line for the table in docs/reliability.md. */
  what: string;
  /** Needs the suite's own embedded PostgreSQL (it stops it). */
  needsOwnPostgres?: boolean;
  /** May the API answer non-2xx during the fault (a database that is away: 500, never a hang)? */
  non2xxAllowed: boolean;
  /**
   * No read may take longer than this plus the slowest answer of the baseline row (the same load
   * without a fault), so a machine busy with other work does not count against the service.
   */
  slowestBoundMs: number;
  inject(world: World, note: (line: string) => void): Promise<void>;
}

/** How long a fault that has a duration lasts. */
export const FAULT_HOLD_MS = 3_000;
const SLOW_CLIENTS = 20;
const TRICKLE_EVERY_MS = 2_000;
/** How soon a `serve` with the wrong master key must have exited, from its spawn (tsx included). */
const WRONG_KEY_EXIT_BOUND_MS = 15_000;
const WRONG_KEY_REASON = /^offerdesk: the master key cannot open the stored webhook secrets[^\n]*\n$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const FAULTS: Fault[] = [
  {
    name: 'baseline',
    what: `no fault: the same load for ${FAULT_HOLD_MS / 1000} s, the yardstick for the rows below`,
    non2xxAllowed: false,
    // The yardstick itself: how slow this machine answers without a fault.
    slowestBoundMs: Number.POSITIVE_INFINITY,
    async inject() {
      await sleep(FAULT_HOLD_MS);
    },
  },
  {
    name: 'redis-frozen',
    what: `its Redis frozen (SIGSTOP) for ${FAULT_HOLD_MS / 1000} s, then SIGCONT`,
    non2xxAllowed: false,
    slowestBoundMs: 1_000,
    async inject(world) {
      world.redis.freeze();
      await sleep(FAULT_HOLD_MS);
      world.redis.thaw();
    },
  },
  {
    name: 'redis-killed',
    what: `its Redis killed (SIGKILL), started again on the same port ${FAULT_HOLD_MS / 1000} s later`,
    non2xxAllowed: false,
    slowestBoundMs: 1_000,
    async inject(world) {
      await world.redis.kill();
      await sleep(FAULT_HOLD_MS);
      await world.redis.restart();
    },
  },
  {
    name: 'postgres-stopped',
    what: `the embedded PostgreSQL stopped (fast shutdown), started again ${FAULT_HOLD_MS / 1000} s later`,
    needsOwnPostgres: true,
    non2xxAllowed: true,
    slowestBoundMs: 2_000,
    async inject(world, note) {
      const stopped = performance.now();
      await world.postgres!.stop();
      await sleep(FAULT_HOLD_MS);
      await world.postgres!.start();
      note(`PostgreSQL away for ${((performance.now() - stopped) / 1000).toFixed(1)} s`);
    },
  },
  {
    name: 'connections-terminated',
    what: 'every PostgreSQL connection terminated (pg_terminate_backend), twice, 1 s apart',
    non2xxAllowed: true,
    slowestBoundMs: 2_000,
    async inject(world, note) {
      let terminated = 0;
      for (let round = 0; round < 2; round++) {
        if (round > 0) await sleep(1_000);
        const rows = await world.sql<{ n: number }[]>`
          select count(*)::int as n
            from (select pg_terminate_backend(pid)
                    from pg_stat_activity
                   where pid <> pg_backend_pid() and backend_type = 'client backend' and datname = current_database()) t`;
        terminated += rows[0]!.n;
      }
      note(`${terminated} connections terminated`);
    },
  },
  {
    name: 'worker-killed',
    what: 'a worker killed with -9 while its attempts are in flight (receiver answering after 1 s); a new one started',
    non2xxAllowed: false,
    slowestBoundMs: 1_000,
    async inject(world, note) {
      let arrivedAt = 0;
      world.receiver.reply(() => {
        arrivedAt = performance.now();
        return { status: 200, body: 'ok', delayMs: 1_000 };
      });
      const deadline = performance.now() + 10_000;
      while (performance.now() - arrivedAt > 300 && performance.now() < deadline) await sleep(20);
      const victim = world.workers.shift()!;
      await victim.kill9();
      const killedAt = performance.now();
      world.receiver.reply(() => ({ status: 200, body: 'ok' }));
      world.workers.push(await startWorkerProcess(`${victim.name}-after-kill`, world.env, `${world.workDir}/logs`));
      // Recovery counts from here, so the row says how long after the kill that was (the lease is 12 s).
      note(`killed ${victim.name} (pid ${victim.pid}) mid-attempt; its replacement was running ${((performance.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
    },
  },
  {
    name: 'wrong-master-key',
    what: 'a second `serve` (with its worker) started with another OFFERDESK_MASTER_KEY against the same data',
    non2xxAllowed: false,
    slowestBoundMs: 1_000,
    async inject(world, note) {
      const wrongKey = randomBytes(32);
      const started = performance.now();
      const wrong = startChild('serve-wrong-key', ['serve', '--port', '0', '--json'], { ...world.env, OFFERDESK_MASTER_KEY: wrongKey.toString('base64') }, `${world.workDir}/logs`);
      let stdout = '';
      let stderr = '';
      wrong.process.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      wrong.process.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // 'close': the exit code and every byte of stderr.
      const closed = new Promise<number | null>((resolve) => wrong.process.once('close', (code) => resolve(code)));
      const code = await Promise.race([closed, sleep(WRONG_KEY_EXIT_BOUND_MS).then(() => 'running' as const)]);
      const tookMs = performance.now() - started;
      if (code === 'running') {
        await wrong.stop();
        throw new Error(`a serve with the wrong master key was still running after ${WRONG_KEY_EXIT_BOUND_MS / 1000} s`);
      }
      note(`the wrong-key serve exited ${code} after ${(tookMs / 1000).toFixed(1)} s: ${stderr.trim()}`);
      if (code !== 2) throw new Error(`the wrong-key serve exited ${code}, not 2`);
      if (!WRONG_KEY_REASON.test(stderr)) throw new Error(`the wrong-key serve did not say its one-line reason: ${JSON.stringify(stderr)}`);
      // Never a key value in its output (the reason names key ids only).
      const current = Buffer.from(String(world.env.OFFERDESK_MASTER_KEY), 'base64');
      for (const key of [wrongKey, current]) {
        for (const form of [key.toString('base64'), key.toString('hex')]) {
          if (`${stdout}${stderr}`.includes(form)) throw new Error('the wrong-key serve printed a master key');
        }
      }
      if (stdout.includes('base_url')) throw new Error('the wrong-key serve listened before it stopped');
      // The running service was never touched: the same processes still serve and deliver.
      for (const child of [world.api.child, ...world.workers]) {
        if (child.process.exitCode !== null || child.process.signalCode !== null) throw new Error(`${child.name} is no longer running`);
      }
    },
  },
  {
    name: 'slow-clients',
    what: `${SLOW_CLIENTS} clients sending their headers one byte every ${TRICKLE_EVERY_MS / 1000} s`,
    non2xxAllowed: false,
    slowestBoundMs: 1_000,
    async inject(world, note) {
      const port = Number(new URL(world.api.origin).port);
      const closedAfter = await Promise.all(Array.from({ length: SLOW_CLIENTS }, () => trickle(port, world.headersTimeoutMs + 5_000)));
      const longest = Math.max(...closedAfter);
      note(`slow sockets closed by the server after at most ${(longest / 1000).toFixed(1)} s (header deadline ${world.headersTimeoutMs / 1000} s)`);
      if (longest > world.headersTimeoutMs + 1_500) throw new Error(`a slow client held its socket for ${Math.round(longest)} ms`);
    },
  },
];

/** A client that sends its headers one byte every 2 s; resolves ms until the server closed it. */
function trickle(port: number, giveUpMs: number): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connectTcp({ host: '127.0.0.1', port });
    const header = 'X-Slow: 1\r\n';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('error', () => {});
    // Read what the server sends (its 408): an unread socket would not see the server's close.
    socket.resume();
    socket.once('connect', () => {
      socket.write('GET /api/v1/workspace HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      timer = setInterval(() => socket.writable && socket.write(header[sent++ % header.length]!), TRICKLE_EVERY_MS);
    });
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve(performance.now() - started);
    });
  });
}
