import type { Command } from 'commander';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/open.js';
import { createServiceLogger } from '../../log.js';
import type { RunningMetrics } from '../../service/metrics.js';
import { parsePort } from './serve.js';
import { startTracing } from '../../telemetry/tracing.js';
import type { RunningWorker } from '../../host/worker.js';

/**
 * `offerdesk worker`: the background jobs (expire offers, fan-out, webhook delivery, log
 * retention) until SIGTERM or SIGINT, which stop claiming, let attempts in flight finish and
 * record their outcome, then exit. Any number may run against one database.
 */
export function register(program: Command): void {
  program
    .command('worker')
    .description('run the background jobs and webhook delivery until SIGTERM')
    .option('--metrics-port <n>', 'port of GET /metrics on HOST, 0 turns it off (overrides OFFERDESK_METRICS_PORT, default 9464)', parsePort)
    .action(async (options: { metricsPort?: number }) => {
      const config = loadConfig();
      // The engine and the metrics are loaded only by the command that runs them: every other
      // command starts without paying for them (serve does the same).
      const [{ serveMetrics }, { startWorker }] = await Promise.all([
        import('../../service/metrics.js'),
        import('../../host/worker.js'),
      ]);
      // Before the logger and the pool, which pick tracing up when it is on.
      const tracing = await startTracing(config.tracing);
      const logger = createServiceLogger(config, 'offerdesk-worker');
      const db = await openDatabase(config, { applicationName: 'offerdesk-worker', log: (line) => logger.info(line) });
      if (config.mail.mode === 'off') {
        logger.warn('mail is off (no SMTP_URL): sign-in links, invitations and endpoint notices wait in the outbox until SMTP_URL is set');
      }
      let worker: RunningWorker;
      let metrics: RunningMetrics;
      try {
        // Refuses (one line, exit 2) when the metrics port is taken or the master keys cannot open the stored secrets.
        metrics = await serveMetrics({ config, sql: db.sql, logger, port: options.metricsPort });
        try {
          worker = await startWorker({ sql: db.sql, databaseUrl: db.url, config, clock: systemClock, logger });
        } catch (error) {
          await metrics.close();
          throw error;
        }
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
      await metrics.close();
      await db.close();
      const lost = await tracing.shutdown();
      if (lost) logger.warn({ reason: lost }, 'traces not exported at shutdown');
    });
}
