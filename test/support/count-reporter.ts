import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends every vitest run with one plain line, `N passed, N failed` (`, N skipped` when some were),
 * after the default reporter's summary. The reader of CI's log counts the tests from that line,
 * not from vitest's own summary, and takes a run whose last line counts no test for a run of none.
 *
 * A file that failed before any of its tests failed (an import error, a failing `beforeAll`)
 * counts as one failed test, so the line never reads as all passed when the run did not.
 *
 * With OFFERDESK_TEST_COUNTS naming a file, each run also appends `passed failed skipped` to it:
 * .ci/run and scripts/test-all.sh sum those lines (scripts/ci/test-counts.sh) into the one
 * closing line of several runs.
 */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export function countTests(modules: ReadonlyArray<TestModule>): TestCounts {
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const module of modules) {
    let failedHere = 0;
    for (const test of module.children.allTests()) {
      const { state } = test.result();
      if (state === 'passed') counts.passed++;
      else if (state === 'failed') failedHere++;
      else counts.skipped++;
    }
    if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
    counts.failed += failedHere;
  }
  return counts;
}

export function countLine({ passed, failed, skipped }: TestCounts): string {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = countTests(modules);
    const file = process.env.OFFERDESK_TEST_COUNTS;
    if (file) appendFileSync(file, `${counts.passed} ${counts.failed} ${counts.skipped}\n`);
    process.stdout.write(`\n${countLine(counts)}\n`);
  }
}
