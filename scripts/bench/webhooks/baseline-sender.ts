import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { openSecret } from '../../../src/sealing/secrets.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { createWebhookSender } from '../../../src/webhooks/transport/sender.js';
import { finish, readyThenGo } from './measured-process.js';
import { sentDeliveries } from './sent-deliveries.js';

/**
 * The webhook baseline (docs/performance.md): the same bodies to the same endpoints through the project's own
 * sender (address check, signing, pinned keep-alive pools, the same headers) at the worker's
 * concurrency, without the database: the deliveries, bodies and secrets are read before the clock
 * starts, and nothing is recorded. Started by runMeasured (measured-process.ts), which samples
 * CPU around the sending; its result is {"sent","ok","seconds","perSecond"}.
 *
 * Arguments: <deliveries to send> <concurrency>. Environment as for the worker.
 */
const [limitArg, concurrencyArg] = process.argv.slice(2);
const limit = Number(limitArg);
const concurrency = Number(concurrencyArg);
const config = loadConfig();
if (!config.databaseUrl) throw new Error('baseline-sender needs DATABASE_URL');
const logger = createLogger('warn', 'offerdesk-bench-baseline-sender');
const masterKeys = loadMasterKeys(config, logger);

const sql = connect(config.databaseUrl, { max: 1, applicationName: 'offerdesk-bench-baseline-sender' });
const rows = await sentDeliveries(sql, limit);
await sql.end();
const secrets = new Map<string, string>();
const jobs = rows.map((row) => {
  let secret = secrets.get(row.url);
  if (!secret) {
    secret = openSecret(masterKeys, row.endpoint_id, row.secret_sealed);
    secrets.set(row.url, secret);
  }
  return { url: row.url, secret, messageId: row.message_id, body: row.body };
});

const sender = createWebhookSender({ config: config.webhooks, logger });
await readyThenGo();
let next = 0;
let ok = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const outcome = await sender.send({ ...job, attemptAt: new Date(), customOfferDomains: [] });
      if (outcome.ok) ok++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
finish({ sent: jobs.length, ok, seconds, perSecond: jobs.length / seconds });
await sender.close();
