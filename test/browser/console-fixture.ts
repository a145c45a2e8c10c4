import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { createApp } from '../../src/service/app.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { addMember, createAccount, createWorkspace, type Role } from '../../src/domain/accounts.js';
import { setPassword } from '../../src/domain/passwords.js';
import { createSignInLink, signInLinkUrl } from '../../src/domain/sign-in-links.js';
import { createLogger } from '../../src/log.js';
import { createWebhookEngine, type WebhookEngine } from '../../src/webhooks/engine/engine.js';
import type { ManagementDeps } from '../../src/webhooks/management/endpoints.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/transport/sender.js';
import { browserRequired, findChromium, launchChromium, MISSING_CHROMIUM } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.js';

/**
 * The browser tests' world: the real service (API and console, the built SPA from dist/console)
 * on a socket over a fresh database with a manual clock, a real HTTPS receiver the webhook
 * engine delivers to, and Debian's Chromium driven by playwright-core. Every page collects its
 * console errors and uncaught exceptions; afterEach asserts there were none.
 */

export const chromiumPath = findChromium();

const BROWSER_TEST_TIMEOUT_MS = 60_000;

/**
 * `describe` when a Chromium exists. Without one the tests skip with a loud warning, and with
 * OFFERDESK_REQUIRE_BROWSER=1 (CI) the missing browser is a failing test instead.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (chromiumPath) {
    // A page's steps wait on a real browser and server; on a loaded 2-core machine that takes a while.
    describe(name, { timeout: BROWSER_TEST_TIMEOUT_MS }, body);
    return;
  }
  const line = `\n!!!!!!!! BROWSER TESTS SKIPPED: ${MISSING_CHROMIUM} — "${name}" did not run !!!!!!!!\n`;
  process.stderr.write(line);
  if (browserRequired) {
    describe(name, () => {
      it('needs a Chromium because OFFERDESK_REQUIRE_BROWSER=1', () => {
        throw new Error(MISSING_CHROMIUM);
      });
    });
  } else {
    describe.skip(name, body);
  }
}

const MASTER_KEY = randomBytes(32).toString('base64');

export interface Person {
  id: string;
  email: string;
  password: string;
  name: string;
}

export interface BrowserPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions of this page so far. */
  problems: string[];
  /** A console error the test causes on purpose (a refused request logs one in Chromium). */
  expectProblem(pattern: RegExp): void;
}

export interface ConsoleWorld {
  db: TestDatabase;
  clock: ManualClock;
  receiver: HttpsReceiver;
  engine: WebhookEngine;
  /** The domain functions' dependencies, for setting up data as the CLI would. */
  manage: ManagementDeps;
  browser: Browser;
  /** http://127.0.0.1:PORT */
  origin: string;
  workspaceId: string;
  owner: Person;
  member: Person;
  /** A fresh browser context (no cookies) with error collection; `clipboard` grants the page its clipboard. */
  open(options?: { clipboard?: boolean }): Promise<BrowserPage>;
  signInLink(person: Person): Promise<string>;
  /** Fans out and attempts everything due now, as the worker would. */
  deliverDue(): Promise<void>;
  /** The DNS TXT records the offer-domain verification finds, by name (no real DNS in tests). */
  dnsTxt: Map<string, string[][]>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let counter = 0;

async function person(world: { db: TestDatabase; clock: ManualClock }, name: string): Promise<Person> {
  counter += 1;
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${counter}@agency.test`;
  const account = await createAccount(world.db.sql, world.clock, { email, name });
  const password = `correct horse ${randomBytes(4).toString('hex')}`;
  await setPassword(world.db.sql, world.clock, { accountId: account.id, password });
  return { id: account.id, email, password, name };
}

export async function addPerson(world: ConsoleWorld, name: string, role: Role): Promise<Person> {
  const p = await person(world, name);
  await addMember(world.db.sql, world.clock, { actorId: null, workspaceId: world.workspaceId, accountId: p.id, role });
  return p;
}

/** Sets up the world for one test file (beforeAll) and tears it down (afterAll). */
export function useConsoleWorld(): ConsoleWorld {
  const world = {} as ConsoleWorld;
  const pages: BrowserPage[] = [];
  const expected = new Map<BrowserPage, RegExp[]>();
  let server: Server;
  let closeApp: () => Promise<void>;
  let sender: WebhookSender;

  beforeAll(async () => {
    ensureConsoleBuilt();
    const db = await freshDatabase();
    const clock = new ManualClock(new Date());
    const receiver = await startHttpsReceiver();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      OFFERDESK_MASTER_KEY: MASTER_KEY,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver),
      OFFERDESK_PUBLIC_URL: origin,
    });
    // OFFERDESK_TEST_LOG=error shows the service's log lines of a failing browser test.
    const logger = createLogger(process.env.OFFERDESK_TEST_LOG ?? 'silent');
    const dnsTxt = new Map<string, string[][]>();
    world.dnsTxt = dnsTxt;
    const txtResolver = {
      async resolveTxt(name: string) {
        const records = dnsTxt.get(name);
        if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return records;
      },
    };
    const app = await createApp({ sql: db.sql, config, clock, logger, txtResolver });
    closeApp = app.close;
    server = createServer(app.app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

    sender = createWebhookSender({ config: config.webhooks, tls: { ca: receiver.caPem } });
    const engine = createWebhookEngine({
      sql: db.sql,
      clock,
      sender,
      masterKey: Buffer.from(MASTER_KEY, 'base64'),
      logger,
      settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
    });
    const browser = await launchChromium(chromiumPath!);

    const base = { db, clock };
    const owner = await person(base, 'Olivia Owner');
    const ws = await createWorkspace(db.sql, clock, {
      name: 'Northwind Agency',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      offerDomain: null,
      ownerAccountId: owner.id,
    });
    const manage: ManagementDeps = { sql: db.sql, clock, config: config.webhooks, masterKey: Buffer.from(MASTER_KEY, 'base64') };
    Object.assign(world, { db, clock, receiver, engine, manage, browser, origin, workspaceId: ws.id, owner });
    world.member = await addPerson(world, 'Max Member', 'member');

    world.open = async (options = {}) => {
      const context = await browser.newContext({
        viewport: { width: 1366, height: 850 },
        locale: 'en-GB',
        timezoneId: 'Europe/Berlin',
        permissions: options.clipboard ? ['clipboard-read', 'clipboard-write'] : [],
      });
      const page = await context.newPage();
      const entry: BrowserPage = {
        page,
        context,
        problems: [],
        expectProblem: (pattern) => expected.set(entry, [...(expected.get(entry) ?? []), pattern]),
      };
      page.on('console', (message) => {
        if (message.type() !== 'error' && message.type() !== 'warning') return;
        const where = message.location().url;
        entry.problems.push(`console.${message.type()}: ${message.text()}${where ? ` (${where})` : ''}`);
      });
      page.on('pageerror', (error) => entry.problems.push(`uncaught: ${error.message}`));
      pages.push(entry);
      return entry;
    };
    world.signInLink = async (p) => {
      const { token } = await createSignInLink(db.sql, clock, { accountId: p.id });
      return signInLinkUrl(origin, token);
    };
    world.deliverDue = async () => {
      await engine.fanOut();
      while ((await engine.dispatchOnce()).length > 0);
    };
  });

  afterEach(async ({ task }) => {
    const open = pages.splice(0);
    if (task.result?.state === 'fail') {
      // What the page showed when the test failed, for whoever reads the failure.
      for (const [i, entry] of open.entries()) {
        const file = join(tmpdir(), `offerdesk-browser-failure-${Date.now()}-${i}.png`);
        await entry.page.screenshot({ path: file, fullPage: true }).catch(() => {});
        process.stderr.write(`screenshot of the failed page: ${file}\n${entry.problems.join('\n')}\n`);
      }
    }
    for (const entry of open) await entry.context.close();
    for (const entry of open) {
      const allowed = expected.get(entry) ?? [];
      const unexpected = entry.problems.filter((problem) => !allowed.some((pattern) => pattern.test(problem)));
      expect(unexpected, 'the browser logged errors').toEqual([]);
    }
    expected.clear();
  });

  afterAll(async () => {
    await world.browser?.close();
    server?.closeAllConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeApp?.();
    await sender?.close();
    await world.receiver?.close();
    await world.db?.drop();
  });

  return world;
}

/**
 * Where a test saves one of the README's screenshots: `docs/` with `OFFERDESK_UPDATE_SCREENSHOTS=1`
 * (docs/console-web.md), else `.cache/screenshots/`, so that a test run leaves the tree as it was.
 */
export function readmeScreenshotPath(name: string): string {
  const dir = process.env.OFFERDESK_UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs') : join(projectRoot, '.cache', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
