import type { Command } from 'commander';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/open.js';
import { createServiceLogger } from '../../log.js';
import { startTracing } from '../../telemetry/tracing.js';
import { startWorker, type RunningWorker } from '../../webhooks/engine/worker.js';

/**
 * `offerdesk worker`: the background jobs (expire offers, fan-out, webhook delivery, log
 * retention) until SIGTERM or SIGINT, which stop claiming, let attempts in flight finish and
 * record their outcome, then exit. Any number may run against one database.
 */
export function register(program: Command): void {
  program
    .command('worker')
    .description('run the background jobs and webhook delivery until SIGTERM')
    .action(async () => {
      const config = loadConfig();
      // Before the logger and the pool, which pick tracing up when it is on.
      const tracing = await startTracing(config.tracing);
      const logger = createServiceLogger(config, 'offerdesk-worker');
      const db = await openDatabase(config, { applicationName: 'offerdesk-worker', log: (line) => logger.info(line) });
      let worker: RunningWorker;
      try {
        // Refuses (one line, exit 2) when the master keys cannot open the stored secrets.
        worker = await startWorker({ sql: db.sql, databaseUrl: db.url, config, clock: systemClock, logger });
      } catch (error) {
        await db.close();
        await tracing.shutdown();
        throw error;
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          logger.info({ signal }, 'stopping: finishing attempts in flight');
          resolve();
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
      await worker.stop();
      await db.close();
      await tracing.shutdown();
    });
}
