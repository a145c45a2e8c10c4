import { ensureBuilt } from './offerdesk-command.js';

/**
 * vitest global setup: the process tests run the compiled `offerdesk` command and the browser
 * tests serve the built console, so dist/ is rebuilt here, once, when a source changed since the
 * last build; test files running in parallel would otherwise race to rebuild it.
 */
export default function setup(): void {
  ensureBuilt();
}
