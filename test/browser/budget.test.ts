import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { CONSOLE_JS_BUDGET_BYTES, formatKb, measureBuiltJs } from '../../web/budget.js';
import { ensureConsoleBuilt } from '../support/console-build.js';

describe('the built console', () => {
  it("keeps all of its JavaScript under 200 KB gzipped (the console's budget)", () => {
    ensureConsoleBuilt();
    const { files, gzipBytes } = measureBuiltJs(join(projectRoot, 'dist', 'console', 'assets'));
    expect(files).toBeGreaterThan(0);
    expect(gzipBytes, `console JavaScript is ${formatKb(gzipBytes)} gzipped`).toBeLessThan(CONSOLE_JS_BUDGET_BYTES);
  });
});
