#!/usr/bin/env bash
# Gate: generated clients. What integrators do with the served document, with their tools:
#   1. Spectral (`spectral:oas`, contract-tests/spectral.yaml) finds nothing, of any severity.
#   2. @hey-api/openapi-ts and orval (both fetch clients) generate a TypeScript client from it.
#   3. Each client and its walker type-check with `strict` (contract-tests/clients/tsconfig.json).
#   4. With each client (contract-tests/clients/walk-*.ts): every page of /offers, without and with
#      each `status`, following the next-page link as a generic client does; one offer and every
#      page of its timeline; each generated method answers 2xx at least once (none can only fail).
# Against the real server (with-server.ts) on a fresh database seeded with CONTRACT_SEED_OFFERS
# offers (600).
#
#   bash contract-tests/gate-clients.sh                  # the whole gate
#   bash contract-tests/gate-clients.sh --attached       # inside with-server.ts (CONTRACT_* set)
#   bash contract-tests/gate-clients.sh --document FILE  # steps 1-3 only, on FILE (no server;
#                                                        # gate-planted-regressions.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

out=contract-tests/clients/generated
document="$PWD/$out/openapi.json"

# Steps 1-3 on $document.
lint_generate_typecheck() {
  export CONTRACT_CLIENTS_DOCUMENT="$document" CONTRACT_CLIENTS_OUT="$PWD/$out"
  echo "-- Spectral (spectral:oas) on the served document: zero findings"
  npx --no-install spectral lint "$document" --ruleset contract-tests/spectral.yaml --fail-severity hint --format text

  echo "-- generate: @hey-api/openapi-ts (fetch client)"
  npx --no-install openapi-ts -i "$document" -o "$out/hey-api" -c @hey-api/client-fetch > "$out/hey-api.log" 2>&1 \
    || { cat "$out/hey-api.log"; return 1; }
  echo "-- generate: orval (fetch client)"
  npx --no-install orval --config contract-tests/clients/orval.config.cjs > "$out/orval.log" 2>&1 || { cat "$out/orval.log"; return 1; }

  echo "-- type-check both clients and their walkers (strict)"
  npx --no-install tsc -p contract-tests/clients/tsconfig.json
}

fresh_output() {
  rm -rf "$out"
  mkdir -p "$out"
}

if [ "${1:-}" = "--document" ]; then
  fresh_output
  cp "${2:?--document needs a file}" "$document"
  lint_generate_typecheck
  exit
fi

if [ "${1:-}" != "--attached" ]; then
  CONTRACT_SEED_OFFERS="${CONTRACT_SEED_OFFERS:-600}" \
    exec npx --no-install tsx contract-tests/lib/with-server.ts bash contract-tests/gate-clients.sh --attached
fi

: "${CONTRACT_BASE_URL:?run through contract-tests/lib/with-server.ts}" "${CONTRACT_API_KEY:?}" "${CONTRACT_SEED_OFFERS:?}"
fresh_output
curl -fsS "$CONTRACT_BASE_URL/openapi.json" -o "$document"
lint_generate_typecheck

echo "-- walk with each client against $CONTRACT_BASE_URL ($CONTRACT_SEED_OFFERS offers)"
npx --no-install tsx contract-tests/clients/walk-hey-api.ts
npx --no-install tsx contract-tests/clients/walk-orval.ts
