#!/usr/bin/env bash
# The smoke runs after `npm test` in .ci/run, side by side: the soak's 2 minutes wait on its traffic
# and fault schedule, while the Node 22/24 subset and then the bench smoke use the cores. One after
# the other they took about 310 s of CI's 12 minutes; side by side, about as long as the soak. Each
# uses databases and a Redis of its own (the soak's faults touch only its own), and neither asserts
# a speed. Prints each run's output whole, the soak's first; fails if either fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/side-by-side.sh
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
side_by_side \
  "Soak smoke run (npm run soak -- --minutes 2: every webhook and mail owed arrives under faults)" "$logs/soak" \
  "npm run soak -- --minutes 2" \
  "Smoke subset on Node 22 and 24 (scripts/node-matrix.sh), then the benchmark smoke run (npm run bench:smoke: that it works, not how fast)" "$logs/others" \
  "bash scripts/node-matrix.sh && npm run bench:smoke"
