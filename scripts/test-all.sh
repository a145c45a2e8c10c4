#!/usr/bin/env bash
# `npm test`: every test of the project, in order, stopping at the first failing step.
# Without DATABASE_URL the tests start an embedded PostgreSQL in a temporary directory; with it,
# they create and drop their own databases on that server (it must allow CREATE DATABASE).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/side-by-side.sh

started_all=$SECONDS
step() {
  local title=$1
  shift
  local started=$SECONDS
  printf '\n\033[1m#### %s\033[0m\n' "$title"
  if ! "$@"; then
    printf '\n\033[1;31mFAILED: %s (after %ss)\033[0m\n' "$title" "$((SECONDS - started))"
    exit 1
  fi
  printf '\033[32mok: %s (%ss)\033[0m\n' "$title" "$((SECONDS - started))"
}

# The vitest runs append their counts here (test/support/count-reporter.ts); a caller that runs
# more of them (.ci/run) names the file and prints the closing line itself, else it is ours.
own_counts=""
if [ -z "${OFFERDESK_TEST_COUNTS:-}" ]; then
  own_counts=$(mktemp) && export OFFERDESK_TEST_COUNTS=$own_counts
fi

if [ -n "${DATABASE_URL:-}" ]; then
  echo "database: the server of DATABASE_URL"
else
  echo "database: embedded PostgreSQL (temporary directory)"
fi

# The contract gates (docs/contract.md: spec lint and drift, Schemathesis, webhooks against the
# contract, generated clients, planted regressions) run beside the vitest suite: the suite mostly
# waits on its processes and sockets, the gates on their fuzzers, and one after the other they took
# twice as long. Their output is printed whole after the suite's.
gates_log=$(mktemp)
# A session of its own, so that a failing suite stops the gates with their servers and fuzzers;
# niced, because the suite is the longer of the two: the gates take the CPU it leaves while it
# waits (the fuzzers' time budgets bound their share, their request timeouts stay far away).
# Not counted in the closing line: a gate runs a vitest test with a planted defect that must fail.
env -u OFFERDESK_TEST_COUNTS setsid nice -n 10 bash contract-tests/run.sh > "$gates_log" 2>&1 &
gates_pid=$!
trap 'kill -- "-$gates_pid" 2>/dev/null || true; rm -f "$gates_log" ${own_counts:+"$own_counts"}' EXIT
gates() {
  local rc=0
  wait "$gates_pid" || rc=$?
  cat "$gates_log"
  return "$rc"
}

# Typecheck and layers side by side (each is one process on one core; one after the other they
# were a minute on the 2-core CI machine), and the gates already running beside them: with the
# suite shorter, the gates' fixed fuzzing budgets are close to its length, so they start first.
checks() {
  local typecheck_log layers_log rc=0
  typecheck_log=$(mktemp)
  layers_log=$(mktemp)
  side_by_side \
    "Typecheck (tsc)" "$typecheck_log" "npm run --silent typecheck" \
    "Layers (dependency-cruiser: no import up a layer or in a circle)" "$layers_log" "npm run --silent check:layers" || rc=$?
  rm -f "$typecheck_log" "$layers_log"
  return "$rc"
}

step "Typecheck (tsc) and layers (dependency-cruiser), side by side" checks

step "Unit, integration and runtime tests (vitest)" npx vitest run
step "Contract gates (contract-tests/run.sh, run beside the suite)" gates

printf '\n\033[1;32mAll tests passed (%ss).\033[0m\n' "$((SECONDS - started_all))"
[ -z "$own_counts" ] || bash scripts/ci/test-counts.sh "$own_counts"
