import { expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { describeInBrowser, useConsoleWorld } from './console-fixture.js';

const URL_DOWN = 'https://hooks.test/down';
/** openapi.yaml "Webhook delivery and retries": 8 attempts, the longest pause 8 hours. */
const ATTEMPTS = 8;
const LONGEST_PAUSE = 8 * HOUR;

describeInBrowser('an endpoint that was down, in the console (Chromium)', () => {
  const world = useConsoleWorld();

  it('shows why deliveries wait, pauses after 5 final failures, resumes, and resends the failed ones', { timeout: 90_000 }, async () => {
    let down = true;
    world.receiver.reply(() => (down ? { status: 503, body: 'maintenance' } : { status: 200, body: 'ok' }));
    const { id: endpointId } = await addEndpoint(world.manage, {
      workspaceId: world.workspaceId,
      url: URL_DOWN,
      events: ['offer.sent'],
      actorId: world.owner.id,
    });
    for (let i = 1; i <= 5; i++) {
      const offer = await createOffer(world.db.sql, world.clock, { workspaceId: world.workspaceId, title: `Offer ${i}` });
      await sendOffer(world.db.sql, world.clock, {
        offerId: offer.id,
        recipientEmail: `buyer${i}@client.test`,
        expiresAt: new Date(world.clock.now().getTime() + 30 * DAY),
      });
    }
    await world.deliverDue();

    const { page } = await world.open();
    await page.goto(await world.signInLink(world.owner));
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
    const card = page.getByRole('article', { name: URL_DOWN });
    await card.getByRole('link', { name: 'Delivery log' }).click();

    // Waiting after the first failed attempt: the status, the reply's status, when and why.
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(6); // header + 5
    const first = rows.nth(1);
    await expect(first.getByRole('cell').allTextContents()).resolves.toEqual([
      expect.any(String),
      'offer.sent',
      expect.stringMatching(/^[0-9a-f]{8}$/),
      URL_DOWN,
      'pending',
      `1 of ${ATTEMPTS}`,
      '503',
      expect.stringMatching(/pause before the next retry$/),
    ]);

    // Every retry fails; the fifth final failure in a row pauses the endpoint. The days that takes
    // also end the session (idle 2 h, 12 h at most), so the owner signs in again afterwards.
    await page.goto('about:blank');
    for (let attempt = 2; attempt <= ATTEMPTS; attempt++) {
      world.clock.advance(LONGEST_PAUSE);
      await world.deliverDue();
    }
    await page.goto(await world.signInLink(world.owner));
    await card.getByText('paused', { exact: true }).waitFor();
    await card.getByText(/after 5 deliveries in a row failed finally, since/).waitFor();
    await card.getByText('5 of 5 before pause').waitFor();

    // Back up: resume, then resend what failed while it was down.
    down = false;
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByText('active', { exact: true }).waitFor();
    await card.getByRole('link', { name: 'Delivery log' }).click();
    await expect.poll(() => rows.filter({ hasText: 'failed' }).count()).toBe(5);
    const resend = page.getByRole('form', { name: 'Resend failed deliveries' });
    // The clock of the service ran ahead of the browser's: ask from well before both.
    await resend.getByLabel('Resend failed since').fill('2020-01-01T00:00');
    await resend.getByRole('button', { name: 'Preview' }).click();
    await resend.getByText('5 failed deliveries since then will be sent again.').waitFor();
    await resend.getByRole('button', { name: 'Resend 5 failed' }).click();
    await resend.getByText('Resent 5.').waitFor();

    const before = world.receiver.requests.length;
    await world.deliverDue();
    expect(world.receiver.requests.length - before).toBe(5);
    await page.reload();
    await expect.poll(() => rows.filter({ hasText: 'succeeded' }).count()).toBe(5);
    expect(await page.evaluate(`fetch('/console/api/workspaces/${world.workspaceId}/endpoints/${endpointId}').then((r) => r.json())`)).toMatchObject({
      data: { state: 'active', failure_streak: 0 },
    });
  });
});
