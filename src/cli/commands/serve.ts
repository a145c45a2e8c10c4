import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../config.js';
import { coerceError, createServiceLogger } from '../../log.js';
import type { RunningService } from '../../server.js';
import { boundHeapGrowth } from '../../service/heap-growth.js';
import { startTracing } from '../../telemetry/tracing.js';

/**
 * One Ctrl-C can be delivered twice: by the terminal to the whole foreground process group and
 * again by a supervisor that forwards signals to its child (npm does). A repeat this soon is the
 * same request; a later one means "stop waiting" and ends the process at once.
 */
const SAME_SIGNAL_WINDOW_MS = 1_000;
/** Exit code after a forced exit or a failed shutdown. */
const EXIT_FORCED = 1;

export function register(program: Command): void {
  program
    .command('serve')
    .description('run the API (default port 8080, base path /api/v1) and the webhook worker')
    .option('--port <n>', 'port to listen on, 0 picks a free one (overrides PORT)', parsePort)
    .option('--metrics-port <n>', 'port of GET /metrics on HOST, 0 turns it off (overrides OFFERDESK_METRICS_PORT, default 9464)', parsePort)
    .option('--no-worker', 'do not run the webhook worker in this process')
    .option('--json', 'print the start information as one JSON object')
    .action(async (options: ServeOptions) => {
      await serve(options);
    });
}

interface ServeOptions {
  port?: number;
  metricsPort?: number;
  worker: boolean;
  json?: boolean;
}

export function parsePort(raw: string): number {
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return Number(raw);
}

async function serve(options: ServeOptions): Promise<void> {
  boundHeapGrowth();
  const config = loadConfig();
  // Before the logger, the pool and the app, which pick tracing up when it is on.
  const tracing = await startTracing(config.tracing);
  const logger = createServiceLogger(config);

  // Signals are handled from the very start: a SIGTERM during initdb or migrations must still stop
  // the embedded PostgreSQL, which runs in its own process group and would otherwise outlive us.
  let startup: Promise<RunningService> | undefined;
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_WINDOW_MS) return;
      logger.warn({ signal }, 'second signal: exiting without finishing the shutdown');
      process.exit(EXIT_FORCED);
    }
    firstSignalAt = Date.now();
    logger.info({ signal }, 'shutdown requested');
    void (async () => {
      try {
        const service = await startup!;
        await service.stop();
        const lost = await tracing.shutdown();
        if (lost) logger.warn({ reason: lost }, 'traces not exported at shutdown');
      } catch (error) {
        logger.error({ err: coerceError(error) }, 'shutdown failed');
        process.exit(EXIT_FORCED);
      }
      process.exit(0);
    })();
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, onSignal);

  // The server (express, openapi-backend, the console) is loaded only by the command that runs it:
  // every other command starts without paying for it.
  const { runService } = await import('../../server.js');
  startup = runService({
    config,
    port: options.port,
    metricsPort: options.metricsPort,
    worker: options.worker,
    logger,
    print: options.json ? () => {} : undefined,
  });
  let service: RunningService;
  try {
    service = await startup;
  } catch (error) {
    if (firstSignalAt !== undefined) process.exit(EXIT_FORCED);
    throw error;
  }
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        base_url: service.baseUrl,
        port: service.port,
        demo_api_key: service.demoApiKey ?? null,
        console_url: service.consoleUrl,
        demo_sign_in_url: service.demoSignInUrl ?? null,
      })}\n`,
    );
  }
  // The action returns; the open server keeps the process alive until a signal ends it.
}
