import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { startWorker } from '../../../src/webhooks/engine/worker.js';

/**
 * One delivery worker as `offerdesk worker` runs it (startWorker with configuration from the
 * environment), on the service's own pool (src/db/connect.ts) with postgres.js's `debug` hook,
 * which sees every statement the worker sends: that count is the benchmark's "database round
 * trips" (an upper bound: statements postgres.js pipelines inside one transaction share a trip).
 *
 * Prints {"ready":true} once started; on SIGTERM stops the worker the way `worker` does (in-flight
 * attempts finish) and prints {"statements":n,"transactions":n} before exiting.
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
