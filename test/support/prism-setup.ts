import type { TestProject } from 'vitest/node';
import { CONSOLE_API, PUBLIC_API, startSharedPrism } from './prism-proxy.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The origin of the project's shared Prism (prism-proxy.ts, SharedPrism) by the document it validates. */
    sharedPrism: Record<string, string>;
  }
}

/**
 * vitest global setup of the projects behind Prism (`api`, `console`): one Prism for the whole
 * project, which every server's front (startTestApi) sends its requests through, instead of one
 * Prism started per test file. OFFERDESK_TEST_PROXY=off starts none.
 */
export default async function setup(project: TestProject) {
  const proxy = project.config.env?.OFFERDESK_TEST_PROXY ?? process.env.OFFERDESK_TEST_PROXY;
  if (proxy !== 'prism' && proxy !== 'prism-console') {
    project.provide('sharedPrism', {});
    return;
  }
  const contract = proxy === 'prism-console' ? CONSOLE_API : PUBLIC_API;
  const prism = await startSharedPrism(contract);
  project.provide('sharedPrism', { [contract.document]: prism.origin });
  return () => prism.close();
}
