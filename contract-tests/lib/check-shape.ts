/**
 * `tsx contract-tests/lib/check-shape.ts [document]`: the generator-shape findings
 * (generator-shape.ts) of openapi.yaml or another document (YAML or JSON); exit 1 with each
 * finding when there is any.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { generatorShapeFindings } from './generator-shape.js';

const file = process.argv[2] ?? 'openapi.yaml';
const findings = generatorShapeFindings(parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
for (const { kind, where } of findings) process.stderr.write(`  ${kind}: ${where}\n`);
if (findings.length > 0) {
  process.stderr.write(`${file}: ${findings.length} finding(s) of the shape client generators need\n`);
  process.exit(1);
}
process.stdout.write(`${file}: in the shape client generators need\n`);
