#!/usr/bin/env bash
# Gate: the contract gates are seen to FAIL on regressions of the published document, each planted
# in a copy of openapi.yaml (contract-tests/lib/plant.ts); every one must be found, for its reason:
#   fake-405-operation      an operation that can only fail: the generator-shape check of the spec
#                           gate, and Spectral in the generated-clients gate (operation-success-response)
#   ref-into-properties     a $ref into another schema's properties: the generator-shape check, and
#                           the generated-clients gate (orval's client does not compile)
#   integer-without-format  the generator-shape check (no generator fails on it: they guess int32)
#   status-the-code-does-not-follow  a new offer status: in a copy of src/ with generated/
#                           regenerated from the planted document, `tsc` fails (src/contract.ts)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p contract-tests/reports
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# expect_failure <name> <what must appear in the output> <command...>
expect_failure() {
  local name=$1 reason=$2
  shift 2
  local output="contract-tests/reports/planted-$name.txt"
  if "$@" > "$output" 2>&1; then
    cat "$output"
    echo "planted regression NOT detected: $name passed: $*" >&2
    return 1
  fi
  if ! grep -qF -- "$reason" "$output"; then
    cat "$output"
    echo "planted regression $name: the check failed, but not for '$reason': $*" >&2
    return 1
  fi
  echo "detected $name: '$reason' ($output)"
}

for plant in fake-405-operation ref-into-properties integer-without-format status-the-code-does-not-follow; do
  npx --no-install tsx contract-tests/lib/plant.ts "$plant" "$scratch/$plant.json"
done

expect_failure shape-fake-405 "operation-that-can-only-fail: POST /offers" \
  npx --no-install tsx contract-tests/lib/check-shape.ts "$scratch/fake-405-operation.json"
expect_failure shape-ref-into-properties "ref-into-properties: #/components/schemas/SentOfferEvent" \
  npx --no-install tsx contract-tests/lib/check-shape.ts "$scratch/ref-into-properties.json"
expect_failure shape-integer-without-format "integer-without-format: #/components/schemas/Money/properties/amount" \
  npx --no-install tsx contract-tests/lib/check-shape.ts "$scratch/integer-without-format.json"
expect_failure clients-fake-405 "operation-success-response" \
  bash contract-tests/gate-clients.sh --document "$scratch/fake-405-operation.json"
expect_failure clients-ref-into-properties "Cannot find name" \
  bash contract-tests/gate-clients.sh --document "$scratch/ref-into-properties.json"
rm -rf contract-tests/clients/generated

# The code follows the document: regenerate generated/ from the planted document beside a copy of
# src/ and type-check that copy.
code="$scratch/code"
mkdir -p "$code/generated"
cp -r src tsconfig.json package.json "$code/"
cp "$scratch/status-the-code-does-not-follow.json" "$code/openapi.yaml"
ln -s "$PWD/node_modules" "$code/node_modules"
(cd "$code" && npx --no-install openapi-typescript openapi.yaml -o generated/openapi.ts > generate.log 2>&1) || { cat "$code/generate.log"; exit 1; }
expect_failure typecheck-status-the-code-does-not-follow 'missing: "archived"' \
  npx --no-install tsc -p "$code/tsconfig.json" --noEmit
