import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { openSecret } from '../../../src/sealing/secrets.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { createWebhookSender } from '../../../src/webhooks/transport/sender.js';

/**
 * The webhook baseline (docs/performance.md): the throughput run's deliveries sent again through the project's own
 * sender at the worker's concurrency, everything read before the clock starts. Args: <deliveries> <concurrency>.
 */
const [limit, concurrency] = process.argv.slice(2).map(Number) as [number, number];
const config = loadConfig();
if (!config.databaseUrl) throw new Error('baseline-sender needs DATABASE_URL');
const logger = createLogger('warn', 'offerdesk-bench-baseline-sender');
const masterKeys = loadMasterKeys(config, logger);

const sql = connect(config.databaseUrl, { max: 1, applicationName: 'offerdesk-bench-baseline-sender' });
const rows = await sql<{ message_id: string; endpoint_id: string; url: string; secret_sealed: Buffer; body: string }[]>`
  select d.message_id, d.endpoint_id, e.url, e.secret_sealed, m.body
    from webhook_deliveries d
    join webhook_messages m on m.id = d.message_id and m.created_at = d.created_at
    join webhook_endpoints e on e.id = d.endpoint_id
   where e.removed_at is null and e.url not like '%/fail/%'
   order by d.created_at, d.id
   limit ${limit}`;
await sql.end();
const jobs = rows.map((row) => ({ url: row.url, secret: openSecret(masterKeys, row.endpoint_id, row.secret_sealed), messageId: row.message_id, body: row.body }));

const sender = createWebhookSender({ config: config.webhooks, logger });
let next = 0;
let ok = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const outcome = await sender.send({ ...jobs[next++]!, attemptAt: new Date(), customOfferDomains: [] });
      if (outcome.ok) ok++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
await sender.close();
process.stdout.write(`${JSON.stringify({ sent: jobs.length, ok, seconds, perSecond: jobs.length / seconds })}\n`);
process.exit(0);
