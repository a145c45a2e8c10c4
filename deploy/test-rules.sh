#!/usr/bin/env bash
# Checks and unit-tests Offerdesk's Prometheus rules with promtool (Debian's `prometheus` package):
# the rule file's syntax, the scrape-config example, and every alert in rules.test.yml.
# Without promtool it fails (exit 1), it never skips.
set -euo pipefail
cd "$(dirname "$0")/prometheus"
if ! command -v promtool >/dev/null; then
  echo "promtool not found: install Debian's prometheus package (apt-get install -y prometheus)" >&2
  exit 1
fi
promtool check rules rules.yml
promtool check config scrape-config.example.yml
promtool test rules rules.test.yml
