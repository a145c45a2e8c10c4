// Mutation testing of the rule modules (`npm run mutate`; docs/testing.md, "Mutation testing").
// Not part of `npm test` or CI: each mutant reruns the tests that reach it, minutes in all.
// The mutants that survive, and why each that remains is equivalent: docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker.vitest.config.ts' },
  // Each mutant runs only the tests that reached it in the first, unmutated run.
  coverageAnalysis: 'perTest',
  // Mutants of what a module computes once when it is loaded (its tables and constants: the
  // policy numbers, the refused ranges, the internal name suffixes) are left out: each would rerun
  // every test, and a broken table entry fails the tests of the rule that reads it. So
  // policy.ts is mutated in its functions only, and the tables by the code that reads them.
  ignoreStatic: true,
  concurrency: 2,
  mutate: [
    'src/api/admission/authorization.ts',
    'src/api/admission/fixed-windows.ts',
    // The API's cursor shapes live with their lists (offersCursor, timelineCursor).
    'src/api/resources/offer-events.ts',
    'src/api/resources/offers.ts',
    'src/http/cursor.ts',
    'src/mail/policy.ts',
    'src/webhooks/engine/health.ts',
    'src/webhooks/engine/outcome.ts',
    'src/webhooks/engine/policy.ts',
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
