#!/usr/bin/env bash
# Gate 1: Schemathesis fuzzes the running server against the document it serves.
#
#   bash contract-tests/gate-schemathesis.sh            # the whole gate (a fresh, seeded server)
#   bash contract-tests/gate-schemathesis.sh --attached # inside with-server.ts (CONTRACT_* set)
#
# Every check (contract-tests/schemathesis.toml), the examples, coverage, fuzzing and stateful
# (openapi.yaml has links) phases, deterministic generation (which implies no example database;
# Schemathesis refuses --generation-database with it, and the crash cache is off in the config;
# --seed is recorded, though deterministic generation does not need it), bounded by
# --max-examples per operation and round and a time budget (CONTRACT_FUZZ_SECONDS, default 120)
# that fuzzing and stateful rounds fill. JUnit report in contract-tests/reports/. Exit 0 only
# with zero failures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--attached" ]; then
  bash contract-tests/install-schemathesis.sh
  exec npx --no-install tsx contract-tests/lib/with-server.ts bash contract-tests/gate-schemathesis.sh --attached
fi

: "${CONTRACT_BASE_URL:?run through contract-tests/lib/with-server.ts}" "${CONTRACT_API_KEY:?}"
mkdir -p contract-tests/reports
# Schemathesis loads the SERVED document (what integrators download); first prove it is openapi.yaml.
npx --no-install tsx contract-tests/lib/served-document.ts
exec bash contract-tests/lib/schemathesis.sh --config-file contract-tests/schemathesis.toml --no-color \
  run "$CONTRACT_BASE_URL/openapi.json" \
  --url "$CONTRACT_BASE_URL" \
  --header "Authorization: Bearer $CONTRACT_API_KEY" \
  --phases examples,coverage,fuzzing,stateful \
  --generation-deterministic \
  --seed 20260301 \
  --max-examples "${CONTRACT_FUZZ_EXAMPLES:-100}" \
  --max-time "${CONTRACT_FUZZ_SECONDS:-120}" \
  --request-timeout 10 \
  --report junit --report-junit-path contract-tests/reports/schemathesis-junit.xml
