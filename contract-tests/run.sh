#!/usr/bin/env bash
# The contract gates, in sequence (the two fuzzing runs side by side: each only waits on a server
# of its own); stops at the first that fails. Part of `npm test` (scripts/test-all.sh), beside the
# vitest suite. A gate checks what only it can check: the suites
# it relies on (the HTTP suites behind Prism, the webhook end-to-end test, the routing and shape
# tests) run once, in that suite. docs/contract.md says what each gate proves and how to run one alone.
#
# Database: DATABASE_URL (the gates create and drop their own databases on that server), or,
# without it, the embedded PostgreSQL in temporary directories. Reports: contract-tests/reports/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/side-by-side.sh
mkdir -p contract-tests/reports

started_all=$SECONDS
gate() {
  local title=$1
  shift
  local started=$SECONDS
  printf '\n\033[1m---- contract gate: %s ----\033[0m\n' "$title"
  if ! "$@"; then
    printf '\n\033[1;31mCONTRACT GATE FAILED: %s (after %ss)\033[0m\n' "$title" "$((SECONDS - started))"
    exit 1
  fi
  printf '\033[32mcontract gate passed: %s (%ss)\033[0m\n' "$title" "$((SECONDS - started))"
}

gate "setup: build for offerdesk serve, Schemathesis venv" \
  bash -c 'node scripts/build-if-stale.mjs && bash contract-tests/install-schemathesis.sh'
gate "spec lint and drift (Redocly, generated/, operationIds, breaking changes)" bash contract-tests/gate-spec.sh
# Both fuzzing gates at once, each on a server and database of its own; each one's output is
# printed whole when both are done.
fuzz_side_by_side() {
  side_by_side \
    "the public API" contract-tests/reports/gate-schemathesis.log "bash contract-tests/gate-schemathesis.sh" \
    "the console API with a signed-in session" contract-tests/reports/gate-console-schemathesis.log "bash contract-tests/gate-console-schemathesis.sh"
}
gate "Schemathesis fuzzing of the running server and of its console API with a signed-in session" fuzz_side_by_side
gate "planted defect: the Schemathesis gate fails on a broken server" bash contract-tests/gate-planted-defect.sh
gate "webhooks against the contract (real HTTPS deliveries, Ajv 2020, standardwebhooks)" bash contract-tests/gate-webhooks.sh
gate "generated clients (Spectral, @hey-api/openapi-ts and orval walking 600 offers)" bash contract-tests/gate-clients.sh
gate "planted regressions: a fake 405 operation, a \$ref into properties, an integer without format" bash contract-tests/gate-planted-regressions.sh

printf '\n\033[1;32mAll contract gates passed (%ss).\033[0m\n' "$((SECONDS - started_all))"
