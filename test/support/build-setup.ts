import { ensureBuilt } from './offerdesk-command.js';

/** Set once dist/ was checked in this run: vitest runs a global setup once per project. */
const shared = globalThis as { offerdeskBuildChecked?: boolean };

/**
 * vitest global setup: the process tests run the compiled `offerdesk` command and the browser
 * tests serve the built console, so dist/ is rebuilt here, once, when a source changed since the
 * last build; test files running in parallel would otherwise race to rebuild it.
 */
export default function setup(): void {
  if (shared.offerdeskBuildChecked) return;
  ensureBuilt();
  shared.offerdeskBuildChecked = true;
}
