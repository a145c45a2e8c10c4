import { afterAll, beforeAll } from 'vitest';
import type { ManualClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createWebhookEngine, type WebhookEngine } from '../../../src/webhooks/engine/engine.js';
import type { ManagementDeps } from '../../../src/webhooks/management/endpoints.js';
import { createWebhookSender, type WebhookSender } from '../../../src/webhooks/transport/sender.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../../support/https-receiver.js';
import { PLANTED_DEFECT, titleDroppingSender } from '../../support/planted-defect.js';
import { MASTER_KEY } from './helpers.js';

export interface RealDelivery {
  db: TestDatabase;
  receiver: HttpsReceiver;
  sender: WebhookSender;
  engine: WebhookEngine;
  manage: ManagementDeps;
}

/**
 * Real deliveries for a test file: the engine (on `clock`) with the project's HTTPS sender and a
 * real receiver with a run-time test CA, over a fresh database; all closed after the file.
 */
export function useRealDelivery(clock: ManualClock): RealDelivery {
  const h = {} as RealDelivery;

  beforeAll(async () => {
    h.db = await freshDatabase();
    h.receiver = await startHttpsReceiver();
    const config = loadConfig({ OFFERDESK_MASTER_KEY: MASTER_KEY, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(h.receiver) });
    h.sender = createWebhookSender({ config: config.webhooks, tls: { ca: h.receiver.caPem } });
    const masterKey = Buffer.from(MASTER_KEY, 'base64');
    h.engine = createWebhookEngine({
      sql: h.db.sql,
      clock,
      // contract-tests/gate-webhooks.sh runs this file with CONTRACT_PLANT=drop-offer-title and must
      // see it fail: the bodies then lose their offer's title on the way to the sender, outside
      // the engine (test/support/planted-defect.ts).
      sender: process.env.CONTRACT_PLANT === PLANTED_DEFECT ? titleDroppingSender(h.sender) : h.sender,
      masterKey,
      logger: createLogger('silent'),
      settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
    });
    h.manage = { sql: h.db.sql, clock, config: config.webhooks, masterKey };
  });

  afterAll(async () => {
    await h.sender.close();
    await h.receiver.close();
    await h.db.drop();
  });

  return h;
}
