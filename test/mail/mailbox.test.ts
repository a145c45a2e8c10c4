import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startMailLoop } from '../../src/mail/loop.js';
import { mailBanner } from '../../src/server.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/until.js';
import { capturedLogger, enqueueTokenMail, outboxRows } from './helpers.js';

/**
 * The embedded default keeps mail and shows it in the development mailbox (signed-out visitors
 * included, loopback only); with DATABASE_URL and no SMTP_URL mail is off and says so; the
 * console's sign-in page learns the mode from GET /console/api/config.
 */

const TOKEN = 'odl_Mb4Kx9Qw2Er7Ty5Ui3Op8As1Df6Gh0Jk';
let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function withApi<T>(env: Record<string, string>, run: (api: TestApi) => Promise<T>): Promise<T> {
  const api = await startTestApi({ db, env });
  try {
    return await run(api);
  } finally {
    await api.close();
  }
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data: any } });

describe('the development mailbox of the embedded default', () => {
  it('keeps mails instead of sending them and shows them to a signed-out visitor, token included', async () => {
    await db.sql`truncate mail_outbox`;
    const config = loadConfig({});
    expect(config.mail).toMatchObject({ mode: 'local', mailboxOpen: true });
    const draft = await enqueueTokenMail(db.sql, TOKEN);
    const log = capturedLogger();
    const loop = await startMailLoop({ sql: db.sql, clock: new ManualClock(), logger: log.logger, mail: config.mail, publicUrl: config.publicUrl });
    try {
      await until(async () => (await outboxRows(db.sql))[0]?.status === 'kept', 5_000, 'the mail kept');
    } finally {
      await loop.stop();
    }
    expect(log.lines.join('')).toContain('http://localhost:8080/console/mailbox');
    expect(log.lines.join('')).not.toContain(TOKEN);

    await withApi({}, async (api) => {
      expect(await json(await fetch(`${api.origin}/console/api/config`))).toEqual({
        status: 200,
        body: { data: { mail: { mode: 'local', mailbox: true } } },
      });
      const list = await json(await fetch(`${api.origin}/console/api/mailbox`));
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([{ id: expect.any(String), at: expect.any(String), kind: 'sign_in_link', to: draft.to, subject: 'Your sign-in link' }]);
      const one = await json(await fetch(`${api.origin}/console/api/mailbox/${list.body.data[0].id}`));
      expect(one.status).toBe(200);
      expect(one.body.data.text).toContain(`token=${TOKEN}`);
      expect(one.body.data.html).toContain(`token=${TOKEN}`);
      const unknown = await fetch(`${api.origin}/console/api/mailbox/00000000-0000-4000-8000-000000000000`);
      expect(unknown.status).toBe(404);
    });
  });

  it.each([
    ['with DATABASE_URL (mail off)', { DATABASE_URL: 'postgres://x@127.0.0.1/x' }, 'off'],
    ['with SMTP_URL', { SMTP_URL: 'smtp://127.0.0.1:2525' }, 'smtp'],
    ['on a non-loopback HOST', { HOST: '0.0.0.0' }, 'local'],
  ])('is not served %s: 404, and the config says so', async (_name, env, mode) => {
    await withApi(env, async (api) => {
      expect(await json(await fetch(`${api.origin}/console/api/config`))).toEqual({
        status: 200,
        body: { data: { mail: { mode, mailbox: false } } },
      });
      expect((await fetch(`${api.origin}/console/api/mailbox`)).status).toBe(404);
    });
  });
});

describe('mail off: DATABASE_URL without SMTP_URL', () => {
  it('keeps mails waiting in the outbox, and the start says so in one line', async () => {
    await db.sql`truncate mail_outbox`;
    const config = loadConfig({ DATABASE_URL: db.url });
    expect(config.mail.mode).toBe('off');
    await enqueueTokenMail(db.sql, TOKEN);
    const loop = await startMailLoop({ sql: db.sql, clock: new ManualClock(), logger: capturedLogger().logger, mail: config.mail, publicUrl: config.publicUrl });
    await loop.stop();
    expect((await outboxRows(db.sql)).map((r) => r.status)).toEqual(['pending']);
    const line = mailBanner(config, config.publicUrl, true);
    expect(line.trim().split('\n')).toHaveLength(1);
    expect(line).toMatch(/^Mail: off \(no SMTP_URL\)/);
  });

  it('the banner names the mailbox on the embedded default and never prints SMTP_URL', () => {
    expect(mailBanner(loadConfig({}), 'http://localhost:8080', true)).toContain('read it at http://localhost:8080/console/mailbox');
    const smtp = loadConfig({ SMTP_URL: 'smtp://user:s3cret-pass@mail.example.com:587', MAIL_FROM: 'Desk <desk@example.com>' });
    const line = mailBanner(smtp, 'http://localhost:8080', true);
    expect(line).toContain('Desk <desk@example.com>');
    expect(line).not.toContain('s3cret-pass');
  });
});

describe('mail settings', () => {
  it.each([
    ['SMTP_URL', 'http://user:s3cret-pass@mail.example.com', 'SMTP_URL must look like'],
    ['SMTP_URL', 'not a url s3cret-pass', 'SMTP_URL must look like'],
    ['MAIL_FROM', 'no address here', 'MAIL_FROM must be an address'],
  ])('%s=%s stops the start with a one-line reason that never repeats a password', (name, value, reason) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toContain('s3cret-pass');
  });
});
