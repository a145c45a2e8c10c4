import { defineConfig } from 'vitest/config';

/**
 * The vitest configuration `npm run mutate` runs (stryker.config.mjs): only the in-process test
 * files that reach the rule modules it mutates, so each mutant reruns seconds of tests, not the
 * suite. docs/testing.md, "Mutation testing", lists what these files cover.
 */
export default defineConfig({
  test: {
    // The migrated template database every file clones; dist/ is not needed, nothing here starts
    // the built `offerdesk` command.
    globalSetup: ['test/support/global-setup.ts'],
    include: [
      // The boundary tables written against the contract's numbers, and health.ts's transition
      // table. The worker tests that also reach these modules (test/mail/endpoint-notices.test.ts,
      // test/webhooks/engine/) run a worker for seconds per test, and each surviving mutant reruns
      // every test that reached it.
      'test/**/*-boundaries.test.ts',
      'test/webhooks/engine/health.test.ts',
      // The tables and HTTP tests the modules had before.
      'test/api/authentication.test.ts',
      'test/api/cursor-scope.test.ts',
      // The list and timeline handlers, whose cursors declare what they carry (src/api/resources/).
      'test/api/offers.test.ts',
      'test/api/query-parameters.test.ts',
      'test/api/pagination.test.ts',
      'test/api/fixed-windows.test.ts',
      'test/webhooks/transport/address-rules.test.ts',
    ],
    // Straight against the server: Prism's validation proxy checks the contract in `npm test`,
    // and here it would only add a process and its seconds to every mutant's run.
    env: { OFFERDESK_TEST_PROXY: 'off', OFFERDESK_METRICS_PORT: '0' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
