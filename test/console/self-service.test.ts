import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/clock.js';
import { SIGN_IN_LINK_TTL_MS } from '../../src/domain/sign-in-links.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { CONSOLE_TEST_ENV, ConsoleClient, PASSWORD, person } from './helpers.js';
import { capturingLogger, linkOf, mailsTo } from './mail-support.js';

/**
 * "Email me a sign-in link" and the password reset by emailed link (docs/console.md "Signing
 * in"), over a real socket and PostgreSQL; mails are read from the mail outbox they are written to.
 */

const PUBLIC_URL = 'https://console.agency.example';
/** What a known address may add to the answer's time: well under one database round trip's jitter on a loaded machine. */
const COMPARABLE_MS = 15;
/** Pairs of requests timed: enough that the median stands above the noise of a shared machine. */
const TIMED_PAIRS = 20;
let api: TestApi;
const log = capturingLogger();

beforeAll(async () => {
  api = await startTestApi({
    env: { ...CONSOLE_TEST_ENV, OFFERDESK_PUBLIC_URL: PUBLIC_URL, CONSOLE_MAIL_PER_EMAIL: '3' },
    logger: log.logger,
  });
});
afterAll(async () => api?.close());

const someone = (label = 'person') => person(api, api.db.sql, api.clock, label);
const unknownEmail = () => `nobody-${randomBytes(4).toString('hex')}@agency.example`;
const client = () => new ConsoleClient(api);

async function everythingStored(): Promise<string> {
  const [audit, links, sessions] = await Promise.all([
    api.db.sql`select * from audit_entries`,
    api.db.sql`select * from sign_in_links`,
    api.db.sql`select * from console_sessions`,
  ]);
  return JSON.stringify([audit, links, sessions]);
}

describe('email me a sign-in link', () => {
  it('mails a single-use link from the public address to an account, and the link signs in', async () => {
    const p = await someone();
    const asked = await client().call('POST', '/session/link-request', { body: { email: p.email } });
    expect(asked.status).toBe(202);
    const [mail] = await mailsTo(api.db.sql, p.email);
    expect(mail).toMatchObject({ kind: 'sign_in_link', subject: 'Your Offerdesk sign-in link', workspace_id: null });
    expect(mail!.text_body).toMatch(/^Hello person \d+,/);
    const link = linkOf(mail!);
    expect(link.url.startsWith(`${PUBLIC_URL}/console/sign-in#token=`)).toBe(true);
    expect(mail!.html_body).toContain(`href="${link.url}"`);

    const browser = client();
    const signedIn = await browser.call('POST', '/session/link', { body: { token: link.token } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.account.email).toBe(p.email);
    // Single use.
    expect((await client().call('POST', '/session/link', { body: { token: link.token } })).status).toBe(401);
  });

  it('answers an unknown address exactly as a known one, and mails nothing', async () => {
    const p = await someone();
    const ghost = unknownEmail();
    const known = await client().call('POST', '/session/link-request', { body: { email: p.email } });
    const unknown = await client().call('POST', '/session/link-request', { body: { email: ghost } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(unknown.text).toBe('');
    const headers = (a: typeof known) => [...a.headers.keys()].filter((k) => k !== 'date').sort();
    expect(headers(unknown)).toEqual(headers(known));
    expect(await mailsTo(api.db.sql, ghost)).toEqual([]);
    expect(await mailsTo(api.db.sql, p.email)).toHaveLength(1);
  });

  it('takes comparable time for a known and an unknown address', async () => {
    const known = await Promise.all(Array.from({ length: TIMED_PAIRS + 1 }, () => someone('timed')));
    const timed = async (email: string) => {
      const start = performance.now();
      const answer = await client().call('POST', '/session/link-request', { body: { email } });
      expect(answer.status).toBe(202);
      return performance.now() - start;
    };
    // In pairs, known then unknown, so a slow moment of the shared machine falls on both; the
    // median of the pairs' differences is what the address being known adds.
    const differences: number[] = [];
    for (const p of known) differences.push((await timed(p.email)) - (await timed(unknownEmail())));
    differences.shift(); // the first pair warms up the statements and the pool
    const median = [...differences].sort((a, b) => a - b)[Math.floor(differences.length / 2)]!;
    expect(Math.abs(median)).toBeLessThan(COMPARABLE_MS);
  });

  it('is throttled per email (CONSOLE_MAIL_PER_EMAIL) for known and unknown addresses alike', async () => {
    const p = await someone();
    const ghost = unknownEmail();
    for (const email of [p.email, ghost]) {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await client().call('POST', '/session/link-request', { body: { email } })).status);
      expect(statuses).toEqual([202, 202, 202, 429]);
    }
    const throttled = await client().call('POST', '/password-reset', { body: { email: p.email.toUpperCase() } });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await mailsTo(api.db.sql, p.email)).toHaveLength(3);
    // Password sign-in has its own count: asking for mails locks nobody out.
    expect((await p.client.signIn(p.email)).status).toBe(200);
  });

  it('a link stops working after 15 minutes', async () => {
    const p = await someone();
    await client().call('POST', '/session/link-request', { body: { email: p.email } });
    const { token } = linkOf((await mailsTo(api.db.sql, p.email))[0]!);
    api.clock.advance(SIGN_IN_LINK_TTL_MS + MINUTE);
    expect((await client().call('POST', '/session/link', { body: { token } })).status).toBe(401);
  });

  it('refuses a body without an email, or with another field, as the document says', async () => {
    expect((await client().call('POST', '/session/link-request', { body: {} })).status).toBe(400);
    expect((await client().call('POST', '/session/link-request', { body: { email: 'a@b.example', extra: 1 } })).status).toBe(400);
    expect((await client().call('POST', '/session/link-request', { body: { email: 'a@b.example' }, headers: { origin: 'https://evil.example' } })).status).toBe(403);
  });
});

describe('password reset by emailed link', () => {
  it('sets the new password, ends every other session, and signs this browser in', async () => {
    const p = await someone();
    const elsewhere = new ConsoleClient(api);
    expect((await elsewhere.signIn(p.email)).status).toBe(200);
    expect((await client().call('POST', '/password-reset', { body: { email: p.email } })).status).toBe(202);
    const [mail] = await mailsTo(api.db.sql, p.email);
    expect(mail).toMatchObject({ kind: 'password_reset', subject: 'Reset your Offerdesk password' });
    const link = linkOf(mail!);
    expect(link.url.startsWith(`${PUBLIC_URL}/console/reset-password#token=`)).toBe(true);

    const browser = client();
    const reset = await browser.call('POST', '/password-reset/complete', { body: { token: link.token, new_password: 'a brand new password' } });
    expect(reset.status).toBe(200);
    expect(reset.body.data.account.id).toBe(p.id);
    expect((await browser.call('GET', '/me')).status).toBe(200);
    expect((await elsewhere.call('GET', '/me')).status).toBe(401);
    expect((await p.client.signIn(p.email, PASSWORD)).status).toBe(401);
    expect((await p.client.signIn(p.email, 'a brand new password')).status).toBe(200);
    // Single use.
    const again = await client().call('POST', '/password-reset/complete', { body: { token: link.token, new_password: 'yet another password' } });
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/password-reset link/);
  });

  it('a too-short password is refused at its field and leaves the link usable', async () => {
    const p = await someone();
    await client().call('POST', '/password-reset', { body: { email: p.email } });
    const { token } = linkOf((await mailsTo(api.db.sql, p.email))[0]!);
    const short = await client().call('POST', '/password-reset/complete', { body: { token, new_password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('new_password');
    expect((await client().call('POST', '/password-reset/complete', { body: { token, new_password: 'long enough now' } })).status).toBe(200);
  });

  it('a reset link does not sign in, and a sign-in link does not reset', async () => {
    const p = await someone();
    await client().call('POST', '/password-reset', { body: { email: p.email } });
    await client().call('POST', '/session/link-request', { body: { email: p.email } });
    const [reset, signIn] = await mailsTo(api.db.sql, p.email);
    expect((await client().call('POST', '/session/link', { body: { token: linkOf(reset!).token } })).status).toBe(401);
    const wrong = await client().call('POST', '/password-reset/complete', { body: { token: linkOf(signIn!).token, new_password: 'a brand new password' } });
    expect(wrong.status).toBe(401);
    expect((await p.client.signIn(p.email, PASSWORD)).status).toBe(200);
  });

  it('a reset ends every unused sign-in and reset link of the account issued before it', async () => {
    const p = await someone();
    await client().call('POST', '/session/link-request', { body: { email: p.email } });
    await client().call('POST', '/password-reset', { body: { email: p.email } });
    await client().call('POST', '/password-reset', { body: { email: p.email } });
    const [signIn, firstReset, secondReset] = (await mailsTo(api.db.sql, p.email)).map((mail) => linkOf(mail).token);
    const reset = await client().call('POST', '/password-reset/complete', { body: { token: secondReset, new_password: 'a brand new password' } });
    expect(reset.status).toBe(200);
    expect((await client().call('POST', '/session/link', { body: { token: signIn } })).status).toBe(401);
    const earlier = await client().call('POST', '/password-reset/complete', { body: { token: firstReset, new_password: 'the attacker\'s password' } });
    expect(earlier.status).toBe(401);
    expect((await p.client.signIn(p.email, 'a brand new password')).status).toBe(200);
  });

  it('a password change in the console ends every unused link of the account', async () => {
    const p = await someone();
    expect((await p.client.signIn(p.email)).status).toBe(200);
    await client().call('POST', '/session/link-request', { body: { email: p.email } });
    await client().call('POST', '/password-reset', { body: { email: p.email } });
    const [signIn, reset] = (await mailsTo(api.db.sql, p.email)).map((mail) => linkOf(mail).token);
    const changed = await p.client.call('POST', '/me/password', { body: { current_password: PASSWORD, new_password: 'a brand new password' } });
    expect(changed.status).toBe(204);
    expect((await client().call('POST', '/session/link', { body: { token: signIn } })).status).toBe(401);
    expect((await client().call('POST', '/password-reset/complete', { body: { token: reset, new_password: 'another password' } })).status).toBe(401);
    expect((await p.client.call('GET', '/me')).status).toBe(200);
  });

  it('an unknown address gets the same answer and no mail', async () => {
    const ghost = unknownEmail();
    const answer = await client().call('POST', '/password-reset', { body: { email: ghost } });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    expect(await mailsTo(api.db.sql, ghost)).toEqual([]);
  });
});

describe('tokens stay in the mail', () => {
  it('no token of any mail appears in a log line, an answer or the audit log', async () => {
    const p = await someone();
    const answers: string[] = [];
    for (const path of ['/session/link-request', '/password-reset']) {
      answers.push((await client().call('POST', path, { body: { email: p.email } })).text);
    }
    const mails = await mailsTo(api.db.sql, p.email);
    const tokens = mails.map((m) => linkOf(m).token);
    expect(tokens).toHaveLength(2);
    answers.push((await client().call('POST', '/session/link', { body: { token: tokens[0]! } })).text);
    answers.push((await client().call('POST', '/password-reset/complete', { body: { token: tokens[1]!, new_password: 'tokens stay hidden' } })).text);
    answers.push((await client().call('POST', '/session/link', { body: { token: tokens[0]! } })).text);
    expect(log.lines.length).toBeGreaterThan(0);
    const seen = [log.lines.join('\n'), answers.join('\n'), await everythingStored()].join('\n');
    for (const token of tokens) expect(seen).not.toContain(token);
  });
});
