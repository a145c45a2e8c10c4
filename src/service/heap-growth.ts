import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last full collection, in
 * percent, for a long-running service process (`offerdesk serve`).
 *
 * Why: left to itself V8 lets it grow to about four times the survivors when collecting is cheap.
 * Under load the API keeps about 30 MB alive, and its heap then climbs to about 140 MB of mostly
 * garbage between full collections: that garbage is most of the process's peak memory. Twice the
 * survivors holds the peak about 70 MB lower (docs/performance.md "Tuning kept in the service")
 * for a few percent more CPU per request spent collecting.
 */
export const SERVICE_HEAP_GROWING_PERCENT = 100;

const FLAG = '--heap-growing-percent';

/**
 * Sets the growth bound unless the operator chose one for this process on node's command line
 * (NODE_OPTIONS does not take this V8 flag). Must run at start: the bound applies from the next
 * full collection on.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  const chosen = execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(FLAG));
  if (chosen) return false;
  setFlagsFromString(`${FLAG}=${SERVICE_HEAP_GROWING_PERCENT}`);
  return true;
}
