/**
 * The document the running server serves at /openapi.json is openapi.yaml (parsed, deep-equal),
 * except that its relative `servers` entry names the server's absolute base URL (the served
 * document points at the server that serves it). Run inside with-server.ts (CONTRACT_BASE_URL),
 * before Schemathesis loads that served document: what the fuzzer checks is then the
 * hand-written contract itself.
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
const file = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as { servers: object[] };
const expected = { ...file, servers: [{ ...file.servers[0], url: baseUrl }] };
try {
  deepStrictEqual(served, expected);
} catch (error) {
  process.stderr.write(`the served /openapi.json differs from openapi.yaml (servers: ${baseUrl}):\n${(error as Error).message}\n`);
  process.exit(1);
}
process.stdout.write(`the served /openapi.json equals openapi.yaml, servers: ${baseUrl}\n`);
