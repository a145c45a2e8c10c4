import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { outputOf, spawnTs, tempDir } from './helpers.js';
import type { ChildProcess } from 'node:child_process';

/**
 * The planted-defect gate (contract-tests/gate-planted-defect.sh) runs `offerdesk serve` as a
 * process with OFFERDESK_FAULT=drop-offer-title: loadConfig reads it into the Config that serve
 * builds its app with (no module reads it on import), and every offer the API answers lacks its
 * required title. Without the fault the same offers carry it (test/api/offers.test.ts).
 */
const START_TIMEOUT_MS = 90_000;

let db: TestDatabase;
let child: ChildProcess;
let baseUrl: string;
let key: string;
const dataDir = tempDir('planted-fault');

beforeAll(async () => {
  db = await freshDatabase();
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['REDIS_URL', 'PORT', 'HOST']) delete env[name];
  child = spawnTs('src/cli/main.ts', ['serve', '--port', '0', '--no-worker'], {
    ...env,
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    OFFERDESK_DATA_DIR: dataDir.path,
    OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
    OFFERDESK_DEMO_SEED: 'true',
    OFFERDESK_FAULT: 'drop-offer-title',
  });
  const output = outputOf(child);
  [, baseUrl] = (await output.waitFor(/^Offerdesk API listening on (http:\/\/\S+\/api\/v1)$/, START_TIMEOUT_MS)) as [string, string];
  [, key] = (await output.waitFor(/^\s+demo API key: (odk_live_[0-9A-Za-z]+)$/)) as [string, string];
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await db?.drop();
  dataDir.remove();
});

describe('serve with the test-only fault drop-offer-title', () => {
  it('answers every offer without its title, in the list and one by one', async () => {
    const list = await fetch(`${baseUrl}/offers`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    const offers = ((await list.json()) as { data: Record<string, unknown>[] }).data;
    expect(offers.length).toBeGreaterThan(0);
    for (const offer of offers) {
      expect(offer).toHaveProperty('id');
      expect(offer).not.toHaveProperty('title');
    }
    const one = await fetch(`${baseUrl}/offers/${offers[0]!.id as string}`, { headers: { authorization: `Bearer ${key}` } });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { data: Record<string, unknown> }).data).not.toHaveProperty('title');
  });
});
