import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isAlive, readPidFile } from './pid-file.js';
import type { Ids } from './root-user.js';
import { LISTEN_HOST, LOG_ROTATE_BYTES, MAX_CONNECTIONS, POLL_MS, START_TIMEOUT_MS, STOP_TIMEOUT_MS, sleep } from './settings.js';

/** Starting and stopping the server process (trap 4 of start.ts: a free port). */

export class PortInUseError extends Error {}

/** Trap 4: the kernel's choice of a free port, released just before PostgreSQL binds it. */
export function findFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.once('error', fail);
    server.listen(0, LISTEN_HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

export async function spawnServer(
  postgresBinary: string,
  dataDir: string,
  pgDir: string,
  port: number,
  ids: Ids | undefined,
): Promise<{ stop: () => Promise<void> }> {
  const logFile = join(dataDir, 'postgres.log');
  rotateLog(logFile);
  const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
  const logFd = openSync(logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(
      postgresBinary,
      [
        '-D', pgDir,
        '-p', String(port),
        '-c', `listen_addresses=${LISTEN_HOST}`,
        // No Unix socket: nothing to clean up in /tmp, and two servers never meet there.
        '-c', 'unix_socket_directories=',
        '-c', `max_connections=${MAX_CONNECTIONS}`,
      ],
      {
        ...(ids ?? {}),
        // Its own process group: a terminal's Ctrl-C must not stop the database under requests
        // that are still finishing; our shutdown stops it last.
        detached: true,
        // The log goes to a file, not a pipe, so the server never blocks on (or dies with) us.
        stdio: ['ignore', logFd, logFd],
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
  } finally {
    closeSync(logFd);
  }

  let exited = false;
  const exit = new Promise<void>((done) => child.once('exit', () => {
    exited = true;
    done();
  }));
  child.once('error', () => {
    exited = true;
  });

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      const output = readFileSync(logFile, 'utf8').slice(logStart);
      if (/could not bind|Address already in use/i.test(output)) throw new PortInUseError(`port ${port} is in use`);
      throw new Error(`embedded PostgreSQL did not start:\n${output.slice(-2000)}`);
    }
    const pidFile = readPidFile(pgDir);
    if (pidFile && pidFile.pid === child.pid && pidFile.status === 'ready') break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS} ms; see ${logFile}`);
    }
    await sleep(POLL_MS);
  }

  // Safety net for an exit without stop() (an uncaught error): ask for a fast shutdown, which
  // PostgreSQL completes on its own. A kill -9 of this process skips it; the next opener adopts.
  const onExit = () => {
    if (!exited) child.kill('SIGINT');
  };
  process.on('exit', onExit);

  return {
    async stop() {
      process.removeListener('exit', onExit);
      if (exited) return;
      // SIGINT is PostgreSQL's "fast" shutdown: sessions are ended, data is checkpointed.
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
      await exit;
      clearTimeout(timer);
    },
  };
}

export function stopByPid(pid: number): () => Promise<void> {
  const onExit = () => {
    if (isAlive(pid)) process.kill(pid, 'SIGINT');
  };
  process.on('exit', onExit);
  return async () => {
    process.removeListener('exit', onExit);
    if (!isAlive(pid)) return;
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (isAlive(pid)) {
      if (Date.now() > deadline) {
        process.kill(pid, 'SIGQUIT');
        break;
      }
      await sleep(POLL_MS);
    }
  };
}

function rotateLog(logFile: string): void {
  try {
    if (statSync(logFile).size > LOG_ROTATE_BYTES) renameSync(logFile, `${logFile}.1`);
  } catch {
    // No log yet.
  }
}
