#!/usr/bin/env bash
# Gate 2: the Schemathesis gate is seen to FAIL on deliberately broken answers.
#
# Schemathesis talks to the server through a proxy that plants the defect
# CONTRACT_PLANT=drop-offer-title (contract-tests/lib/with-server.ts, test/support/planted-defect.ts):
# every offer it is answered lacks its required `title`; the product itself is unchanged. A tiny
# Schemathesis run on GET /offers/{id} must then exit non-zero AND report the missing `title` (a
# failure for another reason does not count).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--attached" ]; then
  bash contract-tests/install-schemathesis.sh
  CONTRACT_PLANT=drop-offer-title \
    exec npx --no-install tsx contract-tests/lib/with-server.ts bash contract-tests/gate-planted-defect.sh --attached
fi

: "${CONTRACT_BASE_URL:?run through contract-tests/lib/with-server.ts}" "${CONTRACT_API_KEY:?}" "${CONTRACT_OFFER_ID:?}"
mkdir -p contract-tests/reports
output=contract-tests/reports/schemathesis-planted-defect.txt
set +e
bash contract-tests/lib/schemathesis.sh --config-file contract-tests/schemathesis/planted-defect.toml --no-color \
  run "$CONTRACT_BASE_URL/openapi.json" \
  --url "$CONTRACT_BASE_URL" \
  --header "Authorization: Bearer $CONTRACT_API_KEY" \
  --include-operation-id getOffer \
  --phases examples,fuzzing \
  --generation-deterministic \
  --max-examples 5 \
  --report junit --report-junit-path contract-tests/reports/schemathesis-planted-defect-junit.xml \
  > "$output" 2>&1
status=$?
set -e

if [ "$status" -eq 0 ]; then
  cat "$output"
  echo "planted defect NOT detected: Schemathesis passed a server whose offers lack the required title" >&2
  exit 1
fi
if ! grep -qF '"title" is a required property' "$output"; then
  cat "$output"
  echo "Schemathesis failed (exit $status), but not because of the planted defect (missing title)" >&2
  exit 1
fi
echo "planted defect detected as expected: Schemathesis exit $status, '\"title\" is a required property' (full output: $output)"
