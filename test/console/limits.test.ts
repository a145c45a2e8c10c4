import { describe, expect, it } from 'vitest';
import { addMember, createWorkspace } from '../../src/domain/accounts.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { MAX_ENDPOINTS_PER_WORKSPACE, MAX_TEST_EVENTS_PER_WINDOW, MAX_WORKSPACES_PER_ACCOUNT } from '../../src/webhooks/engine/policy.js';
import { consoleWorld, useConsoleApi } from './helpers.js';

/** console-api.yaml "Limits" hold through the console exactly as in the CLI: one domain function behind both. */
const ctx = useConsoleApi();

describe('limits through the console', () => {
  it('allows 5 endpoints per workspace and answers the 6th with 409 limit_reached', async () => {
    const world = await consoleWorld(ctx.api);
    const path = `/workspaces/${world.workspaceId}/endpoints`;
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++) {
      expect((await world.owner.client.call('POST', path, { body: { url: `https://hooks.test/${i}`, events: ['offer.sent'] } })).status).toBe(201);
    }
    const sixth = await world.admin.client.call('POST', path, { body: { url: 'https://hooks.test/6', events: ['offer.sent'] } });
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.code).toBe('limit_reached');
    expect(sixth.body.error.message).toMatch(/already has 5 endpoints/);
    expect((await world.owner.client.call('GET', path)).body.data).toHaveLength(MAX_ENDPOINTS_PER_WORKSPACE);
  });

  it('allows 10 tests per 10 minutes per endpoint', async () => {
    const world = await consoleWorld(ctx.api);
    const created = await world.owner.client.call('POST', `/workspaces/${world.workspaceId}/endpoints`, {
      body: { url: 'https://hooks.test/t', events: ['offer.sent'] },
    });
    const test = `/workspaces/${world.workspaceId}/endpoints/${created.body.data.id}/test`;
    for (let i = 0; i < MAX_TEST_EVENTS_PER_WINDOW; i++) expect((await world.owner.client.call('POST', test)).status).toBe(202);
    const eleventh = await world.owner.client.call('POST', test);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe('limit_reached');
    ctx.api.clock.advance(10 * 60_000);
    expect((await world.owner.client.call('POST', test)).status).toBe(202);
  });

  it('an account adds endpoints in at most 20 workspaces (the CLI\'s count and the console\'s are one)', async () => {
    const world = await consoleWorld(ctx.api);
    const actor = world.admin;
    const manage = {
      sql: ctx.api.db.sql,
      clock: ctx.api.clock,
      config: ctx.api.config.webhooks,
      masterKey: Buffer.from(ctx.api.config.webhooks.masterKey!, 'base64'),
    };
    // 19 others through the domain (as the CLI would), the 20th through the console.
    for (let i = 0; i < MAX_WORKSPACES_PER_ACCOUNT - 1; i++) {
      const { id } = await createWorkspace(ctx.api.db.sql, ctx.api.clock, { name: `W${i}`, timezone: 'UTC', currency: 'EUR', ownerAccountId: actor.id });
      await addEndpoint(manage, { workspaceId: id, url: 'https://hooks.test/w', events: ['offer.sent'], actorId: actor.id });
    }
    const path = `/workspaces/${world.workspaceId}/endpoints`;
    expect((await actor.client.call('POST', path, { body: { url: 'https://hooks.test/20', events: ['offer.sent'] } })).status).toBe(201);
    const { id: extra } = await createWorkspace(ctx.api.db.sql, ctx.api.clock, { name: 'W21', timezone: 'UTC', currency: 'EUR', ownerAccountId: world.owner.id });
    await addMember(ctx.api.db.sql, ctx.api.clock, { actorId: null, workspaceId: extra, accountId: actor.id, role: 'admin' });
    const refused = await actor.client.call('POST', `/workspaces/${extra}/endpoints`, { body: { url: 'https://hooks.test/21', events: ['offer.sent'] } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/20 workspaces/);
  });

  it('refuses an address by the same rules, with the reason at the field "url"', async () => {
    const world = await consoleWorld(ctx.api);
    const path = `/workspaces/${world.workspaceId}/endpoints`;
    for (const url of ['http://hooks.test/x', 'https://127.0.0.1/x', 'https://user:pw@hooks.test/x']) {
      const answer = await world.owner.client.call('POST', path, { body: { url, events: ['offer.sent'] } });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
      expect(answer.body.error.message).not.toMatch(/refused:/);
    }
    const created = await world.owner.client.call('POST', path, { body: { url: 'https://hooks.test/ok', events: ['offer.sent'] } });
    const changed = await world.owner.client.call('PATCH', `${path}/${created.body.data.id}`, { body: { url: 'http://hooks.test/plain' } });
    expect(changed.status).toBe(400);
    expect(changed.body.error.param).toBe('url');
    const kept = await world.owner.client.call('GET', `${path}/${created.body.data.id}`);
    expect(kept.body.data.url).toBe('https://hooks.test/ok');
  });

  it('refuses ping and unknown event types', async () => {
    const world = await consoleWorld(ctx.api);
    const path = `/workspaces/${world.workspaceId}/endpoints`;
    for (const events of [['ping'], ['offer.declined'], []]) {
      const answer = await world.owner.client.call('POST', path, { body: { url: 'https://hooks.test/e', events } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.param).toBe('events');
    }
  });
});
