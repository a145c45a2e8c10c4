import { ConfigError, type Env } from './values.js';

/**
 * TEST-ONLY fault switch for the contract gates (contract-tests/, docs/contract.md "The gates"): each
 * gate must be seen to fail on a deliberately broken server. `OFFERDESK_FAULT=drop-offer-title`
 * makes every offer that leaves the process omit its required `title` (API answers and webhook
 * bodies alike, applied where they are written: withPlantedFault). loadConfig reads it into
 * Config.testFault; the app and the engine get it when they are built, never from the environment.
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
 * An offer as it leaves the process: unchanged, unless the planted fault drops its title. The fault
 * is given to the app (createApp, through its Config) and to the engine (EngineDeps) when they are
 * built: by a test, or from OFFERDESK_FAULT by loadConfig for a spawned `offerdesk serve`.
 */
export function withPlantedFault<T extends { title: string }>(fault: TestFault | undefined, offer: T): T {
  if (fault !== 'drop-offer-title') return offer;
  const { title: _dropped, ...rest } = offer;
  return rest as T;
}
