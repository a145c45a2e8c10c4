import type { Config } from '../../src/config.js';
import { connect, type Sql } from '../../src/db/connect.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * The benchmark's own database on the server the service would use: DATABASE_URL's server when
 * set, else the embedded PostgreSQL under the data directory. It never touches the service's own
 * database (`offerdesk` on the embedded server, or DATABASE_URL's), so a demo workspace and a
 * 1,000,000-offer benchmark workspace live side by side, and the seeded data survives between runs.
 */
export interface BenchDatabase {
  /** Connection string of the bench database, handed to the service, baseline and worker processes. */
  url: string;
  sql: Sql;
  name: string;
  setup: DatabaseSetup;
  close(): Promise<void>;
}

/**
 * Which PostgreSQL a run measured, and its settings that move the numbers: a run is only
 * compared with another of the same setup (report.ts, compareWithPrevious).
 */
export interface DatabaseSetup {
  /** The embedded server under the data directory, or DATABASE_URL's (a service). */
  embedded: boolean;
  /** `server_version`, e.g. "15.10 (Debian 15.10-1.pgdg120+1)". */
  version: string;
  sharedBuffers: string;
  synchronousCommit: string;
  /** `on`, or `off`: then the bench stands in for its ANALYZE (autoanalyze.ts). */
  autovacuum: string;
}

/** Pool of the orchestrating process: seeding runs one statement at a time, probes need a few. */
const ORCHESTRATOR_POOL = 4;

export async function openBenchDatabase(config: Config, name: string, options: { recreate: boolean; log: (line: string) => void }): Promise<BenchDatabase> {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = config.databaseUrl;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log: options.log });
    adminUrl = embedded.url;
  }
  const admin = connect(adminUrl, { max: 1, applicationName: 'offerdesk-bench-setup' });
  try {
    const [exists] = await admin`select 1 as found from pg_database where datname = ${name}`;
    if (exists && options.recreate) {
      options.log(`dropping database ${name}`);
      await admin.unsafe(`drop database ${name} with (force)`);
    }
    if (!exists || options.recreate) {
      await admin.unsafe(`create database ${name}`);
      options.log(`created database ${name}`);
    }
  } finally {
    await admin.end();
  }

  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const sql = connect(url, { max: ORCHESTRATOR_POOL, applicationName: 'offerdesk-bench' });
  await migrate(sql, options.log);
  const [settings] = await sql<{ version: string; shared_buffers: string; synchronous_commit: string; autovacuum: string }[]>`
    select current_setting('server_version') as version, current_setting('shared_buffers') as shared_buffers,
           current_setting('synchronous_commit') as synchronous_commit, current_setting('autovacuum') as autovacuum`;
  const setup: DatabaseSetup = {
    embedded: embedded !== undefined,
    version: settings!.version,
    sharedBuffers: settings!.shared_buffers,
    synchronousCommit: settings!.synchronous_commit,
    autovacuum: settings!.autovacuum,
  };
  options.log(
    `PostgreSQL ${setup.version}, ${setup.embedded ? 'embedded' : 'service (DATABASE_URL)'}, shared_buffers ${setup.sharedBuffers}, synchronous_commit ${setup.synchronousCommit}, autovacuum ${setup.autovacuum}`,
  );
  return {
    url,
    sql,
    name,
    setup,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
