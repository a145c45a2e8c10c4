import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * The console's JavaScript budget (the management console issue, "Speed"): all JavaScript of the
 * built console together, gzipped, stays under 200 KB. The build prints the size and fails when
 * it is over; the browser tests measure the built files again (test/browser/budget.test.ts).
 */
export const CONSOLE_JS_BUDGET_BYTES = 200 * 1024;

export function gzippedSize(code: string | Uint8Array): number {
  return gzipSync(code, { level: 9 }).length;
}

/** Gzipped bytes of every .js file under a built console's assets directory. */
export function measureBuiltJs(assetsDir: string): { files: number; gzipBytes: number } {
  const files = readdirSync(assetsDir).filter((name) => name.endsWith('.js'));
  const gzipBytes = files.reduce((sum, name) => sum + gzippedSize(readFileSync(join(assetsDir, name))), 0);
  return { files: files.length, gzipBytes };
}

export function formatKb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export function jsBudget(limit = CONSOLE_JS_BUDGET_BYTES): Plugin {
  return {
    name: 'offerdesk-js-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      let total = 0;
      for (const output of Object.values(bundle)) {
        if (output.type === 'chunk') total += gzippedSize(output.code);
      }
      const line = `console JavaScript: ${formatKb(total)} gzipped (budget ${formatKb(limit)})`;
      if (total > limit) this.error(`${line}: over budget; drop a dependency or split the bundle`);
      this.info(line);
    },
  };
}
