import { expect, it } from 'vitest';
import { createSignInLink, signInLinkUrl } from '../../src/domain/sign-in-links.js';
import { enqueueMail } from '../../src/mail/outbox.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { describeInBrowser, useConsoleWorld } from './console-fixture.js';

/**
 * Mail on the embedded default, in Chromium: the sign-in page points to the development mailbox,
 * a signed-out visitor reads the sign-in mail there and follows its link; an endpoint told as
 * failing shows since when.
 */
describeInBrowser('mail in the console (Chromium)', () => {
  const world = useConsoleWorld();

  it('a signed-out visitor finds the sign-in mail in the mailbox and signs in with its link', async () => {
    const { token } = await createSignInLink(world.db.sql, world.clock, { accountId: world.owner.id });
    const link = signInLinkUrl(world.origin, token);
    await world.db.sql.begin((tx) =>
      enqueueMail(tx, {
        kind: 'sign_in_link',
        to: world.owner.email,
        subject: 'Your Offerdesk sign-in link',
        text: `Sign in within 15 minutes:\n${link}\n`,
        html: `<p><a href="${link}">Sign in</a></p>`,
      }),
    );

    const { page } = await world.open();
    await page.goto(`${world.origin}/console/sign-in`);
    await page.getByRole('link', { name: 'read sign-in links and invitations in the mailbox' }).click();
    await page.getByRole('heading', { name: 'Mailbox (this machine only)', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: /Your Offerdesk sign-in link/ });
    await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe(world.owner.email);
    await row.getByRole('link', { name: 'Your Offerdesk sign-in link' }).click();
    await page.getByRole('heading', { name: 'Your Offerdesk sign-in link', level: 1 }).waitFor();
    await page.getByRole('link', { name: link }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints', level: 1 }).waitFor();
  });

  it('shows since when an endpoint is failing once its owners and admins were told', async () => {
    const url = 'https://hooks.test/failing';
    const { id } = await addEndpoint(world.manage, { workspaceId: world.workspaceId, url, events: ['offer.sent'], actorId: world.owner.id });
    const since = new Date(world.clock.now().getTime() - 2 * 3_600_000);
    // The state the health notices leave behind (test/mail/endpoint-notices.test.ts drives them).
    await world.db.sql`update webhook_endpoints set health_state = 'failing', failing_since = ${since} where id = ${id}::uuid`;

    const { page } = await world.open();
    await page.goto(await world.signInLink(world.owner));
    const card = page.getByRole('article', { name: url });
    const status = card.getByRole('status').filter({ hasText: /^Failing since/ });
    await status.waitFor();
    await expect(status.textContent()).resolves.toMatch(/^Failing since .+: no attempt has succeeded since\. Owners and admins were told by mail\.$/);
    await expect(status.locator('time').getAttribute('datetime')).resolves.toBe(since.toISOString());
  });
});
