import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * The Chromium the browser tests drive: Debian's `chromium` package (apt-get install chromium),
 * driven by playwright-core, which downloads no browser. OFFERDESK_CHROMIUM names another binary.
 */
const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
const FIXED = ['/usr/lib/chromium/chromium', '/snap/bin/chromium'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findChromium(): string | undefined {
  const named = process.env.OFFERDESK_CHROMIUM;
  if (named) return executable(named) ? named : undefined;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (executable(candidate)) return candidate;
    }
  }
  return FIXED.find(executable);
}

/** CI sets OFFERDESK_REQUIRE_BROWSER=1 so a machine without Chromium fails instead of skipping. */
export const browserRequired = process.env.OFFERDESK_REQUIRE_BROWSER === '1';

export const MISSING_CHROMIUM =
  'no Chromium found (install it: apt-get install chromium, or set OFFERDESK_CHROMIUM to a Chromium binary)';

/** Headless; `--no-sandbox` because containers and CI run the tests as root. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
