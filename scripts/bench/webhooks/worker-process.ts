import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { startWorker } from '../../../src/host/worker.js';

/**
 * One delivery worker as `offerdesk worker` runs it, counting every statement through postgres.js's `debug` hook.
 * Prints {"ready":true} once started; on SIGTERM stops as `worker` does and prints {"statements","transactions"}.
 */
const config = loadConfig();
if (!config.databaseUrl) throw new Error('worker-process needs DATABASE_URL');
let [statements, transactions] = [0, 0];
const sql = connect(config.databaseUrl, {
  max: config.databasePoolSize,
  applicationName: 'offerdesk-bench-worker',
  debug: (_connection, query) => {
    statements++;
    if (/^\s*begin\b/i.test(query)) transactions++;
  },
});
const logger = createLogger(config.logLevel, 'offerdesk-bench-worker');
const worker = await startWorker({ sql, databaseUrl: config.databaseUrl, config, clock: systemClock, logger });
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

process.once('SIGTERM', async () => {
  await worker.stop();
  process.stdout.write(`${JSON.stringify({ statements, transactions })}\n`);
  await sql.end({ timeout: 5 });
  process.exit(0);
});
