#!/usr/bin/env bash
# Gate 3: the HTTP integration suites (test/api/**, and test/console/** against console-api.yaml)
# run once more with Prism's validation proxy
# (`prism proxy openapi.yaml <server> --errors`) in front of every server it starts
# (OFFERDESK_TEST_PROXY=prism, test/support/prism-proxy.ts). Every real response is validated
# against openapi.yaml; a violation fails the test that received it and the file it ran in.
# That this gate can fail is shown by test/contract/prism-front.test.ts (a planted defect).
set -euo pipefail
cd "$(dirname "$0")/.."
OFFERDESK_TEST_PROXY=prism npx --no-install vitest run test/api
# The console's HTTP suite the same way, with Prism validating against console-api.yaml.
OFFERDESK_TEST_PROXY=prism-console exec npx --no-install vitest run test/console
