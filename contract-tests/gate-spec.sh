#!/usr/bin/env bash
# Gate 4: spec lint and drift.
#   1. openapi.yaml and console-api.yaml lint clean with Redocly (redocly.yaml): zero errors AND
#      zero warnings.
#   2. generated/ is regenerated from both documents in a temporary copy; any difference fails.
#   3. No breaking change of openapi.yaml against the last commit (lib/check-breaking.ts;
#      CONTRACT_BREAKING_BASE=<git ref> compares with another commit, e.g. origin/main).
# The rest of the document's checks are tests of the vitest suite, which `npm test` runs once:
# every operationId has a handler and every handler an operation (test/api/routing.test.ts,
# test/console/routing.test.ts), and the shape client generators need
# (test/contract/generator-shape.test.ts).
# (The served /openapi.json is compared with openapi.yaml by gate-schemathesis.sh, against the
# real server it fuzzes.)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p contract-tests/reports

echo "-- Redocly lint (zero errors, zero warnings)"
for document in openapi.yaml console-api.yaml; do
  lint_json="contract-tests/reports/redocly-lint-${document%.yaml}.json"
  lint_err="contract-tests/reports/redocly-lint-${document%.yaml}.stderr"
  npx --no-install redocly lint "$document" --format=json > "$lint_json" 2> "$lint_err" || true
  node -e '
    const fs = require("node:fs");
    const [jsonPath, errPath, document] = process.argv.slice(1);
    let report;
    try { report = JSON.parse(fs.readFileSync(jsonPath, "utf8")); } catch (e) {
      console.error("redocly lint produced no JSON report:\n" + fs.readFileSync(errPath, "utf8")); process.exit(1);
    }
    const { errors, warnings } = report.totals;
    for (const p of report.problems) console.error(`  ${p.severity} ${p.ruleId}: ${p.message} (${(p.location?.[0]?.pointer) ?? ""})`);
    if (errors || warnings) { console.error(`${document}: ${errors} error(s), ${warnings} warning(s); run npx redocly lint ${document}`); process.exit(1); }
    console.log(`${document} lints clean (Redocly ${report.version}, ${report.totals.ignored} ignored)`);
  ' "$lint_json" "$lint_err" "$document"
done

echo "-- generated/ is what npm run generate makes of openapi.yaml and console-api.yaml"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp openapi.yaml console-api.yaml package.json "$scratch/"
[ -f redocly.yaml ] && cp redocly.yaml "$scratch/"
ln -s "$PWD/node_modules" "$scratch/node_modules"
mkdir -p "$scratch/generated"
(cd "$scratch" && npm run --silent generate > generate.log 2>&1) || { cat "$scratch/generate.log"; echo "npm run generate failed" >&2; exit 1; }
if ! diff -ru generated "$scratch/generated"; then
  echo "generated/ differs from what openapi.yaml and console-api.yaml generate: run npm run generate and commit generated/" >&2
  exit 1
fi
echo "generated/ is up to date"

echo "-- no breaking change against ${CONTRACT_BREAKING_BASE:-HEAD}"
npx --no-install tsx contract-tests/lib/check-breaking.ts --base "${CONTRACT_BREAKING_BASE:-HEAD}"
