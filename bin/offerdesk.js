#!/usr/bin/env node
// The CLI runs from the compiled output; `npm install` builds it through the `prepare` script.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('offerdesk: not built yet; run `npm install` (or `npm run build`) first\n');
  process.exit(1);
}
await import(entry.href);
