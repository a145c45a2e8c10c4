// Mutation testing of the rule modules (`npm run mutate`; docs/testing.md, "Mutation testing").
// Not part of `npm test` or CI: a full run takes most of an hour on a 2-core machine.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker.vitest.config.ts' },
  // Each mutant runs only the tests that reached it in the first, unmutated run.
  coverageAnalysis: 'perTest',
  concurrency: 2,
  mutate: [
    'src/api/admission/authorization.ts',
    'src/api/admission/fixed-windows.ts',
    'src/api/cursor.ts',
    'src/http/sealed-cursor.ts',
    'src/mail/policy.ts',
    'src/webhooks/engine/health.ts',
    'src/webhooks/engine/outcome.ts',
    // Its functions; the numbers above them are the contract's constants, which the boundary tests
    // of the rules that use them meet.
    'src/webhooks/engine/policy.ts:57-82',
    'src/webhooks/transport/address-rules.ts',
    'src/webhooks/transport/ranges.ts',
  ],
  // The sandbox is a copy of the repository; what no test reads stays out of it.
  ignorePatterns: ['dist', 'data', 'bench', 'web', 'reports', 'contract-tests/.venv', 'contract-tests/reports', '.cache'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  // Tests that wait on PostgreSQL and sockets on a loaded machine: a mutant is a timeout only
  // well past the unmutated run's time.
  timeoutMS: 20_000,
};
