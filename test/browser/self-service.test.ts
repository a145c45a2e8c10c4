import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { addPerson, describeInBrowser, readmeScreenshotPath, useConsoleWorld } from './console-fixture.js';
import { useMailbox } from './mailbox.js';

/**
 * The console's self-service in Chromium, with every mail read from a real SMTP server: sign in
 * by an emailed link, reset a forgotten password, invite a colleague and sign in as them, revoke
 * an invitation, switch endpoint health mails off.
 */
describeInBrowser('self-service in the console (Chromium, mail over SMTP)', () => {
  const world = useConsoleWorld();
  const mailbox = useMailbox(world);

  it('"Email me a sign-in link" mails a link that signs in', async () => {
    const person = await addPerson(world, 'Lina Link', 'admin');
    const { page } = await world.open();
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`If ${person.email} has an account, a sign-in link is on its way.`).waitFor();

    const mail = await mailbox.next(person.email);
    expect(mail.subject).toBe('Your Offerdesk sign-in link');
    expect(mail.link.startsWith(`${world.origin}/console/sign-in#token=`)).toBe(true);
    expect(mail.html).toContain('Sign in to Offerdesk');
    await page.goto(mail.link);
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    expect(page.url()).not.toContain('token');
  });

  it('an unknown address gets the same words and no mail', async () => {
    const { page } = await world.open();
    const ghost = `ghost-${randomBytes(3).toString('hex')}@agency.test`;
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByLabel('Email').fill(ghost);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`If ${ghost} has an account, a sign-in link is on its way.`).waitFor();
    // The outbox row would have been written in the request's own transaction, before the answer.
    const [row] = await world.db.sql`select count(*)::int as mails from mail_outbox where recipient = ${ghost}`;
    expect(row!.mails).toBe(0);
  });

  it('a forgotten password is reset by emailed link; the other session ends', async () => {
    const person = await addPerson(world, 'Fred Forgetful', 'member');
    const elsewhere = await world.open();
    elsewhere.expectProblem(/status of 401/); // its session ends with the reset
    await elsewhere.page.goto(await world.signInLink(person));
    await elsewhere.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();

    const { page } = await world.open();
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(person.email);
    await page.getByRole('button', { name: 'Email me a reset link' }).click();
    await page.getByText('a password-reset link is on its way').waitFor();

    const mail = await mailbox.next(person.email);
    expect(mail.subject).toBe('Reset your Offerdesk password');
    await page.goto(mail.link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password').fill('my new secret password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();

    await elsewhere.page.getByRole('link', { name: 'API keys' }).click();
    await elsewhere.page.getByRole('heading', { name: 'Sign in to Offerdesk' }).waitFor();
    await elsewhere.page.getByLabel('Email').fill(person.email);
    await elsewhere.page.getByLabel('Password').fill('my new secret password');
    await elsewhere.page.getByRole('button', { name: 'Sign in' }).click();
    await elsewhere.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  });

  it('an owner invites a colleague by email, who accepts with a new account and lands in the workspace', async () => {
    const owner = await world.open();
    await owner.page.goto(await world.signInLink(world.owner));
    await owner.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await owner.page.getByRole('link', { name: 'Members' }).click();
    await owner.page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    const invitee = 'nora.new@agency.test';
    await owner.page.getByLabel('Email').fill(invitee);
    await owner.page.getByLabel('Role', { exact: true }).selectOption('admin');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.getByText(`Invitation sent to ${invitee}.`).waitFor();
    await owner.page.getByRole('row', { name: new RegExp(invitee) }).getByText('pending').waitFor();

    const mail = await mailbox.next(invitee);
    expect(mail.subject).toBe('Olivia Owner invited you to Northwind Agency on Offerdesk');
    const guest = await world.open();
    await guest.page.goto(mail.link);
    await guest.page.getByText(`Olivia Owner invited ${invitee} to Northwind Agency as an admin.`).waitFor();
    expect(guest.page.url()).not.toContain('token');
    await guest.page.getByLabel('Your name').fill('Nora New');
    await guest.page.getByLabel('Password').fill('nora chooses this one');
    await guest.page.getByRole('button', { name: 'Accept and create account' }).click();
    await guest.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    const switcher = guest.page.getByRole('combobox', { name: 'Workspace' });
    await expect(switcher.locator('option:checked').textContent()).resolves.toBe('Northwind Agency (admin)');

    await owner.page.reload();
    await owner.page.getByRole('row', { name: /Nora New/ }).waitFor();
    await owner.page.getByText('No pending invitations.').waitFor();
    await expect(owner.page.getByRole('combobox', { name: 'Role of Nora New' }).inputValue()).resolves.toBe('admin');

    // The Members page with people and a pending invitation: the README's screenshot.
    await owner.page.getByLabel('Email').fill('sam.sales@agency.test');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.getByRole('row', { name: /sam\.sales@agency\.test/ }).waitFor();
    await owner.page.getByLabel('Email').blur();
    await owner.page.setViewportSize({ width: 1280, height: 800 });
    await owner.page.screenshot({ path: readmeScreenshotPath('members.png'), fullPage: true });
  });

  it('a revoked invitation no longer works', async () => {
    const owner = await world.open();
    await owner.page.goto(await world.signInLink(world.owner));
    await owner.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await owner.page.goto(`${world.origin}/console/w/${world.workspaceId}/members`);
    const invitee = `rex-${randomBytes(3).toString('hex')}@agency.test`;
    await owner.page.getByLabel('Email').fill(invitee);
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.getByRole('button', { name: `Revoke the invitation of ${invitee}` }).click();
    await owner.page.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await owner.page.getByRole('row', { name: new RegExp(invitee) }).waitFor({ state: 'detached' });

    const mail = await mailbox.next(invitee);
    const guest = await world.open();
    guest.expectProblem(/status of 401/); // the refused invitation, logged by Chromium
    await guest.page.goto(mail.link);
    await expect(guest.page.getByRole('alert').textContent()).resolves.toMatch(/This invitation was used, revoked or has expired/);
  });

  it('a member switches their endpoint health mails off on the account page', async () => {
    const { page } = await world.open();
    await page.goto(await world.signInLink(world.member));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await page.getByRole('link', { name: world.member.name }).click();
    const toggle = page.getByRole('checkbox', { name: 'Endpoint health mails for Northwind Agency' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await page.getByText('Endpoint health mails for Northwind Agency are off.').waitFor();
    const [row] = await world.db.sql`
      select endpoint_notices from memberships where workspace_id = ${world.workspaceId}::uuid and account_id = ${world.member.id}::uuid`;
    expect(row!.endpoint_notices).toBe(false);
    await page.reload();
    expect(await page.getByRole('checkbox', { name: 'Endpoint health mails for Northwind Agency' }).isChecked()).toBe(false);
  });
});
