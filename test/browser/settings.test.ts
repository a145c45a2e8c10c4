import { expect, it } from 'vitest';
import { addPerson, describeInBrowser, useConsoleWorld } from './console-fixture.js';

/** The Settings page: the offer-page domain, its DNS TXT record, and verifying it (owners only). */
describeInBrowser('workspace settings in the console (Chromium)', () => {
  const world = useConsoleWorld();

  it('an owner sets the offer domain, is shown the TXT record, and verifies it once the record exists', async () => {
    const { page, expectProblem } = await world.open();
    expectProblem(/status of 400/); // the first check, before the record exists
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('No offer domain is set.').waitFor();
    await page.getByLabel('Domain').fill('offers.northwind.example');
    await page.getByRole('button', { name: 'Save domain' }).click();
    await page.getByText('not verified').waitFor();
    const row = page.getByRole('table', { name: 'The DNS record that verifies the domain' }).getByRole('row').nth(1);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toContain('_offerdesk-verify.offers.northwind.example');
    expect(cells[1]).toBe('TXT');
    const value = /offerdesk-verify=\S+/.exec(cells[2]!)![0];

    await page.getByRole('button', { name: 'Verify domain' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/No TXT record _offerdesk-verify\.offers\.northwind\.example/);
    world.dnsTxt.set('_offerdesk-verify.offers.northwind.example', [[value]]);
    await page.getByRole('button', { name: 'Verify domain' }).click();
    await page.getByText('The domain is verified.').waitFor();
    await page.getByText('verified', { exact: true }).waitFor();
  });

  it('an admin sees the domain but no control to change it', async () => {
    const admin = await addPerson(world, 'Adam Admin', 'admin');
    const { page } = await world.open();
    await page.goto(await world.signInLink(admin));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('Only owners of this workspace can change the domain.').waitFor();
    await page.getByRole('heading', { name: 'Offer-page domain' }).waitFor();
    expect(await page.getByRole('button', { name: /Save domain|Verify domain|Remove domain/ }).count()).toBe(0);
  });
});
