import { expect, it } from 'vitest';
import { MINUTE } from '../../src/clock.js';
import { createWorkspace } from '../../src/domain/accounts.js';
import { SESSION_IDLE_MS } from '../../src/domain/sessions.js';
import { addPerson, describeInBrowser, useConsoleWorld } from './console-fixture.js';

describeInBrowser('console sign-in in Chromium', () => {
  const world = useConsoleWorld();

  it('a sign-in link signs in by itself, removes the token from the address and opens the workspace', async () => {
    const { page } = await world.open();
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    expect(page.url()).toBe(`${world.origin}/console/w/${world.workspaceId}/endpoints`);
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    await expect(switcher.locator('option:checked').textContent()).resolves.toBe('Northwind Agency (owner)');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'offerdesk_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
  });

  it('a used sign-in link says so and offers the password form', async () => {
    const link = await world.signInLink(world.owner);
    const first = await world.open();
    await first.page.goto(link);
    await first.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();

    const second = await world.open();
    second.expectProblem(/status of 401/); // the refused link request, logged by Chromium
    await second.page.goto(link);
    await expect(second.page.getByRole('alert').textContent()).resolves.toMatch(/expired or was already used/);
    await second.page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('email and password sign in, and "Sign out" ends the session', async () => {
    const { page } = await world.open();
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByLabel('Email').fill(world.owner.email);
    await page.getByLabel('Password').fill(world.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Offerdesk' }).waitFor();
    expect((await page.context().cookies()).some((c) => c.name === 'offerdesk_session' && c.value !== '')).toBe(false);
  });

  it('a wrong password is refused with a message that does not say which part was wrong', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/status of 401/);
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByLabel('Email').fill(world.owner.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Email or password is wrong.');
  });

  it('a page of the console without a session goes to sign-in, and back there after signing in', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/status of 401/); // the session check of the first page
    await page.goto(`${world.origin}/console/w/${world.workspaceId}/audit-log`);
    await page.getByRole('heading', { name: 'Sign in to Offerdesk' }).waitFor();
    await page.getByLabel('Email').fill(world.owner.email);
    await page.getByLabel('Password').fill(world.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'signed in' }).first().waitFor();
  });

  it('the workspace switcher lists every workspace of the account and switches to it', async () => {
    const admin = await addPerson(world, 'Ada Admin', 'admin');
    const own = await createWorkspace(world.db.sql, world.clock, {
      name: 'Ada Studio',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      offerDomain: null,
      ownerAccountId: admin.id,
    });
    const { page } = await world.open();
    await page.goto(await world.signInLink(admin));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    const switcher = page.getByRole('combobox', { name: 'Workspace' });
    expect((await switcher.locator('option').allTextContents()).sort()).toEqual(['Ada Studio (owner)', 'Northwind Agency (admin)']);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.goto(`${world.origin}/console/w/${world.workspaceId}/api-keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await switcher.selectOption({ label: 'Ada Studio (owner)' });
    await page.waitForURL(`${world.origin}/console/w/${own.id}/api-keys`);
    await page.getByText('No API keys yet.').waitFor();
  });

  it('when the session has expired, the next request sends the page back to sign-in', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/status of 401/); // the request that found the session gone
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    world.clock.advance(SESSION_IDLE_MS + MINUTE);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'Sign in to Offerdesk' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/w/${world.workspaceId}/api-keys`);
  });
});
