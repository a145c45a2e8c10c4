import type { Config } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * The benchmark's own database on the server the service would use (DATABASE_URL's, else the embedded one),
 * beside the service's own database, so the seeded data survives between runs.
 */
export type BenchDatabase = Awaited<ReturnType<typeof openBenchDatabase>>;

/** Which PostgreSQL a run measured and the settings that move its numbers (runs compare only on the same setup). */
export type DatabaseSetup = BenchDatabase['setup'];

/** Pool of the orchestrating process: seeding runs one statement at a time, probes need a few. */
export const ORCHESTRATOR_POOL = 4;

export async function openBenchDatabase(config: Config, name: string, options: { recreate: boolean; log: (line: string) => void }) {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, log: options.log });
  const adminUrl = config.databaseUrl || embedded!.url;
  const admin = connect(adminUrl, { max: 1, applicationName: 'offerdesk-bench-setup' });
  try {
    if (options.recreate) await admin.unsafe(`drop database if exists ${name} with (force)`);
    const [exists] = await admin`select 1 as found from pg_database where datname = ${name}`;
    if (!exists) {
      await admin.unsafe(`create database ${name}`);
      options.log(`created database ${name}`);
    }
  } finally {
    await admin.end();
  }

  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const sql = connect(url, { max: ORCHESTRATOR_POOL, applicationName: 'offerdesk-bench' });
  await migrate(sql, options.log);
  const [settings] = await sql<{ version: string; sharedBuffers: string; synchronousCommit: string; autovacuum: string }[]>`
    select current_setting('server_version') as version, current_setting('shared_buffers') as "sharedBuffers",
           current_setting('synchronous_commit') as "synchronousCommit", current_setting('autovacuum') as autovacuum`;
  const setup = { embedded: embedded !== undefined, ...settings! };
  options.log(describeDatabase(setup));
  const close = async () => {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  };
  // url: handed to the service, baseline and worker processes.
  return { url, sql, name, setup, close };
}

export function describeDatabase(d: DatabaseSetup): string {
  return `PostgreSQL ${d.version} (${d.embedded ? 'embedded' : 'service'}), shared_buffers ${d.sharedBuffers}, synchronous_commit ${d.synchronousCommit}, autovacuum ${d.autovacuum}`;
}
