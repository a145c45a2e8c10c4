import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's redis-server package puts the binary; PATH is searched when it is not there. */
const REDIS_SERVER_BINARY = existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : 'redis-server';
const START_DEADLINE_MS = 10_000;
const STOP_DEADLINE_MS = 5_000;

/**
 * A redis-server process of its own, on a free loopback port in a temporary directory, that a
 * test may freeze (SIGSTOP), thaw (SIGCONT), kill and start again on the same port. Nothing is
 * persisted; nothing but 127.0.0.1 is bound.
 */
export interface RedisProcess {
  url: string;
  port: number;
  pid(): number | undefined;
  freeze(): void;
  thaw(): void;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill). */
  restart(): Promise<void>;
  /** Ends it (thawing it first if frozen) and removes the directory. */
  stop(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  return existsSync(REDIS_SERVER_BINARY) || process.env.PATH?.split(':').some((dir) => existsSync(join(dir, 'redis-server'))) === true;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(200);
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startRedisProcess(): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'offerdesk-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let frozen = false;

  const launch = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
    const started = spawn(REDIS_SERVER_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!(await answers(port))) {
      if (started.exitCode !== null || started.signalCode !== null) throw new Error(`redis-server exited at start (port ${port})`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within ${START_DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await launch();

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: () => child?.pid,
    freeze() {
      child?.kill('SIGSTOP');
      frozen = true;
    },
    thaw() {
      child?.kill('SIGCONT');
      frozen = false;
    },
    async kill() {
      if (!child) return;
      child.kill('SIGKILL');
      await exited(child, STOP_DEADLINE_MS);
      frozen = false;
    },
    async restart() {
      await launch();
    },
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) {
        if (frozen) child.kill('SIGCONT');
        child.kill('SIGTERM');
        await exited(child, STOP_DEADLINE_MS).catch(async () => {
          child?.kill('SIGKILL');
          await exited(child!, STOP_DEADLINE_MS);
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
