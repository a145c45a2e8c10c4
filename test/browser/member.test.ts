import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/api-keys.js';
import { addEndpoint, testEndpoint } from '../../src/webhooks/management/endpoints.js';
import { describeInBrowser, useConsoleWorld } from './console-fixture.js';

/** Every control of the console that changes something (the permission matrix's "changes" row). */
const CHANGE_CONTROLS = [
  'Create key',
  /^Revoke /,
  'Add endpoint',
  'Send test',
  'Edit',
  'Rotate secret',
  'Resume',
  'Remove',
  'Resend',
  'Preview',
];

/** Each change control on the page: how many there are and how many of them are enabled. */
async function changeControls(page: Page): Promise<{ present: number; enabled: string[] }> {
  let present = 0;
  const enabled: string[] = [];
  for (const name of CHANGE_CONTROLS) {
    const buttons = page.getByRole('button', { name, exact: typeof name === 'string' });
    for (const button of await buttons.all()) {
      present += 1;
      if (await button.isEnabled()) enabled.push((await button.textContent()) ?? String(name));
    }
  }
  return { present, enabled };
}

describeInBrowser('a member in the console (Chromium)', () => {
  const world = useConsoleWorld();

  it('a member sees keys, endpoints and deliveries but no enabled change control', async () => {
    await createApiKey(world.db.sql, world.clock, { workspaceId: world.workspaceId, name: 'Reporting', actingAccountId: world.owner.id });
    const endpoint = await addEndpoint(world.manage, {
      workspaceId: world.workspaceId,
      url: 'https://hooks.test/member-view',
      events: ['offer.sent'],
      actorId: world.owner.id,
    });
    const sent = await testEndpoint(world.manage, { endpointId: endpoint.id, actorId: world.owner.id });
    await world.deliverDue();

    const { page } = await world.open();
    await page.goto(await world.signInLink(world.member));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    await page.getByRole('note').getByText('only owners and admins can change it').waitFor();

    await page.getByRole('article', { name: 'https://hooks.test/member-view' }).waitFor();
    let controls = await changeControls(page);
    expect(controls.enabled).toEqual([]);
    expect(controls.present).toBeGreaterThanOrEqual(5); // Add endpoint, Send test, Edit, Rotate secret, Remove

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('row', { name: /Reporting/ }).getByRole('button').waitFor();
    controls = await changeControls(page);
    expect(controls.enabled).toEqual([]);
    expect(controls.present).toBe(2); // Create key, Revoke Reporting

    await page.goto(`${world.origin}/console/w/${world.workspaceId}/deliveries?endpoint_id=${endpoint.id}`);
    await page.getByRole('cell', { name: 'succeeded' }).waitFor();
    await page.getByRole('form', { name: 'Resend failed deliveries' }).waitFor(); // shown once the endpoint has loaded
    controls = await changeControls(page);
    expect(controls.enabled).toEqual([]);
    expect(controls.present).toBe(1); // Preview (resend failed)

    await page.goto(`${world.origin}/console/w/${world.workspaceId}/deliveries/${sent.delivery_id}`);
    await page.getByRole('heading', { name: 'Delivery of ping (test)', level: 1 }).waitFor();
    controls = await changeControls(page);
    expect(controls.enabled).toEqual([]);
    expect(controls.present).toBe(1); // Resend
  });
});
