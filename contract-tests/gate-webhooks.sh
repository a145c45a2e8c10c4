#!/usr/bin/env bash
# Gate 5: webhooks against the contract.
#
# The webhook engineers' tests already prove exactly what this gate needs, so it runs them rather
# than duplicating them:
#   test/webhooks/engine/end-to-end.test.ts: for every webhook event type (offer.sent,
#     offer.first_viewed, offer.signed, offer.accepted, offer.withdrawn, offer.expired, ping) a
#     real delivery made by the project's webhook engine and HTTPS sender is received by a real
#     HTTPS receiver; its body validates against that event's schema in the `webhooks` section of
#     openapi.yaml (Ajv, draft 2020-12), its headers are exactly SPEC.md's, and its signature
#     verifies with the reference `standardwebhooks` library.
#   test/webhooks/transport/signing.test.ts: our signer reproduces the official Standard
#     Webhooks test vector.
#   test/contract/signature-vector.test.ts: the test vector openapi.yaml publishes in its
#     `Webhooks` tag is reproduced and verified by `standardwebhooks` and by our signer.
# Then the planted defect: with the test-only fault OFFERDESK_FAULT=drop-offer-title the same
# end-to-end test must FAIL because the bodies lack the required `title`.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p contract-tests/reports

npx --no-install vitest run test/webhooks/engine/end-to-end.test.ts test/webhooks/transport/signing.test.ts \
  test/contract/signature-vector.test.ts

echo "-- planted defect: webhook bodies without the required title must fail the gate"
output=contract-tests/reports/webhooks-planted-defect.txt
if OFFERDESK_FAULT=drop-offer-title npx --no-install vitest run test/webhooks/engine/end-to-end.test.ts > "$output" 2>&1; then
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
