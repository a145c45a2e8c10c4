#!/usr/bin/env bash
# Gate 5: the webhook contract test can fail.
#
# test/webhooks/engine/end-to-end.test.ts (run once, in the vitest suite of `npm test`) proves the
# webhooks keep the contract: for every webhook event type (offer.sent, offer.first_viewed,
# offer.signed, offer.accepted, offer.withdrawn, offer.expired, ping) a real delivery made by the
# project's webhook engine and HTTPS sender is received by a real HTTPS receiver; its body
# validates against that event's schema in the `webhooks` section of openapi.yaml (Ajv, draft
# 2020-12), its headers are exactly those of openapi.yaml "Webhook request", and its signature verifies with the reference
# `standardwebhooks` library. This gate checks what only it can: with the planted defect
# CONTRACT_PLANT=drop-offer-title (test/support/planted-defect.ts: the test's sender drops the
# offer's `title` from each body before it is signed, outside the product) the same test must FAIL
# because the bodies lack the required `title`, while their signatures still verify.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p contract-tests/reports

echo "-- planted defect: webhook bodies without the required title must fail the gate"
output=contract-tests/reports/webhooks-planted-defect.txt
if CONTRACT_PLANT=drop-offer-title npx --no-install vitest run test/webhooks/engine/end-to-end.test.ts > "$output" 2>&1; then
  cat "$output"
  echo "planted defect NOT detected: the webhook end-to-end test passed bodies that lack the required title" >&2
  exit 1
fi
if ! grep -q "must have required property 'title'" "$output"; then
  cat "$output"
  echo "the webhook end-to-end test failed, but not because of the planted defect (missing title)" >&2
  exit 1
fi
echo "planted defect detected as expected: \"must have required property 'title'\" (full output: $output)"
