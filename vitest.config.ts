import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that start real processes (the `offerdesk` command, `serve`, `worker`, the embedded
 * PostgreSQL, Redis paused by a signal, Prometheus) or wait on the wall clock. They are most of the suite's
 * time, so they have a project of their own: `npm run test:quick` leaves them out.
 */
const PROCESS_TESTS = [
  'test/cli/**/*.test.ts',
  'test/runtime/**/*.test.ts',
  'test/console/cli.test.ts',
  'test/webhooks/engine/*process*.test.ts',
  'test/webhooks/engine/cli*.test.ts',
  'test/webhooks/engine/offer-domain.test.ts',
  'test/webhooks/transport/extra-ca.test.ts',
  'test/observability/metrics.test.ts',
  'test/observability/metrics-listener.test.ts',
  'test/observability/dashboard.test.ts',
];
const BROWSER_TESTS = ['test/browser/**/*.test.ts'];
const API_TESTS = ['test/api/**/*.test.ts'];
const CONSOLE_TESTS = ['test/console/**/*.test.ts'];

/**
 * The HTTP suites of the two documents run behind Prism's validation proxy
 * (test/support/prism-proxy.ts), so every answer they receive is also checked against
 * openapi.yaml or console-api.yaml, in the same single run (docs/contract.md, "Prism").
 * OFFERDESK_TEST_PROXY=off runs them straight against the server, for a quicker look.
 */
const proxy = (contract: 'prism' | 'prism-console') => process.env.OFFERDESK_TEST_PROXY ?? contract;
/**
 * One Prism per project, which every file's front shares (a Prism per file would cost seconds of
 * CPU to start, for each of about thirty files). `extends: true` adds it to the global setups above.
 */
const PRISM_SETUP = 'test/support/prism-setup.ts';
/**
 * The in-process projects (unit, api, console) reuse a worker's modules from one file to the next
 * instead of importing src/ afresh for each (seconds of CPU per file of the HTTP suites: the app,
 * openapi-backend, Ajv compiling the documents). Each file still gets its own database, server and
 * Prism front, and closes them in afterAll. The processes and browser projects stay isolated: they
 * start child processes and browsers, and import little of src/ in comparison.
 */
const SHARED_MODULES = { isolate: false } as const;

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts', 'test/support/build-setup.ts'],
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
    // The default reporter, then one plain closing line `N passed, N failed` that CI's log reader
    // counts the tests from (test/support/count-reporter.ts).
    reporters: ['default', './test/support/count-reporter.ts'],
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          ...SHARED_MODULES,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PROCESS_TESTS, ...BROWSER_TESTS, ...API_TESTS, ...CONSOLE_TESTS],
        },
      },
      {
        extends: true,
        test: { name: 'api', ...SHARED_MODULES, include: API_TESTS, env: { OFFERDESK_TEST_PROXY: proxy('prism') }, globalSetup: [PRISM_SETUP] },
      },
      {
        extends: true,
        test: {
          name: 'console',
          ...SHARED_MODULES,
          include: CONSOLE_TESTS,
          exclude: [...configDefaults.exclude, ...PROCESS_TESTS],
          env: { OFFERDESK_TEST_PROXY: proxy('prism-console') },
          globalSetup: [PRISM_SETUP],
        },
      },
      { extends: true, test: { name: 'processes', include: PROCESS_TESTS } },
      {
        extends: true,
        // expect.poll gives up after 1 s by default; a page that fetches its list after a click can
        // take longer than that on a loaded 2-core CI machine (the Playwright waits beside it allow 30 s).
        test: { name: 'browser', include: BROWSER_TESTS, expect: { poll: { timeout: 10_000 } } },
      },
    ],
  },
});
