import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { DAY } from '../../src/clock.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { describeInBrowser, readmeScreenshotPath, useConsoleWorld } from './console-fixture.js';

const URL_OF_RECEIVER = 'https://hooks.test/offerdesk?source=console';

describeInBrowser('webhook endpoints and the delivery log in the console (Chromium)', () => {
  const world = useConsoleWorld();

  async function signedIn() {
    const opened = await world.open();
    await opened.page.goto(await world.signInLink(world.owner));
    await opened.page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    return opened;
  }

  it('an address the rules refuse shows the rule at the URL field', async () => {
    const { page, expectProblem } = await signedIn();
    expectProblem(/status of 400/); // the refused request, logged by Chromium
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('URL').fill('https://127.0.0.1/hooks');
    await dialog.getByRole('checkbox', { name: 'offer.sent' }).check();
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByRole('alert').waitFor();
    const field = dialog.getByLabel('URL');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    const describedBy = await field.getAttribute('aria-describedby');
    const reason = await dialog.locator(`[id="${describedBy}"]`).textContent();
    expect(reason).toMatch(/\S/);
    expect(reason).not.toMatch(/internal|stack/i);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('add an endpoint, verify a real delivery with the shown secret, send a test, find it in the log, resend it', { timeout: 60_000 }, async () => {
    const { page } = await signedIn();

    // "Add endpoint": URL and one checkbox per event type with its description.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog');
    const sentBox = dialog.getByRole('checkbox', { name: 'offer.sent', exact: true });
    await sentBox.waitFor(); // the event types have loaded
    await expect(dialog.getByRole('checkbox').count()).resolves.toBe(6);
    const description = await dialog.locator(`[id="${await sentBox.getAttribute('aria-describedby')}"]`).textContent();
    expect(description).toMatch(/\w+ \w+/);
    await dialog.getByLabel('URL').fill(URL_OF_RECEIVER);
    await sentBox.check();
    await dialog.getByRole('checkbox', { name: 'offer.accepted', exact: true }).check();
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await dialog.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await dialog.getByText('it will not be shown again').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();

    const card = page.getByRole('article', { name: URL_OF_RECEIVER });
    await card.getByText('0 of 5 before pause').waitFor();
    await card.getByText('active', { exact: true }).waitFor();
    await expect(card.getByRole('listitem').allTextContents()).resolves.toEqual(['offer.sent', 'offer.accepted']);

    // A real event, delivered over HTTPS and verified with the secret the page showed.
    const offer = await createOffer(world.db.sql, world.clock, { workspaceId: world.workspaceId, title: 'Website relaunch' });
    await sendOffer(world.db.sql, world.clock, {
      offerId: offer.id,
      recipientEmail: 'bea@client.test',
      expiresAt: new Date(world.clock.now().getTime() + 14 * DAY),
    });
    await world.deliverDue();
    expect(world.receiver.requests).toHaveLength(1);
    const first = world.receiver.requests[0]!;
    const event = new Webhook(secret).verify(first.body.toString('utf8'), first.headers) as { type: string };
    expect(event.type).toBe('offer.sent');

    // "Send test": a ping, verified the same way.
    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByText('Test webhook queued').waitFor();
    await world.deliverDue();
    expect(world.receiver.requests).toHaveLength(2);
    const ping = world.receiver.requests[1]!;
    expect((new Webhook(secret).verify(ping.body.toString('utf8'), ping.headers) as { type: string }).type).toBe('ping');

    // The endpoint's delivery log: both, succeeded, with the receiver's status.
    await card.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByRole('heading', { name: 'Delivery log of one endpoint', level: 1 }).waitFor();
    const rows = page.getByRole('table').getByRole('row');
    const pingRow = rows.filter({ hasText: 'ping' });
    await pingRow.waitFor();
    await expect.poll(() => rows.count()).toBe(3); // header + 2
    await expect(pingRow.getByRole('cell').allTextContents()).resolves.toEqual([
      expect.any(String),
      'ping (test)',
      '—',
      URL_OF_RECEIVER,
      'succeeded',
      expect.stringMatching(/^1 of \d+$/),
      '200',
      '—',
    ]);
    await rows.filter({ hasText: 'offer.sent' }).getByRole('cell', { name: 'succeeded' }).waitFor();

    // Filters: status failed finds nothing; search by the ping's webhook-id finds it alone.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No delivery matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Webhook-id or offer id').fill(ping.headers['webhook-id']!);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/q=/);
    await expect.poll(() => rows.count()).toBe(2); // header + the ping

    // The delivery's page: exact body and headers sent, every attempt; "Resend" counts to 5.
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Delivery of ping (test)', level: 1 }).waitFor();
    await expect(page.getByLabel('Body sent').textContent()).resolves.toBe(ping.body.toString('utf8'));
    const idRow = page.getByRole('row', { name: /^webhook-id / });
    await expect(idRow.getByRole('cell').textContent()).resolves.toBe(ping.headers['webhook-id']);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('cell', { name: 'HTTP 200' }).waitFor();
    await page.getByText('Resends: 0 of 5').waitFor();
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Resends: 1 of 5').waitFor();
    await world.deliverDue();
    expect(world.receiver.requests).toHaveLength(3);
    expect(world.receiver.requests[2]!.headers['webhook-id']).toBe(ping.headers['webhook-id']);
    await page.reload();
    await expect.poll(() => page.getByRole('table', { name: 'Attempts, first to last' }).getByRole('row').count()).toBe(3); // header + 2

    // The endpoints page with a day of traffic: the README's screenshot.
    await page.getByRole('link', { name: 'Webhook endpoints' }).click();
    await card.getByText(/100% succeeded, 3 attempts/).waitFor();
    await card.getByRole('img', { name: /Attempts per hour over the last 24 hours: 3 in all, 0 failed/ }).waitFor();
    await page.setViewportSize({ width: 1280, height: 400 });
    await page.screenshot({ path: readmeScreenshotPath('console.png') });
  });

  it('editing an endpoint re-checks its URL and changes its events; removing it says waiting events are dropped', async () => {
    const url = 'https://hooks.test/edit-me';
    await addEndpoint(world.manage, { workspaceId: world.workspaceId, url, events: ['offer.sent', 'offer.accepted'], actorId: world.owner.id });
    const { page, expectProblem } = await signedIn();
    expectProblem(/status of 400/); // the refused new address, logged by Chromium
    const card = page.getByRole('article', { name: url });
    await card.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit endpoint' });
    await expect(dialog.getByLabel('URL').inputValue()).resolves.toBe(url);
    // A changed URL is checked by the same rules as a new one.
    await dialog.getByLabel('URL').fill('https://localhost/hooks');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByRole('alert').waitFor();
    await expect(dialog.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');
    await dialog.getByLabel('URL').fill(url);
    await dialog.getByRole('checkbox', { name: 'offer.accepted', exact: true }).uncheck();
    await dialog.getByRole('checkbox', { name: 'offer.withdrawn', exact: true }).check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await card.getByText('offer.withdrawn').waitFor();
    await expect(card.getByRole('listitem').allTextContents()).resolves.toEqual(['offer.sent', 'offer.withdrawn']);

    await card.getByRole('button', { name: 'Remove' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove this endpoint?' });
    await confirm.getByText('waiting to be delivered to it are dropped').waitFor();
    await confirm.getByRole('button', { name: 'Remove endpoint' }).click();
    await card.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');
  });

  it('"Rotate secret" shows the new secret once; webhooks verify with it and no longer with the old', async () => {
    const url = 'https://hooks.test/rotate-me';
    const old = await addEndpoint(world.manage, { workspaceId: world.workspaceId, url, events: ['offer.sent'], actorId: world.owner.id });
    const { page } = await signedIn();
    const card = page.getByRole('article', { name: url });
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await confirm.getByText('the old secret stops working at once').waitFor();
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'New signing secret' });
    const secret = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(old.secret);
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });

    const before = world.receiver.requests.length;
    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByText('Test webhook queued').waitFor();
    await world.deliverDue();
    const ping = world.receiver.requests.slice(before).find((r) => r.path === '/rotate-me');
    expect(ping).toBeDefined();
    const body = ping!.body.toString('utf8');
    expect((new Webhook(secret).verify(body, ping!.headers) as { type: string }).type).toBe('ping');
    expect(() => new Webhook(old.secret).verify(body, ping!.headers)).toThrow();
  });
});
