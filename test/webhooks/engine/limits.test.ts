import { describe, expect, it } from 'vitest';
import { MINUTE, SECOND } from '../../../src/clock.js';
import { markEndpointPaused } from '../../../src/webhooks/sql/markEndpointPaused.js';
import { addEndpoint, removeEndpoint, testEndpoint } from '../../../src/webhooks/management/endpoints.js';
import {
  MAX_ENDPOINTS_PER_WORKSPACE,
  MAX_TEST_EVENTS_PER_WINDOW,
  MAX_WORKSPACES_PER_ACCOUNT,
} from '../../../src/webhooks/engine/policy.js';
import { addMember } from '../../../src/domain/accounts.js';
import { withdrawOffer } from '../../../src/domain/offer-actions.js';
import { endpoint, manyEvents, sentOffer, useEngineFixture, workspace } from './helpers.js';

// Enough attempt slots that only the start rate limits a batch (per-endpoint share = 64).
const f = useEngineFixture({ concurrency: 256 });

describe('console-api.yaml "Limits" (management and rate)', () => {
  it('allows 5 endpoints per workspace and refuses the 6th', async () => {
    const ws = await workspace(f);
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++) await endpoint(f, ws, { url: `https://hooks.test/${i}` });
    const sixth = endpoint(f, ws, { url: 'https://hooks.test/6' });
    await expect(sixth).rejects.toThrow(/already has 5 endpoints/);
    await expect(sixth).rejects.toMatchObject({ code: 'limit_reached', errorCode: 'OD_ERR_ENDPOINTS_PER_WORKSPACE' });
  });

  it('lets an account create endpoints in 20 workspaces, paused ones counting, and refuses a 21st', async () => {
    const first = await workspace(f);
    const actor = first.ownerId;
    const workspaces = [first.workspaceId];
    for (let i = 1; i <= MAX_WORKSPACES_PER_ACCOUNT; i++) {
      const ws = await workspace(f);
      await addMember(f.sql, f.clock, { actorId: null, workspaceId: ws.workspaceId, accountId: actor, role: 'admin' });
      workspaces.push(ws.workspaceId);
    }
    const ids: string[] = [];
    for (const workspaceId of workspaces.slice(0, MAX_WORKSPACES_PER_ACCOUNT)) {
      ids.push((await addEndpoint(f.manage, { workspaceId, url: 'https://hooks.test/x', events: ['offer.sent'], actorId: actor })).id);
    }
    await markEndpointPaused(f.sql, { endpointId: ids[0]!, now: f.clock.now() });
    const last = workspaces[MAX_WORKSPACES_PER_ACCOUNT]!;
    const add21st = () => addEndpoint(f.manage, { workspaceId: last, url: 'https://hooks.test/x', events: ['offer.sent'], actorId: actor });

    const refused = add21st();
    await expect(refused).rejects.toThrow(/already has endpoints in 20 workspaces/);
    await expect(refused).rejects.toMatchObject({ code: 'limit_reached', errorCode: 'OD_ERR_WORKSPACES_PER_ACCOUNT' });
    // A second endpoint in a workspace already counted is fine.
    await expect(
      addEndpoint(f.manage, { workspaceId: workspaces[1]!, url: 'https://other.test/y', events: ['offer.sent'], actorId: actor }),
    ).resolves.toHaveProperty('id');
    await removeEndpoint(f.manage, { endpointId: ids[0]!, actorId: actor });
    await expect(add21st()).resolves.toHaveProperty('id');
  });

  it('starts at most 60 deliveries per minute per workspace; the excess waits for the next window', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 70);
    await f.engine.fanOut();

    expect(await f.engine.dispatchOnce()).toHaveLength(60);
    expect(await f.engine.dispatchOnce()).toHaveLength(0);
    f.clock.advance(MINUTE - 1);
    expect(await f.engine.dispatchOnce()).toHaveLength(0);
    f.clock.advance(1);
    expect(await f.engine.dispatchOnce()).toHaveLength(10);
    expect(new Set(f.sender.sent.map((s) => s.messageId)).size).toBe(70);
  });

  it("counts one workspace's starts apart from another's", async () => {
    const busy = await workspace(f);
    const quiet = await workspace(f);
    await endpoint(f, busy);
    await endpoint(f, quiet, { url: 'https://other.test/q' });
    await manyEvents(f, busy.workspaceId, 65);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();
    await sentOffer(f, quiet.workspaceId);
    f.clock.advance(10 * SECOND);
    await f.engine.fanOut();

    const outcomes = await f.engine.dispatchOnce();

    expect(outcomes).toHaveLength(1);
    expect(f.sender.sent.at(-1)!.url).toBe('https://other.test/q');
  });

  it('allows 10 tests per 10 minutes per endpoint', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    const other = await endpoint(f, ws, { url: 'https://other.test/x' });
    for (let i = 0; i < MAX_TEST_EVENTS_PER_WINDOW; i++) {
      await testEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
      f.clock.advance(30 * SECOND);
    }
    const eleventh = testEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await expect(eleventh).rejects.toThrow(/10 tests in the last 10 minutes/);
    await expect(eleventh).rejects.toMatchObject({ code: 'limit_reached', errorCode: 'OD_ERR_TEST_EVENTS' });
    await expect(testEndpoint(f.manage, { endpointId: other.id, actorId: ws.ownerId })).resolves.toHaveProperty('webhook_id');
    f.clock.advance(10 * MINUTE - 9 * 30 * SECOND);
    await expect(testEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId })).resolves.toHaveProperty('webhook_id');
  });

  it("drops the workspace's waiting events when its last endpoint is removed", async () => {
    const ws = await workspace(f);
    const one = await endpoint(f, ws);
    const two = await endpoint(f, ws, { url: 'https://other.test/x' });
    await sentOffer(f, ws.workspaceId);

    expect(await removeEndpoint(f.manage, { endpointId: one.id, actorId: ws.ownerId })).toMatchObject({ dropped_events: 0 });
    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(1);
    expect(await removeEndpoint(f.manage, { endpointId: two.id, actorId: ws.ownerId })).toMatchObject({ dropped_events: 1 });
    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(0);
  });

  it('keeps the waiting events of other workspaces when a last endpoint is removed', async () => {
    const ws = await workspace(f);
    const other = await workspace(f);
    const ep = await endpoint(f, ws);
    await endpoint(f, other);
    const offerId = await sentOffer(f, other.workspaceId);
    await withdrawOffer(f.sql, f.clock, { offerId });

    await removeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });

    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(2);
  });
});
