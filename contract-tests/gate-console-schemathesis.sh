#!/usr/bin/env bash
# Gate: Schemathesis fuzzes the console API (console-api.yaml) of the running server with a
# signed-in session of the fixture workspace's owner.
#
#   bash contract-tests/gate-console-schemathesis.sh            # the whole gate (a fresh, seeded server)
#   bash contract-tests/gate-console-schemathesis.sh --attached # inside with-server.ts (CONTRACT_* set)
#
# Every check (contract-tests/schemathesis-console.toml, which says where and why a check is
# narrowed), the examples, coverage and fuzzing phases, deterministic generation, bounded by
# --max-examples and a time budget (CONTRACT_FUZZ_SECONDS, default 120). The session cookie and
# the server's own Origin go with every request (the console refuses state-changing requests from
# elsewhere); the hooks put the fixture's workspace into {workspaceId}. Exit 0 only with zero failures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--attached" ]; then
  bash contract-tests/install-schemathesis.sh
  exec npx --no-install tsx contract-tests/lib/with-server.ts bash contract-tests/gate-console-schemathesis.sh --attached
fi

: "${CONTRACT_BASE_URL:?run through contract-tests/lib/with-server.ts}" "${CONTRACT_WORKSPACE_ID:?}"
mkdir -p contract-tests/reports
origin="${CONTRACT_BASE_URL%/api/v1}"
# The session goes in as the document's own security scheme (schemathesis-console.toml [auth]), so
# Schemathesis also knows to leave it out when it checks that an operation refuses no session.
CONTRACT_CONSOLE_SESSION="$(npx --no-install tsx contract-tests/lib/console-session.ts)"
export CONTRACT_CONSOLE_SESSION
exec bash contract-tests/lib/schemathesis.sh --config-file contract-tests/schemathesis-console.toml --no-color \
  run "$origin/console/api/openapi.json" \
  --url "$origin/console/api" \
  --header "Origin: $origin" \
  --phases examples,coverage,fuzzing \
  --generation-deterministic \
  --seed 20260301 \
  --max-examples "${CONTRACT_FUZZ_EXAMPLES:-50}" \
  --max-time "${CONTRACT_FUZZ_SECONDS:-120}" \
  --request-timeout 10 \
  --report junit --report-junit-path contract-tests/reports/schemathesis-console-junit.xml
