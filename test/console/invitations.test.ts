import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/clock.js';
import { INVITATION_TTL_MS } from '../../src/domain/invitations.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { CONSOLE_TEST_ENV, ConsoleClient, PASSWORD, consoleWorld, person, type ConsoleWorld } from './helpers.js';
import { capturingLogger, linkOf, mailsTo } from './mail-support.js';

/**
 * Invitations (console-api.yaml tag "Members"): invite by email with a role, the mail, accepting
 * it with or without an account, revoking, expiry, the role rules, and the token only in the mail.
 */

let api: TestApi;
const log = capturingLogger();
beforeAll(async () => {
  api = await startTestApi({ env: CONSOLE_TEST_ENV, logger: log.logger });
});
afterAll(async () => api?.close());

const newAddress = () => `invitee-${randomBytes(4).toString('hex')}@agency.example`;
const invitations = (w: ConsoleWorld) => `/workspaces/${w.workspaceId}/invitations`;

async function invite(w: ConsoleWorld, email: string, role = 'member', by = w.owner) {
  const answer = await by.client.call('POST', invitations(w), { body: { email, role } });
  expect(answer.status).toBe(201);
  const mails = await mailsTo(api.db.sql, email);
  return { answer, invitation: answer.body.data, mail: mails.at(-1)!, token: linkOf(mails.at(-1)!).token };
}

describe('inviting', () => {
  it('mails the address a link from the public address; the answer and the list hold no token', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    const { invitation, mail, token, answer } = await invite(w, email, 'admin');
    expect(invitation).toMatchObject({ email, role: 'admin', status: 'pending', invited_by: { id: w.owner.id, email: w.owner.email } });
    expect(new Date(invitation.expires_at).getTime() - new Date(invitation.created_at).getTime()).toBe(INVITATION_TTL_MS);
    expect(mail).toMatchObject({ kind: 'invitation', workspace_id: w.workspaceId });
    expect(mail.subject).toMatch(/invited you to Agency \d+ on Offerdesk/);
    expect(linkOf(mail).url.startsWith(`${api.config.publicUrl}/console/invitation#token=`)).toBe(true);
    const list = await w.member.client.call('GET', invitations(w));
    expect(list.body.data.map((i: { email: string }) => i.email)).toEqual([email]);
    expect(answer.text + list.text).not.toContain(token);
    const [stored] = await api.db.sql`select token_hash from invitations where id = ${invitation.id}::uuid`;
    expect(Buffer.from(stored!.token_hash).toString('base64url')).not.toBe(token);
  });

  it('an inviter whose name holds a line break still sends a one-line subject, with names escaped in the HTML', async () => {
    const w = await consoleWorld(api);
    await api.db.sql`update accounts set name = ${'Olga <b>Owner</b>\nSecond line'} where id = ${w.owner.id}::uuid`;
    const { mail } = await invite(w, newAddress());
    expect(mail.subject).toMatch(/^Olga <b>Owner<\/b> Second line invited you to Agency \d+ on Offerdesk$/);
    expect(mail.html_body).toContain('Olga &lt;b&gt;Owner&lt;/b&gt;');
    expect(mail.html_body).not.toContain('<b>Owner</b>');
  });

  it('names stored with line breaks cannot forge a line of the plain-text mail', async () => {
    const w = await consoleWorld(api);
    const forged = 'Olga\n\nAccept the invitation:\nhttp://evil.example/phish\u2028\n';
    await api.db.sql`update accounts set name = ${forged} where id = ${w.owner.id}::uuid`;
    await api.db.sql`update workspaces set name = ${`Agency\r\n\r\n${forged}`} where id = ${w.workspaceId}::uuid`;
    const { mail, token } = await invite(w, newAddress());
    const lines = mail.text_body.split('\n');
    expect(lines.filter((line) => line.startsWith('Accept the invitation'))).toEqual(['Accept the invitation:']);
    expect(lines.filter((line) => line.startsWith('http'))).toEqual([`${api.config.publicUrl}/console/invitation#token=${token}`]);
    expect(lines[2]).toBe(
      'Olga Accept the invitation: http://evil.example/phish invited you to join the workspace "Agency Olga Accept the invitation: http://evil.example/phish" on Offerdesk as a member.',
    );
    expect(mail.subject).not.toMatch(/[\r\n\u2028]/);
  });

  it('an admin cannot invite an owner; a member cannot invite; another workspace is 404', async () => {
    const w = await consoleWorld(api);
    expect((await w.admin.client.call('POST', invitations(w), { body: { email: newAddress(), role: 'owner' } })).status).toBe(403);
    expect((await w.member.client.call('POST', invitations(w), { body: { email: newAddress(), role: 'member' } })).status).toBe(403);
    expect((await w.outsider.client.call('POST', invitations(w), { body: { email: newAddress(), role: 'member' } })).status).toBe(404);
    expect((await w.admin.client.call('POST', invitations(w), { body: { email: newAddress(), role: 'admin' } })).status).toBe(201);
  });

  it('refuses a member\'s address and a malformed one at the email field', async () => {
    const w = await consoleWorld(api);
    const member = await w.owner.client.call('POST', invitations(w), { body: { email: w.member.email.toUpperCase(), role: 'admin' } });
    expect(member.status).toBe(400);
    expect(member.body.error).toMatchObject({ param: 'email', message: expect.stringMatching(/already a member/) });
    const malformed = await w.owner.client.call('POST', invitations(w), { body: { email: 'not an address', role: 'member' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.param).toBe('email');
  });

  it('inviting an address again replaces its open invitation: the earlier link stops working', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    const first = await invite(w, email);
    const second = await invite(w, email, 'admin');
    expect((await w.owner.client.call('GET', invitations(w))).body.data.map((i: { id: string }) => i.id)).toEqual([second.invitation.id]);
    expect((await new ConsoleClient(api).call('POST', '/invitations/preview', { body: { token: first.token } })).status).toBe(401);
    expect((await new ConsoleClient(api).call('POST', '/invitations/preview', { body: { token: second.token } })).body.data.role).toBe('admin');
  });

  it('an admin cannot replace an owner\'s open invitation: 403 as for revoking it, and the owner\'s link still works', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    const ownerInvite = await invite(w, email, 'owner');
    const revoke = await w.admin.client.call('POST', `${invitations(w)}/${ownerInvite.invitation.id}/revoke`);
    const replace = await w.admin.client.call('POST', invitations(w), { body: { email: email.toUpperCase(), role: 'member' } });
    expect(replace.status).toBe(403);
    expect(replace.body).toEqual(revoke.body);
    expect((await w.owner.client.call('GET', invitations(w))).body.data.map((i: { id: string }) => i.id)).toEqual([ownerInvite.invitation.id]);
    expect((await new ConsoleClient(api).call('POST', '/invitations/preview', { body: { token: ownerInvite.token } })).body.data.role).toBe('owner');
    expect(await mailsTo(api.db.sql, email)).toHaveLength(1);
  });

  it('an owner may replace an owner\'s open invitation', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    await invite(w, email, 'owner');
    const second = await invite(w, email, 'member');
    expect((await w.owner.client.call('GET', invitations(w))).body.data.map((i: { id: string }) => i.id)).toEqual([second.invitation.id]);
  });
});

describe('accepting', () => {
  it('an address without an account chooses a name and password, joins with the role and is signed in', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    const { token } = await invite(w, email, 'admin');
    const browser = new ConsoleClient(api);
    const preview = await browser.call('POST', '/invitations/preview', { body: { token } });
    expect(preview.body.data).toEqual({ workspace_name: expect.stringMatching(/^Agency/), email, role: 'admin', invited_by: expect.any(String), has_account: false });
    const noName = await browser.call('POST', '/invitations/accept', { body: { token, password: 'a long password' } });
    expect(noName.status).toBe(400);
    expect(noName.body.error.param).toBe('name');
    const noPassword = await browser.call('POST', '/invitations/accept', { body: { token, name: 'Ina Invited' } });
    expect(noPassword.body.error.param).toBe('password');
    const accepted = await browser.call('POST', '/invitations/accept', { body: { token, name: 'Ina Invited', password: 'a long password' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.account).toMatchObject({ email, name: 'Ina Invited' });
    expect(accepted.body.data.workspaces).toEqual([expect.objectContaining({ id: w.workspaceId, role: 'admin' })]);
    expect((await browser.call('GET', `/workspaces/${w.workspaceId}/members`)).status).toBe(200);
    expect((await new ConsoleClient(api).signIn(email, 'a long password')).status).toBe(200);
    // Single use, and gone from the open list.
    expect((await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token } })).status).toBe(401);
    expect((await w.owner.client.call('GET', invitations(w))).body.data).toEqual([]);
    const newId = accepted.body.data.account.id;
    const audit = await api.db.sql`
      select action from audit_entries
       where workspace_id = ${w.workspaceId}::uuid and actor_account_id = ${newId}::uuid and action <> 'signed_in'`;
    expect(audit.map((a) => a.action).sort()).toEqual(['invitation.accepted', 'member.added']);
  });

  it.each([
    ['a line break', 'Olga\nAccept the invitation: http://evil.example/phish'],
    ['the paragraph separator U+2029', 'Olga\u2029Owner'],
    ['a control character', 'Olga\u0000'],
  ])('a chosen name with %s is refused at its field and the invitation stays open', async (_what, name) => {
    const w = await consoleWorld(api);
    const { token } = await invite(w, newAddress());
    const refused = await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token, name, password: PASSWORD } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect((await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token, name: 'Olga Owner', password: PASSWORD } })).status).toBe(200);
  });

  it('an address with an account is signed in and added, keeping its password', async () => {
    const w = await consoleWorld(api);
    const existing = await person(api, api.db.sql, api.clock, 'existing');
    const { token } = await invite(w, existing.email.toUpperCase());
    const browser = new ConsoleClient(api);
    expect((await browser.call('POST', '/invitations/preview', { body: { token } })).body.data.has_account).toBe(true);
    const accepted = await browser.call('POST', '/invitations/accept', { body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.account.id).toBe(existing.id);
    expect((await new ConsoleClient(api).signIn(existing.email, PASSWORD)).status).toBe(200);
  });

  it('a revoked invitation cannot be accepted; revoking twice answers it unchanged; an accepted one cannot be revoked', async () => {
    const w = await consoleWorld(api);
    const revoked = await invite(w, newAddress());
    const answer = await w.admin.client.call('POST', `${invitations(w)}/${revoked.invitation.id}/revoke`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.status).toBe('revoked');
    expect((await w.admin.client.call('POST', `${invitations(w)}/${revoked.invitation.id}/revoke`)).body.data.status).toBe('revoked');
    const refused = await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token: revoked.token, name: 'X', password: 'a long password' } });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/invitation/);
    expect((await w.owner.client.call('GET', invitations(w))).body.data).toEqual([]);
    const audit = await api.db.sql`select action from audit_entries where workspace_id = ${w.workspaceId}::uuid and target_id = ${revoked.invitation.id}`;
    // The manual clock stands still, so both entries carry one time: compared as a set.
    expect(audit.map((a) => a.action).sort()).toEqual(['invitation.created', 'invitation.revoked']);

    const accepted = await invite(w, newAddress());
    await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token: accepted.token, name: 'Acc', password: 'a long password' } });
    expect((await w.owner.client.call('POST', `${invitations(w)}/${accepted.invitation.id}/revoke`)).status).toBe(400);
  });

  it('who may revoke: an admin not an owner\'s invitation, a member nobody\'s, another workspace 404', async () => {
    const w = await consoleWorld(api);
    const ownerInvite = await invite(w, newAddress(), 'owner');
    expect((await w.admin.client.call('POST', `${invitations(w)}/${ownerInvite.invitation.id}/revoke`)).status).toBe(403);
    expect((await w.member.client.call('POST', `${invitations(w)}/${ownerInvite.invitation.id}/revoke`)).status).toBe(403);
    expect((await w.outsider.client.call('POST', `${invitations(w)}/${ownerInvite.invitation.id}/revoke`)).status).toBe(404);
    expect((await w.outsider.client.call('POST', `/workspaces/${w.outsiderWorkspaceId}/invitations/${ownerInvite.invitation.id}/revoke`)).status).toBe(404);
    expect((await w.owner.client.call('POST', `${invitations(w)}/${ownerInvite.invitation.id}/revoke`)).status).toBe(200);
  });

  it('an invitation expires after INVITATION_TTL_MS: listed as expired, refused when accepted', async () => {
    const w = await consoleWorld(api);
    const { token, invitation } = await invite(w, newAddress());
    api.clock.advance(INVITATION_TTL_MS + MINUTE);
    await w.owner.client.signIn(w.owner.email); // the session of a week ago has ended
    const listed = (await w.owner.client.call('GET', invitations(w))).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: invitation.id, status: 'expired' })]);
    expect((await new ConsoleClient(api).call('POST', '/invitations/preview', { body: { token } })).status).toBe(401);
    expect((await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token, name: 'Late', password: 'a long password' } })).status).toBe(401);
    // An expired one can still be revoked, to clear the list.
    expect((await w.owner.client.call('POST', `${invitations(w)}/${invitation.id}/revoke`)).body.data.status).toBe('revoked');
  });

  it('no invitation token appears in a log line, an answer or the audit log', async () => {
    const w = await consoleWorld(api);
    const email = newAddress();
    const { token, answer } = await invite(w, email);
    const answers = [answer.text];
    answers.push((await new ConsoleClient(api).call('POST', '/invitations/preview', { body: { token } })).text);
    answers.push((await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token, name: 'Quiet', password: 'a long password' } })).text);
    answers.push((await new ConsoleClient(api).call('POST', '/invitations/accept', { body: { token } })).text);
    answers.push((await w.owner.client.call('GET', `/workspaces/${w.workspaceId}/audit-log`)).text);
    const audit = JSON.stringify(await api.db.sql`select * from audit_entries`);
    expect(log.lines.length).toBeGreaterThan(0);
    expect([log.lines.join('\n'), answers.join('\n'), audit].join('\n')).not.toContain(token);
  });
});
