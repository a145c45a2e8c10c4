/**
 * The document the running server serves at /openapi.json equals openapi.yaml (parsed,
 * deep-equal). Run inside with-server.ts (CONTRACT_BASE_URL), before Schemathesis loads that
 * served document: what the fuzzer checks is then the hand-written contract itself.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const baseUrl = process.env.CONTRACT_BASE_URL;
if (!baseUrl) throw new Error('CONTRACT_BASE_URL is not set: run through contract-tests/lib/with-server.ts');

const res = await fetch(`${baseUrl}/openapi.json`);
if (res.status !== 200) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
const served: unknown = await res.json();
const file: unknown = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
try {
  deepStrictEqual(served, file);
} catch (error) {
  process.stderr.write(`the served /openapi.json differs from openapi.yaml:\n${(error as Error).message}\n`);
  process.exit(1);
}
process.stdout.write('the served /openapi.json equals openapi.yaml\n');
