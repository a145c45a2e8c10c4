import { expect, it } from 'vitest';
import { describeInBrowser, useConsoleWorld } from './console-fixture.js';

describeInBrowser('API keys in the console (Chromium)', () => {
  const world = useConsoleWorld();

  const readWorkspace = (key: string) =>
    fetch(`${world.origin}/api/v1/workspace`, { headers: { authorization: `Bearer ${key}` } });

  it('"Create key" shows the value once; it reads /api/v1/workspace; "Revoke" ends it at once', async () => {
    const { page } = await world.open({ clipboard: true });
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No API keys yet.').waitFor();

    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('CRM sync');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const valueField = dialog.getByRole('textbox', { name: 'New API key' });
    const value = await valueField.inputValue();
    expect(value).toMatch(/^odk_live_[0-9A-Za-z]+$/);
    await expect(dialog.getByText('it will not be shown again').count()).resolves.toBe(1);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('status').getByText('Copied.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(value);

    const answer = await readWorkspace(value);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { id: string } }).data.id).toBe(world.workspaceId);

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The list shows the prefix and never the value.
    const row = page.getByRole('row', { name: /CRM sync/ });
    await row.getByRole('cell', { name: 'active' }).waitFor();
    const rowText = (await row.textContent()) ?? '';
    expect(rowText).toContain(value.slice(0, 13));
    expect(rowText).not.toContain(value);
    expect(await page.content()).not.toContain(value);
    // Focus returned to the button that opened the dialog.
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Create key');

    await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.getByRole('cell', { name: 'revoked' }).waitFor();
    // The Revoke button is gone with the key's activity; focus lands on the page's heading.
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');
    expect((await readWorkspace(value)).status).toBe(401);
  });

  it('a key with "Expires at" shows its expiry; one in the past is refused at the field', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/status of 400/); // the refused expiry, logged by Chromium
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Old one');
    await dialog.getByLabel('Expires at').fill('2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(/future/i);

    await dialog.getByLabel('Expires at').fill('2099-06-30T12:00');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByRole('textbox', { name: 'New API key' }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /Old one/ });
    await expect(row.locator('time').nth(1).getAttribute('datetime')).resolves.toBe('2099-06-30T10:00:00.000Z');
  });

  it('Escape closes the dialog and gives focus back to the button that opened it', async () => {
    const { page } = await world.open();
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('link', { name: 'API keys' }).click();
    const open = page.getByRole('button', { name: 'Create key' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('key-name');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Create key');
  });

  it('when the server cannot be reached, the list says what to do and "Try again" loads it', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/net::ERR_CONNECTION_REFUSED/); // the refused requests, logged by Chromium
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    // The one thing not real here: the network failing, which a browser test cannot cause otherwise.
    await page.route('**/console/api/workspaces/*/api-keys*', (route) => route.abort('connectionrefused'));
    await page.getByRole('link', { name: 'API keys' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toMatch(/Could not load API keys\. The server could not be reached\. Check that it is running, then try again\./);
    await page.unroute('**/console/api/workspaces/*/api-keys*');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await alert.waitFor({ state: 'detached' });
    await page.getByRole('table').or(page.getByText('No API keys yet.')).first().waitFor();
  });
});
