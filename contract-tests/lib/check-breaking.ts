/**
 * `tsx contract-tests/lib/check-breaking.ts [--base <git-ref>]`
 *
 * Compares the working openapi.yaml with the version of the base commit (default HEAD, the main
 * branch's last commit on a CI checkout) and fails on any breaking change (lib/breaking-changes.ts).
 * When the base commit has no openapi.yaml, there is nothing to break: it says so and passes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { breakingChanges } from './breaking-changes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const at = process.argv.indexOf('--base');
const base = at === -1 ? 'HEAD' : process.argv[at + 1];
if (!base) {
  process.stderr.write('usage: check-breaking.ts [--base <git-ref>]\n');
  process.exit(2);
}

let baseText: string;
try {
  baseText = execFileSync('git', ['show', `${base}:openapi.yaml`], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch {
  process.stdout.write(`breaking-change check skipped: ${base} has no openapi.yaml to compare with\n`);
  process.exit(0);
}

const baseDoc: unknown = parse(baseText);
if (typeof baseDoc !== 'object' || baseDoc === null || !('openapi' in baseDoc)) {
  process.stdout.write(`breaking-change check skipped: the openapi.yaml of ${base} is not an OpenAPI document yet\n`);
  process.exit(0);
}
const found = breakingChanges(baseDoc as Record<string, unknown>, parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')));
if (found.length === 0) {
  process.stdout.write(`no breaking change in openapi.yaml against ${base}\n`);
  process.exit(0);
}
process.stdout.write(`${found.length} breaking change(s) in openapi.yaml against ${base} (openapi.yaml "Versioning": a breaking change is published under /api/v2):\n`);
for (const change of found) process.stdout.write(`  [${change.kind}] ${change.where}: ${change.detail}\n`);
process.exit(1);
