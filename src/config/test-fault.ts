import { ConfigError, type Env } from './values.js';

/**
 * TEST-ONLY fault switch for the contract gates (contract-tests/, docs/contract.md "The gates"): each
 * gate must be seen to fail on a deliberately broken server. `OFFERDESK_FAULT=drop-offer-title`
 * makes every offer that leaves the process omit its required `title` (API answers and webhook
 * bodies alike, applied where they are written: withPlantedFault).
 * Unset, it changes nothing; an unknown value fails at start. Never set it in production.
 */
export const TEST_FAULTS = ['drop-offer-title'] as const;
export type TestFault = (typeof TEST_FAULTS)[number];

export function loadTestFault(env: Env = process.env): TestFault | undefined {
  const raw = env.OFFERDESK_FAULT || undefined;
  if (raw !== undefined && !(TEST_FAULTS as readonly string[]).includes(raw)) {
    throw new ConfigError(`OFFERDESK_FAULT must be one of ${TEST_FAULTS.join(', ')} (test only), got "${raw}"`);
  }
  return raw as TestFault | undefined;
}

/**
 * Read at import, not through loadConfig: the gates plant the fault through the environment of
 * processes (vitest workers, the contract server) whose code builds its Config from a partial
 * environment, and the places that honour it (an API answer, a webhook body) take no Config. A bad value is reported by
 * loadConfig, with the other configuration errors, not at import.
 */
export const testFault: TestFault | undefined = (() => {
  try {
    return loadTestFault();
  } catch {
    return undefined;
  }
})();

/** An offer as it leaves the process: unchanged, unless the planted fault drops its title. */
export function withPlantedFault<T extends { title: string }>(offer: T): T {
  if (testFault !== 'drop-offer-title') return offer;
  const { title: _dropped, ...rest } = offer;
  return rest as T;
}
