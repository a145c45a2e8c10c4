import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { projectRoot } from '../../../src/paths.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { masterKeyId, openSecret } from '../../../src/sealing/secrets.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { offerdeskArgs } from '../../support/offerdesk-command.js';
import { MASTER_KEY, workspace } from './helpers.js';

/**
 * The master key as an operator meets it, through real `offerdesk` processes: a wrong or missing
 * key stops `serve` and `worker` with one line; `secrets rekey` re-seals with progress on stderr.
 */

const run = promisify(execFile);
let db: TestDatabase;
let ws: { workspaceId: string; ownerId: string };

beforeAll(async () => {
  db = await freshDatabase();
  const manage = {
    sql: db.sql,
    clock: systemClock,
    config: loadConfig({ OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:9' }).webhooks,
    masterKey: Buffer.from(MASTER_KEY, 'base64'),
  };
  ws = await workspace({ sql: db.sql, clock: systemClock });
  await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/in', events: ['offer.sent'], actorId: ws.ownerId });
});
afterAll(async () => {
  await db.drop();
});

async function offerdesk(env: Record<string, string | undefined>, ...args: string[]) {
  const base: Record<string, string | undefined> = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' };
  delete base.OFFERDESK_MASTER_KEY;
  delete base.OFFERDESK_MASTER_KEYS_PREVIOUS;
  try {
    const { stdout, stderr } = await run(process.execPath, offerdeskArgs(...args), {
      cwd: projectRoot,
      env: { ...base, ...env } as NodeJS.ProcessEnv,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('a wrong or missing master key', () => {
  it('stops `worker` with one line naming both key ids and exit code 2', async () => {
    const wrong = randomBytes(32);
    const result = await offerdesk({ OFFERDESK_MASTER_KEY: wrong.toString('base64') }, 'worker');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^offerdesk: the master key cannot open the stored webhook secrets: 1 endpoint\(s\) are sealed under master key id [0-9a-f]{8}[^\n]*\n$/);
    expect(result.stderr).toContain(masterKeyId(wrong));
  }, 60_000);

  it('refuses `endpoint add`: a key that cannot open the stored secrets seals no new one', async () => {
    const result = await offerdesk(
      { OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:9' },
      'endpoint', 'add', '--workspace', ws.workspaceId, '--url', 'https://hooks.test/second', '--events', 'offer.sent', '--as', ws.ownerId,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^offerdesk: the master key cannot open the stored webhook secrets[^\n]*\n$/);
    const [count] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_endpoints`;
    expect(count!.n).toBe(1);
  }, 60_000);

  it('stops `serve` before it listens', async () => {
    const result = await offerdesk({ OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), OFFERDESK_DEMO_SEED: 'false' }, 'serve', '--port', '0');
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('listening');
    expect(result.stderr).toMatch(/^offerdesk: the master key cannot open the stored webhook secrets[^\n]*\n$/);
  }, 60_000);

  it('with DATABASE_URL, a missing key stops `serve` instead of generating one beside the data', async () => {
    const result = await offerdesk({ OFFERDESK_DEMO_SEED: 'false' }, 'serve', '--port', '0');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^offerdesk: OFFERDESK_MASTER_KEY is not set: with DATABASE_URL no key is generated[^\n]*\n$/);
  }, 60_000);
});

describe('offerdesk secrets rekey', () => {
  it('moves the secrets to a new key, with progress on stderr; afterwards the old key is not needed', async () => {
    const rotated = randomBytes(32).toString('base64');
    const result = await offerdesk(
      { OFFERDESK_MASTER_KEY: rotated, OFFERDESK_MASTER_KEYS_PREVIOUS: MASTER_KEY },
      'secrets', 'rekey', '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ key_id: masterKeyId(Buffer.from(rotated, 'base64')), resealed: 1, unopenable: [] });
    expect(result.stderr).toContain('rekey: 1/1 endpoints looked at, 1 re-sealed');
    const [row] = await db.sql<{ id: string; secret_sealed: Buffer }[]>`select id::text, secret_sealed from webhook_endpoints`;
    expect(openSecret({ current: Buffer.from(rotated, 'base64'), previous: [] }, row!.id, row!.secret_sealed)).toMatch(/^whsec_/);

    // Nothing is left under the old key: started with it alone, the worker is refused.
    const worker = await offerdesk({ OFFERDESK_MASTER_KEY: MASTER_KEY }, 'worker');
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(`sealed under master key id ${masterKeyId(Buffer.from(rotated, 'base64'))}`);
  }, 90_000);
});
