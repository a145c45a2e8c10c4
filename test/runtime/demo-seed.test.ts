import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { runService } from '../../src/server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { tempDir } from './helpers.js';

// `serve` on an empty database seeds the demo workspace and prints a live key by default only on
// the embedded database (test/runtime/serve.test.ts covers that default). A DATABASE_URL is taken
// for a real deployment: nothing is seeded unless OFFERDESK_DEMO_SEED asks for it.

describe('the demo workspace on DATABASE_URL', () => {
  let db: TestDatabase;
  const data = tempDir('demo-seed');
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
    data.remove();
  });

  async function serveOnce(env: Record<string, string>): Promise<{ printed: string; demoApiKey: string | undefined }> {
    let printed = '';
    const service = await runService({
      config: loadConfig({ DATABASE_URL: db.url, OFFERDESK_DATA_DIR: data.path, OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), ...env }),
      port: 0,
      worker: false,
      logger: createLogger('silent'),
      print: (text) => (printed += text),
    });
    await service.stop();
    return { printed, demoApiKey: service.demoApiKey };
  }

  const workspaces = async () => Number((await db.sql`select count(*)::int as n from workspaces`)[0]!.n);

  it('is not seeded by default: no workspace, no key printed', async () => {
    const { printed, demoApiKey } = await serveOnce({});
    expect(demoApiKey).toBeUndefined();
    expect(printed).not.toMatch(/odk_live_/);
    expect(printed).toContain('no demo API key for this database');
    expect(await workspaces()).toBe(0);
  });

  it('is seeded when OFFERDESK_DEMO_SEED=1 says so', async () => {
    const { printed, demoApiKey } = await serveOnce({ OFFERDESK_DEMO_SEED: '1' });
    expect(demoApiKey).toMatch(/^odk_live_/);
    expect(printed).toContain(`demo API key: ${demoApiKey}`);
    expect(await workspaces()).toBe(1);
  });

  it('the default follows the database: on for the embedded one, off with DATABASE_URL', () => {
    expect(loadConfig({}).demoSeed).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://db.internal/offerdesk' }).demoSeed).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://db.internal/offerdesk', OFFERDESK_DEMO_SEED: 'yes' }).demoSeed).toBe(true);
    expect(loadConfig({ OFFERDESK_DEMO_SEED: 'false' }).demoSeed).toBe(false);
  });
});
