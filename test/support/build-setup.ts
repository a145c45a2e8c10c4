import { ensureConsoleBuilt } from './console-build.js';
import { ensureServerBuilt } from './offerdesk-command.js';

/**
 * vitest global setup: the process tests run the compiled `offerdesk` command and the browser
 * tests serve the built console, so both are rebuilt here, once, when their sources changed since
 * the last build; test files running in parallel would otherwise race to rebuild the same dist/.
 */
export default function setup(): void {
  ensureServerBuilt();
  ensureConsoleBuilt();
}
