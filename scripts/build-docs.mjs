#!/usr/bin/env node
// `npm run docs` (also the last step of `npm run build`): the API reference served at /docs.
// Redoc (the `redoc` package's self-contained browser bundle) renders openapi.yaml, converted to
// JSON at build time, on one searchable page: every operation, every webhook, every schema.
// Nothing outside the serving machine may be needed, so the page loads only its own files and
// says so in its Content-Security-Policy (no CDN, no web font; Redoc's own logo, which it would
// fetch from its CDN, is refused and hides itself).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'docs');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const document = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
writeFileSync(join(out, 'openapi.json'), JSON.stringify(document));

const require = createRequire(import.meta.url);
copyFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), join(out, 'redoc.standalone.js'));

// Redoc options: https://redocly.com/docs/redoc/config (search stays on; it is why we are here).
const options = { expandResponses: '200', jsonSampleExpandLevel: 3, hideDownloadButton: false, pathInMiddlePanel: true };
writeFileSync(
  join(out, 'docs.js'),
  `Redoc.init('openapi.json', ${JSON.stringify(options)}, document.getElementById('redoc'));\n`,
);

// Redoc styles its components inline and runs its search index in a worker made from a blob.
const csp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const title = `${document.info.title} ${document.info.version} reference`;
writeFileSync(
  join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>${title}</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This reference needs JavaScript. The document itself: <a href="openapi.json">openapi.json</a>.</noscript>
<div id="redoc"></div>
<script src="redoc.standalone.js"></script>
<script src="docs.js"></script>
</body>
</html>
`,
);
process.stdout.write(`API reference: ${join(out, 'index.html')}\n`);
