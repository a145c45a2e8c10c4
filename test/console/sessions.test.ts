import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/clock.js';
import { createSignInLink } from '../../src/domain/sign-in-links.js';
import { setPassword } from '../../src/domain/passwords.js';
import { ConsoleClient, PASSWORD, person, useConsoleApi } from './helpers.js';

const ctx = useConsoleApi();

async function someone(label = 'person') {
  return person(ctx.api, ctx.api.db.sql, ctx.api.clock, label);
}

function linkToken(token: string) {
  return { token };
}

describe('sign-in with email and password', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie on /console and answers the account', async () => {
    const p = await someone();
    const answer = await p.client.signIn(p.email);
    expect(answer.status).toBe(200);
    expect(answer.body.data.account).toEqual({ id: p.id, email: p.email, name: expect.any(String) });
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('offerdesk_session='))!;
    expect(cookie).toMatch(/; Path=\/console/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // the test server's public address is http
    expect((await p.client.call('GET', '/me')).status).toBe(200);
  });

  it('stores only the hash of the session token', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    const token = p.client.cookie!.split('=')[1]!;
    const rows = await ctx.api.db.sql`select token_hash from console_sessions where account_id = ${p.id}::uuid`;
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.token_hash).toString('base64url')).not.toBe(token);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const p = await someone();
    const wrongPassword = await new ConsoleClient(ctx.api).signIn(p.email, 'not the password at all');
    const unknownEmail = await new ConsoleClient(ctx.api).signIn(`nobody-${p.id}@agency.example`, PASSWORD);
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.text).toBe(unknownEmail.text);
    expect(wrongPassword.body).toEqual({ error: { code: 'unauthorized', message: 'Email or password is wrong.' } });
    expect(wrongPassword.headers.getSetCookie()).toEqual([]);
  });

  it('refuses an account without a password like a wrong password', async () => {
    const p = await someone();
    await ctx.api.db.sql`update accounts set password_hash = null where id = ${p.id}::uuid`;
    expect((await p.client.signIn(p.email)).body.error.message).toBe('Email or password is wrong.');
  });

  it('matches the email without regard to case', async () => {
    const p = await someone();
    expect((await p.client.signIn(p.email.toUpperCase())).status).toBe(200);
  });
});

describe('sign-in links', () => {
  it('signs in once; the same link a second time is refused', async () => {
    const p = await someone();
    const { token } = await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    const first = await p.client.call('POST', '/session/link', { body: linkToken(token) });
    expect(first.status).toBe(200);
    expect(first.body.data.account.id).toBe(p.id);
    const again = await new ConsoleClient(ctx.api).call('POST', '/session/link', { body: linkToken(token) });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('unauthorized');
  });

  it('works until 15 minutes have passed, and not after', async () => {
    const p = await someone();
    const early = await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    const late = await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    ctx.api.clock.advance(15 * MINUTE - 1);
    expect((await new ConsoleClient(ctx.api).call('POST', '/session/link', { body: linkToken(early.token) })).status).toBe(200);
    ctx.api.clock.advance(1);
    expect((await new ConsoleClient(ctx.api).call('POST', '/session/link', { body: linkToken(late.token) })).status).toBe(401);
  });

  it('stores only the hash of the link token', async () => {
    const p = await someone();
    const { token } = await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    const rows = await ctx.api.db.sql`select * from sign_in_links where account_id = ${p.id}::uuid`;
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.token_hash).toHaveLength(32);
  });

  it('refuses an unknown token', async () => {
    const answer = await new ConsoleClient(ctx.api).call('POST', '/session/link', { body: linkToken('not-a-real-token') });
    expect(answer.status).toBe(401);
  });
});

describe('session expiry', () => {
  it('ends after 2 hours without use', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    ctx.api.clock.advance(2 * HOUR - 1);
    expect((await p.client.call('GET', '/me')).status).toBe(200);
    // The request above slid the idle expiry: another 2 hours from it.
    ctx.api.clock.advance(2 * HOUR - 1);
    expect((await p.client.call('GET', '/me')).status).toBe(200);
    ctx.api.clock.advance(2 * HOUR);
    const expired = await p.client.call('GET', '/me');
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: { code: 'unauthorized', message: 'Sign in to continue.' } });
  });

  it('ends 12 hours after sign-in however busy it is', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    for (let hours = 0; hours < 11; hours++) {
      ctx.api.clock.advance(HOUR);
      expect((await p.client.call('GET', '/me')).status).toBe(200);
    }
    ctx.api.clock.advance(HOUR - 1);
    expect((await p.client.call('GET', '/me')).status).toBe(200);
    ctx.api.clock.advance(1);
    expect((await p.client.call('GET', '/me')).status).toBe(401);
  });
});

describe('sign-out and password changes', () => {
  it('sign-out ends the session and clears the cookie', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    const stolen = p.client.cookie;
    const out = await p.client.call('DELETE', '/session');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^offerdesk_session=; .*Expires=Thu, 01 Jan 1970/);
    const replay = new ConsoleClient(ctx.api);
    replay.cookie = stolen;
    expect((await replay.call('GET', '/me')).status).toBe(401);
  });

  it('a password change from the console ends the other sessions and keeps this one', async () => {
    const p = await someone();
    const laptop = p.client;
    const phone = new ConsoleClient(ctx.api);
    await laptop.signIn(p.email);
    await phone.signIn(p.email);
    const changed = await laptop.call('POST', '/me/password', {
      body: { current_password: PASSWORD, new_password: 'a brand new passphrase' },
    });
    expect(changed.status).toBe(204);
    expect((await laptop.call('GET', '/me')).status).toBe(200);
    expect((await phone.call('GET', '/me')).status).toBe(401);
    expect((await new ConsoleClient(ctx.api).signIn(p.email)).status).toBe(401);
    expect((await new ConsoleClient(ctx.api).signIn(p.email, 'a brand new passphrase')).status).toBe(200);
  });

  it('a password change needs the current password and at least 10 characters', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    const wrong = await p.client.call('POST', '/me/password', { body: { current_password: 'guess guess', new_password: 'long enough now' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('current_password');
    const short = await p.client.call('POST', '/me/password', { body: { current_password: PASSWORD, new_password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('new_password');
  });

  it('setting a password through the domain (the CLI) ends every session', async () => {
    const p = await someone();
    await p.client.signIn(p.email);
    await setPassword(ctx.api.db.sql, ctx.api.clock, { accountId: p.id, password: 'set by an operator' });
    expect((await p.client.call('GET', '/me')).status).toBe(401);
  });
});

describe('sessions across processes and over https', () => {
  it('a session started on one API process works on another over the same database', async () => {
    const { startTestApi } = await import('../support/api-server.js');
    const { CONSOLE_TEST_ENV } = await import('./helpers.js');
    const second = await startTestApi({ env: CONSOLE_TEST_ENV, db: ctx.api.db, clock: ctx.api.clock });
    try {
      const p = await someone();
      await p.client.signIn(p.email);
      const elsewhere = new ConsoleClient(second);
      elsewhere.cookie = p.client.cookie;
      expect((await elsewhere.call('GET', '/me')).body.data.account.id).toBe(p.id);
      await elsewhere.call('DELETE', '/session');
      expect((await p.client.call('GET', '/me')).status).toBe(401);
    } finally {
      await second.close();
    }
  });

  it('marks the cookie Secure when the public address is https', async () => {
    const { startTestApi } = await import('../support/api-server.js');
    const { CONSOLE_TEST_ENV } = await import('./helpers.js');
    const secure = await startTestApi({ env: { ...CONSOLE_TEST_ENV, OFFERDESK_PUBLIC_URL: 'https://console.agency.example' }, db: ctx.api.db, clock: ctx.api.clock });
    try {
      const p = await someone();
      const answer = await new ConsoleClient(secure).signIn(p.email);
      expect(answer.status).toBe(200);
      expect(answer.headers.getSetCookie()[0]).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });
});

describe('housekeeping', () => {
  it('a sign-in by link is audited with its method', async () => {
    const { createWorkspace } = await import('../../src/domain/accounts.js');
    const p = await someone();
    const { id: workspaceId } = await createWorkspace(ctx.api.db.sql, ctx.api.clock, { name: 'Linked', timezone: 'UTC', currency: 'EUR', ownerAccountId: p.id });
    const { token } = await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    await p.client.call('POST', '/session/link', { body: linkToken(token) });
    const log = await p.client.call('GET', `/workspaces/${workspaceId}/audit-log`);
    expect(log.body.data).toEqual([expect.objectContaining({ action: 'signed_in', details: { method: 'link' }, actor: expect.objectContaining({ id: p.id }) })]);
  });

  it('ended sessions and links are deleted by the retention job', async () => {
    const { deleteExpiredSessions } = await import('../../src/domain/sessions.js');
    const p = await someone();
    await p.client.signIn(p.email);
    await createSignInLink(ctx.api.db.sql, ctx.api.clock, { accountId: p.id });
    ctx.api.clock.advance(12 * HOUR);
    expect(await deleteExpiredSessions(ctx.api.db.sql, ctx.api.clock)).toBeGreaterThanOrEqual(1);
    expect(await ctx.api.db.sql`select 1 from console_sessions where account_id = ${p.id}::uuid`).toHaveLength(0);
    expect(await ctx.api.db.sql`select 1 from sign_in_links where account_id = ${p.id}::uuid`).toHaveLength(0);
  });
});
