import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import type { Server } from 'node:http';
import { createApp } from '../../src/service/app.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createHttpServer } from '../../src/http-server.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { TxtResolver } from '../../src/domain/offer-domain.js';
import type { RateLimits } from '../../src/api/admission/rate-limits.js';
import type { WorkerProgress } from '../../src/host/worker.js';
import { freshDatabase, type TestDatabase } from './database.js';
import { startTitleDroppingProxy } from './planted-defect.js';
import { CONSOLE_API, PUBLIC_API, startPrismFront } from './prism-proxy.js';

export interface TestApi {
  db: TestDatabase;
  clock: ManualClock;
  config: Config;
  /** http://127.0.0.1:PORT/api/v1 */
  baseUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The service's own address, also when `origin` is a Prism front (which rewrites `Host`). */
  serverOrigin: string;
  close(): Promise<void>;
}

/**
 * The real service on a real socket over a fresh database, with a manual clock. Rate limits
 * default to those of openapi.yaml "Limits" unless a test lowers them through the same settings an operator uses.
 */
export async function startTestApi(
  options: {
    env?: Record<string, string>;
    db?: TestDatabase;
    clock?: ManualClock;
    limits?: RateLimits;
    /** The in-process webhook worker /readyz reports on. */
    worker?: () => WorkerProgress | undefined;
    /** The service's logger; tests that read the log lines pass one writing to their own stream. */
    logger?: Logger;
    /** Answers to the offer domain's DNS TXT lookups. */
    txtResolver?: TxtResolver;
    /**
     * Plants the defect drop-offer-title between the server and the front (test/support/planted-defect.ts):
     * the offers answered lose their required title, for a check to be seen failing on.
     */
    plantDefect?: boolean;
    /** The origin of a SharedPrism for the front to use; by default the project's (prism-setup.ts), if any. */
    sharedPrism?: string;
  } = {},
): Promise<TestApi> {
  const db = options.db ?? (await freshDatabase());
  const clock = options.clock ?? new ManualClock('2026-03-01T12:00:00.000Z');
  const config = loadConfig({ ...options.env });
  const logger = options.logger ?? createLogger('silent');
  const { app, classes, close } = await createApp({
    sql: db.sql,
    config,
    clock,
    logger,
    limits: options.limits,
    worker: options.worker,
    txtResolver: options.txtResolver,
  });
  // The HTTP server `serve` runs (src/server.ts): its limits, and its requests made as the app's classes.
  const server: Server = createHttpServer(app, config.http, classes);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const planted = options.plantDefect ? await startTitleDroppingProxy(`http://127.0.0.1:${port}`) : undefined;
  const upstream = planted?.origin ?? `http://127.0.0.1:${port}`;
  // OFFERDESK_TEST_PROXY=prism (contract-tests/gate-prism.sh): the same suite, every answer
  // validated against openapi.yaml by Prism on its way back (test/support/prism-proxy.ts).
  // OFFERDESK_TEST_PROXY=prism-console: the same for console-api.yaml in front of /console/api.
  const proxy = process.env.OFFERDESK_TEST_PROXY;
  // The project's shared Prism when its global setup started one (test/support/prism-setup.ts).
  const contract = proxy === 'prism-console' ? CONSOLE_API : PUBLIC_API;
  const prism =
    proxy === 'prism' || proxy === 'prism-console'
      ? await startPrismFront(upstream, contract, options.sharedPrism ?? inject('sharedPrism')?.[contract.document])
      : undefined;
  const origin = prism?.origin ?? upstream;
  return {
    db,
    clock,
    config,
    origin,
    serverOrigin: `http://127.0.0.1:${port}`,
    baseUrl: `${origin}/api/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await planted?.close();
      await close();
      if (!options.db) await db.drop();
      await prism?.close(); // throws when Prism saw any contract violation
    },
  };
}
