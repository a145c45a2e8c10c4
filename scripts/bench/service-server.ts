import { loadConfig } from '../../src/config.js';
import { runService } from '../../src/server.js';

/**
 * The service as `offerdesk serve --no-worker` runs it (runService without the worker), started
 * from source like the baseline so that both run under the same loader. Configuration comes from
 * the environment the orchestrator sets: DATABASE_URL (the bench database), PORT, and the lifted
 * RATE_LIMIT_PER_KEY / RATE_LIMIT_PER_IP (the limiter still runs on every request). Request logs
 * stay on at the configured level: they are part of what the service does per request.
 *
 * SIGTERM stops it the way `serve` does and then exits, which also writes a `--cpu-prof` profile.
 */
const service = await runService({ config: loadConfig(), worker: false, print: () => {} });
process.on('SIGTERM', () => {
  void service.stop().finally(() => process.exit(0));
});
