#!/usr/bin/env bash
# Schemathesis from contract-tests/.venv with the given arguments, exiting with its status. Its
# pytest-style section rules ("===== 1 warning in 120.50s =====") become "-- ... --": the reader of
# CI's log knows pytest's closing line too, and would take that one for the summary of a run with
# no test in it. The log's closing line is the test count of .ci/run (scripts/ci/test-counts.sh);
# Schemathesis' own count ("5947 generated, 5947 passed, 8 skipped") stays as it is, above it.
set -o pipefail
cd "$(dirname "$0")/../.."
contract-tests/.venv/bin/schemathesis "$@" 2>&1 | sed -u -E 's/^=+ (.*[^ ]) =+$/-- \1 --/'
