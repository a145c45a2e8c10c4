#!/usr/bin/env bash
# `npm test`: every test of the project, in order, stopping at the first failing step.
# Without DATABASE_URL the tests start an embedded PostgreSQL in a temporary directory; with it,
# they create and drop their own databases on that server (it must allow CREATE DATABASE).
set -euo pipefail
cd "$(dirname "$0")/.."

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

if [ -n "${DATABASE_URL:-}" ]; then
  echo "database: the server of DATABASE_URL"
else
  echo "database: embedded PostgreSQL (temporary directory)"
fi

step "Typecheck (tsc)" npm run --silent typecheck
step "Layers (dependency-cruiser: no import up a layer or in a circle)" npm run --silent check:layers
step "Unit, integration and runtime tests (vitest)" npx vitest run

# Contract gates (docs/contract.md): spec lint and drift, Schemathesis, Prism, webhooks against the contract.
step "Contract gates (contract-tests/run.sh)" bash contract-tests/run.sh

printf '\n\033[1;32mAll tests passed (%ss).\033[0m\n' "$((SECONDS - started_all))"
