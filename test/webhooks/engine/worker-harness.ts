import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { projectRoot } from '../../../src/paths.js';
import type { ManagementDeps } from '../../../src/webhooks/management/endpoints.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { offerdeskArgs } from '../../support/offerdesk-command.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../../support/https-receiver.js';
import { until } from '../../support/until.js';
import { MASTER_KEY } from './helpers.js';

export interface WorkerHarness {
  db: TestDatabase;
  receiver: HttpsReceiver;
  manage: ManagementDeps;
  /** A real `offerdesk worker` process on the harness's database, sending to its receiver. */
  startWorkerProcess(): { child: ChildProcess; exited: Promise<{ code: number | null; signal: string | null }> };
  /** Polls what the worker processes do, in 100 ms steps. */
  until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void>;
}

/**
 * The real worker process against a real HTTPS receiver, for the process tests: a fresh database
 * and receiver for the file (beforeAll), and every worker it started killed at the end.
 */
export function useWorkerProcesses(input: { leaseSeconds: number }): WorkerHarness {
  const children = new Set<ChildProcess>();
  const harness = {
    until: (condition, timeoutMs, what) => until(condition, timeoutMs, what, 100),
    startWorkerProcess() {
      const child = spawn(process.execPath, offerdeskArgs('worker'), {
        cwd: projectRoot,
        env: {
          ...process.env,
          DATABASE_URL: harness.db.url,
          OFFERDESK_MASTER_KEY: MASTER_KEY,
          OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(harness.receiver),
          NODE_EXTRA_CA_CERTS: harness.receiver.caFile,
          WEBHOOK_LEASE_SECONDS: String(input.leaseSeconds),
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('exit', (code, signal) => {
          children.delete(child);
          resolve({ code, signal });
        }),
      );
      return { child, exited };
    },
  } as WorkerHarness;

  beforeAll(async () => {
    harness.db = await freshDatabase();
    harness.receiver = await startHttpsReceiver();
    const config = loadConfig({ OFFERDESK_MASTER_KEY: MASTER_KEY, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(harness.receiver) });
    harness.manage = { sql: harness.db.sql, clock: systemClock, config: config.webhooks, masterKey: Buffer.from(MASTER_KEY, 'base64') };
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await harness.receiver.close();
    await harness.db.drop();
  });

  return harness;
}
