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
  close(): Promise<void>;
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
  return {
    url,
    sql,
    name,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
