import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { enqueueMail, MailDraftError, type MailDraft } from '../../src/mail/outbox.js';
import { publicLink } from '../../src/mail/links.js';
import { workspace } from '../support/builders.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

let db: TestDatabase;
const clock = new ManualClock();

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

function draft(overrides: Partial<MailDraft> = {}): MailDraft {
  return {
    kind: 'invitation',
    to: `invitee-${Math.random().toString(36).slice(2)}@agency.test`,
    subject: 'You are invited',
    text: 'Open the link',
    html: '<p>Open the link</p>',
    ...overrides,
  };
}

async function rowsFor(to: string) {
  return db.sql<{ kind: string; status: string; subject: string; workspace_id: string | null }[]>`
    select kind, status, subject, workspace_id from mail_outbox where recipient = ${to}`;
}

describe('the mail outbox', () => {
  it('a committed transaction writes its mail, pending', async () => {
    const ws = await workspace(db.sql, clock);
    const mail = draft({ workspaceId: ws.workspaceId });
    await db.sql.begin((tx) => enqueueMail(tx, mail));
    expect(await rowsFor(mail.to)).toEqual([
      { kind: 'invitation', status: 'pending', subject: 'You are invited', workspace_id: ws.workspaceId },
    ]);
  });

  it('a rolled-back transaction writes no mail', async () => {
    const mail = draft();
    await expect(
      db.sql.begin(async (tx) => {
        await enqueueMail(tx, mail);
        throw new Error('the cause failed after the mail was written');
      }),
    ).rejects.toThrow('the cause failed');
    expect(await rowsFor(mail.to)).toEqual([]);
  });

  it.each([
    ['two addresses', { to: 'a@x.test, b@x.test' }],
    ['a header break in the subject', { subject: 'Hi\r\nBcc: all@x.test' }],
    ['an empty subject', { subject: '' }],
    ['an unknown kind', { kind: 'newsletter' as MailDraft['kind'] }],
  ])('a draft with %s is refused and nothing is written', async (_name, overrides) => {
    const mail = draft(overrides);
    await expect(db.sql.begin((tx) => enqueueMail(tx, mail))).rejects.toBeInstanceOf(MailDraftError);
    expect(await rowsFor(mail.to)).toEqual([]);
  });
});

describe('publicLink', () => {
  it('builds an absolute link under the public address with encoded query values', () => {
    expect(publicLink('https://desk.example.com', '/console/sign-in', { token: 'a+b/c' })).toBe(
      'https://desk.example.com/console/sign-in?token=a%2Bb%2Fc',
    );
    expect(publicLink('http://localhost:8080', '/console/endpoints/1')).toBe('http://localhost:8080/console/endpoints/1');
  });
});
