#!/usr/bin/env bash
# The closing line of several vitest runs: sums the `passed failed skipped` lines that
# test/support/count-reporter.ts appended to FILE (one per run) into one plain line,
# `N passed, N failed` (`, N skipped` when some were). Fails when no test passed.
set -euo pipefail
awk '
  NF == 3 { runs++; passed += $1; failed += $2; skipped += $3 }
  END {
    line = sprintf("%d passed, %d failed", passed, failed)
    if (skipped > 0) line = line sprintf(", %d skipped", skipped)
    print line
    exit (passed == 0)
  }' "${1:?usage: test-counts.sh FILE}"
