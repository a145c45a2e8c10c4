import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts', 'test/support/console-build-setup.ts'],
    pool: 'forks',
    // The suite mostly waits: on PostgreSQL, on the processes it starts, on sockets. vitest's
    // default (one worker per core but one) runs it in one worker on a 2-core machine and leaves
    // a core idle: 692 s there, 499 s with three workers. Capped, so a large machine does not run
    // more test databases and pools at once than one PostgreSQL's 100 connections hold.
    maxWorkers: Math.min(availableParallelism() + 1, 4),
    // The processes tests start (serve, worker) serve no metrics unless a test gives them a port:
    // files run in parallel, and the default port 9464 is one per host.
    env: { OFFERDESK_METRICS_PORT: '0' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
