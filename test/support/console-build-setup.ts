import { ensureConsoleBuilt } from './console-build.js';

/**
 * vitest global setup: the browser tests serve the built console, so it is rebuilt here, once,
 * when web/ changed since the last build; test files running in parallel would otherwise race to
 * rebuild the same dist/console/.
 */
export default function setup(): void {
  ensureConsoleBuilt();
}
