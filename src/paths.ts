import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up from this file. Works from `src/` (tsx, vitest)
 * and from `dist/src/` (compiled), so SQL migrations and `openapi.yaml` are read from one place.
 */
function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'openapi.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('offerdesk: cannot find the project root (package.json + openapi.yaml)');
    dir = parent;
  }
}

export const projectRoot = findProjectRoot();
export const openapiPath = join(projectRoot, 'openapi.yaml');
/** The API reference page that `npm run docs` renders from openapi.yaml (served at /docs). */
export const docsDir = join(projectRoot, 'dist', 'docs');
export const migrationsDir = join(projectRoot, 'src', 'db', 'migrations');
export const consoleApiPath = join(projectRoot, 'console-api.yaml');
/** The built single-page console (Vite output; `npm run build`). */
export const consoleDistDir = join(projectRoot, 'dist', 'console');
