import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { browserRequired, findChromium, launchChromium, MISSING_CHROMIUM } from '../support/chromium.js';

/**
 * The API reference at /docs (built by `npm run docs`, served by the service) in real Chromium,
 * with every request to another host refused: it must render, name every operation and every
 * webhook event type of openapi.yaml, and find them through its search.
 */
const executablePath = findChromium();
if (!executablePath) {
  if (browserRequired) throw new Error(`OFFERDESK_REQUIRE_BROWSER=1: ${MISSING_CHROMIUM}`);
  console.warn(`\n*** SKIPPING test/browser/docs.test.ts: ${MISSING_CHROMIUM} ***\n`);
}

const doc = parse(readFileSync('openapi.yaml', 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; summary: string }>>;
  webhooks: Record<string, { post: { summary: string } }>;
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== 'parameters')
    .map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary })),
);
const webhookTypes = Object.keys(doc.webhooks);
// Redoc's search lists an entry by its summary: search by name, expect the matching summary.
const searches = [
  ...operations.map(({ summary }) => ({ query: summary, finds: summary })),
  ...Object.entries(doc.webhooks).map(([type, item]) => ({ query: type, finds: item.post.summary })),
];

describe.skipIf(!executablePath)('the API reference at /docs in Chromium', () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    if (!existsSync('dist/docs/index.html')) throw new Error('no API reference built: run npm run docs (npm run build does it too)');
    api = await startTestApi();
    browser = await launchChromium(executablePath!);
    page = await browser.newPage();
    // Nothing outside this machine is reachable where the service runs: refuse it here too.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(api.serverOrigin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    page.on('pageerror', (error) => failed.push(String(error)));
    // Refused by the page's own Content-Security-Policy before any connection (Redoc's logo on its
    // CDN): nothing left the machine, and the page is built to do without it.
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'csp') failed.push(`${request.url()}: ${request.failure()?.errorText}`);
    });
    const res = await page.goto(`${api.serverOrigin}/docs`, { waitUntil: 'networkidle' });
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { name: operations[0]!.summary }).waitFor({ timeout: 30_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('loads nothing from another host and runs without errors', () => {
    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
  });

  it.each(operations)('shows $method $path ($summary)', async ({ method, path, summary }) => {
    const text = await page.locator('body').innerText();
    expect(text).toContain(summary);
    expect(text).toContain(path);
    expect(text).toContain(method);
  });

  it.each(webhookTypes)('shows the webhook event type %s', async (type) => {
    expect(await page.locator('body').innerText()).toContain(type);
  });

  it.each(searches)('finds "$finds" when searching for "$query"', async ({ query, finds }) => {
    const search = page.getByPlaceholder(/search/i).first();
    await search.fill(query);
    const results = page.locator('[data-role="search:results"]');
    await expect.poll(async () => (await results.allInnerTexts()).join(' '), { timeout: 10_000 }).toContain(finds);
    await search.fill('');
  });
});
