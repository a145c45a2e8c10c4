import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_OWNER_EMAIL } from '../../src/seed/demo-seed.js';
import { createLogger } from '../../src/log.js';
import { runService, type RunningService } from '../../src/server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

/** `npm start` puts a newcomer one click from the console: the banner names it and signs the demo owner in. */
let db: TestDatabase;
let service: RunningService;
let printed = '';
beforeAll(async () => {
  db = await freshDatabase();
  const config = loadConfig({ DATABASE_URL: db.url, OFFERDESK_DEMO_SEED: '1', OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), PORT: '0', OFFERDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'offerdesk-banner-')) });
  service = await runService({ config, worker: false, logger: createLogger('silent'), print: (text) => (printed += text) });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await db?.drop();
});

describe('serve banner', () => {
  it('prints the console address and a sign-in link for the demo owner under the API lines', () => {
    const lines = printed.split('\n');
    const api = lines.findIndex((l) => l.startsWith('Offerdesk API listening on'));
    const consoleLine = lines.findIndex((l) => l.startsWith('Console: '));
    expect(api).toBeGreaterThanOrEqual(0);
    expect(consoleLine).toBeGreaterThan(api);
    expect(lines[consoleLine]).toBe(`Console: http://localhost:${service.port}/console/`);
    expect(printed).toContain(DEMO_OWNER_EMAIL);
    expect(printed).toContain(service.demoSignInUrl!);
    expect(service.demoSignInUrl).toMatch(new RegExp(`^http://localhost:${service.port}/console/sign-in#token=`));
  });

  it('the printed link signs the demo owner in, once', async () => {
    const token = service.demoSignInUrl!.split('#token=')[1]!;
    // As a browser that opened the server by its address sends it.
    const origin = `http://127.0.0.1:${service.port}`;
    const post = () =>
      fetch(`http://127.0.0.1:${service.port}/console/api/session/link`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    const first = await post();
    expect(first.status).toBe(200);
    const me = (await first.json()) as { data: { account: { email: string }; workspaces: { name: string; role: string }[] } };
    expect(me.data.account.email).toBe(DEMO_OWNER_EMAIL);
    expect(me.data.workspaces).toEqual([expect.objectContaining({ name: 'Demo Agency', role: 'owner' })]);
    expect((await post()).status).toBe(401);
  });
});
