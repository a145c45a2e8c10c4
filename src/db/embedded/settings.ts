/** Settings shared by the files of the embedded PostgreSQL server (see start.ts). */

export const SUPERUSER = 'postgres';
export const LISTEN_HOST = '127.0.0.1';
/** Test runs open one pool per test file and worker, plus template clones; 100 is too tight. */
export const MAX_CONNECTIONS = 300;
export const START_TIMEOUT_MS = 60_000;
export const STOP_TIMEOUT_MS = 30_000;
/** How long a second process waits for another one that is initialising or starting the server. */
export const START_LOCK_TIMEOUT_MS = 120_000;
/** A lock directory without a pid file older than this was left by a process that died at once. */
export const START_LOCK_ORPHAN_MS = 10_000;
export const POLL_MS = 25;
export const PORT_ATTEMPTS = 5;
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
