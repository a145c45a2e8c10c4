import { join } from 'node:path';
import type { Config } from '../config.js';
import { connect, type Sql } from './connect.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';

/** The database the service uses on the embedded server (the `postgres` database stays for admin). */
export const EMBEDDED_DATABASE = 'offerdesk';

export interface OpenOptions {
  /** Shown in pg_stat_activity: `offerdesk-api`, `offerdesk-cli`, ... */
  applicationName?: string;
  /** Progress lines: embedded server notices and each applied migration. */
  log?: (line: string) => void;
}

export interface Database {
  sql: Sql;
  /** The connection string of the database in use (for a process's own extra session). */
  url: string;
  /** Ends the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>;
  /** Whether the embedded PostgreSQL under `config.dataDir` is in use (DATABASE_URL absent). */
  embedded: boolean;
  /** Migrations this open applied, as `0001_core`. Empty when the schema was current. */
  applied: string[];
  /** Which database this is, for `--verbose` and banners; never the password. */
  description: string;
  /** This process started the embedded server, and close() stops it. */
  startedServer: boolean;
}

/** Seconds postgres.js waits for queries in flight before closing connections on close(). */
const POOL_END_TIMEOUT_S = 5;

/**
 * Opens the service's database: the server of DATABASE_URL when set, else the embedded one
 * (started, or joined when another process of this data directory already runs it), and brings
 * the schema up to date. Every entry point (serve, worker, CLI) opens the database this way.
 */
export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  const log = options.log ?? (() => {});
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log });
    try {
      await ensureDatabase(embedded.url, EMBEDDED_DATABASE);
    } catch (error) {
      await embedded.stop();
      throw error;
    }
    const parsed = new URL(embedded.url);
    parsed.pathname = `/${EMBEDDED_DATABASE}`;
    url = parsed.toString();
  }

  const sql = connect(url, { max: config.databasePoolSize, applicationName: options.applicationName });
  const applied: string[] = [];
  try {
    await migrate(sql, (line) => {
      applied.push(line.replace(/^applied migration /, ''));
      log(line);
    });
  } catch (error) {
    await sql.end({ timeout: POOL_END_TIMEOUT_S });
    await embedded?.stop();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    sql,
    url,
    embedded: embedded !== undefined,
    applied,
    description: embedded
      ? `embedded PostgreSQL in ${join(config.dataDir, 'postgres')} on 127.0.0.1:${embedded.port}` +
        (embedded.owned ? ' (started by this process)' : ' (already running)')
      : `DATABASE_URL ${describeUrl(url)}`,
    startedServer: embedded?.owned ?? false,
    close() {
      closing ??= (async () => {
        await sql.end({ timeout: POOL_END_TIMEOUT_S });
        await embedded?.stop();
      })();
      return closing;
    },
  };
}

function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return '(unparsable)';
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = connect(adminUrl, { max: 1, applicationName: 'offerdesk-setup' });
  try {
    const [exists] = await admin`select 1 as found from pg_database where datname = ${name}`;
    if (exists) return;
    try {
      await admin.unsafe(`create database ${name}`);
    } catch (error) {
      // 42P04 duplicate_database: another process created it between the check and here.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  } finally {
    await admin.end();
  }
}
