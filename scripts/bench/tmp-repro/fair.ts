import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import { loadMasterKeys } from '../../../src/webhooks/transport/secrets.js';
import { testCertificates } from '../../../test/support/https-receiver.js';
import { startReceiver, startWorkers, waitForFirstAttempts, sleep } from '../webhooks/harness.js';
import { clearDeliveries, clearEndpoints, commitEvents, ensureWebhookWorkspaces, seedOpenDeliveries } from '../webhooks/setup.js';
import { startAutoanalyzeStandIn } from '../autoanalyze.js';

const url = process.env.BENCH_URL!;
const sql = postgres(url, { max: 4, onnotice: () => {} }) as unknown as Sql;
const log = (l: string) => console.log(l);
const workDir = mkdtempSync(join(tmpdir(), 'fair-'));
const setup = await ensureWebhookWorkspaces(sql, 200, log);
const certs = await testCertificates();
writeFileSync(join(workDir, 'c.pem'), certs.certPem);
writeFileSync(join(workDir, 'k.pem'), certs.keyPem);
const { receiver, port } = await startReceiver(workDir, join(workDir, 'c.pem'), join(workDir, 'k.pem'));
const env = {
  DATABASE_URL: url,
  OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
  OFFERDESK_WEBHOOK_DEV_RESOLVE: `hooks.test=127.0.0.1:${port}`,
  NODE_EXTRA_CA_CERTS: certs.caFile,
  WEBHOOK_STARTS_PER_MINUTE: '1000000',
  WEBHOOK_WORKER_CONCURRENCY: '64',
  REDIS_URL: '',
};
const config = loadConfig({ ...process.env, ...env });
const management = { sql, clock: systemClock, config: config.webhooks, masterKey: loadMasterKeys(config, createLogger('warn')).current };
await clearEndpoints(sql);
for (const [i, ws] of setup.workspaces.entries())
  for (let e = 1; e <= 2; e++)
    await addEndpoint(management, { workspaceId: ws.id, url: `https://hooks.test/ws/${i}/${e}`, events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId });
const warm = Number(process.env.WARM ?? 20000);
if (warm > 0) {
  const fleet = await startWorkers(1, env, workDir);
  await commitEvents(sql, setup.workspaces.map((ws) => ({ workspaceId: ws.id, count: Math.floor(warm / 200) })));
  await sleep(6000);
  await sql`analyze webhook_outbox, webhook_messages, webhook_deliveries, webhook_attempts, webhook_workspace_state`;
  await waitForFirstAttempts(sql, receiver, log);
  await fleet.stop();
}
const stopAnalyze = startAutoanalyzeStandIn(sql, 'off', log);
for (let round = 0; round < Number(process.env.ROUNDS ?? 5); round++) {
  if (process.env.BACKLOG) {
    await clearDeliveries(sql);
    await seedOpenDeliveries(sql, setup.workspaces.map((w) => w.id), Number(process.env.BACKLOG));
    const f = await startWorkers(1, env, workDir);
    await sleep(3000);
    await f.stop();
  }
  await clearDeliveries(sql);
  await receiver.reset();
  await sleep(Math.random() * 6000);
  const fleet = await startWorkers(1, env, workDir);
  const t0 = Date.now();
  await commitEvents(sql, [{ workspaceId: setup.workspaces[0]!.id, count: Number(process.env.BIG ?? 50000) }]);
  await commitEvents(sql, setup.workspaces.slice(1).map((ws) => ({ workspaceId: ws.id, count: 10 })));
  const watch = setInterval(async () => {
    const rows = await sql`select now() - query_start as age, wait_event_type, wait_event, left(query, 60) as q from pg_stat_activity where state = 'active' and application_name like 'offerdesk%' and now() - query_start > interval '1 s'`;
    for (const r of rows) console.log('LONG', r.age, r.wait_event_type, r.wait_event, r.q);
  }, 2000);
  await waitForFirstAttempts(sql, receiver, log, setup.workspaces.slice(1).map((w) => w.id));
  console.log('round', round, 'fairness done in', Date.now() - t0, 'ms');
  clearInterval(watch);
  await fleet.stop();
}
await stopAnalyze();
await receiver.proc.stop();
await sql.end();
