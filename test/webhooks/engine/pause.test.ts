import { describe, expect, it } from 'vitest';
import { HOUR } from '../../../src/clock.js';
import { endpointDeliveries } from './log-helpers.js';
import { resumeEndpoint, showEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { markEndpointPaused } from '../../../src/webhooks/sql/markEndpointPaused.js';
import {
  FAIL,
  OK,
  advanceToNextDue,
  endpoint,
  runSchedulesToEnd,
  sentOffer,
  statusCounts,
  useEngineFixture,
  workspace,
} from './helpers.js';

const f = useEngineFixture();

describe('pause after 5 final failures in a row (openapi.yaml "Webhook delivery and retries")', () => {
  it('pauses the endpoint when its 5th delivery in a row fails finally and cancels its open deliveries', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await f.engine.fanOut();
    f.clock.advance(1 * HOUR);
    await sentOffer(f, ws.workspaceId, 'Still open');
    await runSchedulesToEnd(f);

    const shown = await showEndpoint(f.manage, { endpointId: ep.id });
    expect(shown.state).toBe('paused');
    expect(shown.failure_streak).toBe(5);
    expect(await statusCounts(f.sql, ep.id)).toEqual({ failed: 5, cancelled: 1 });
    const [cancelled] = await endpointDeliveries(f, ep.id, 'cancelled');
    expect(cancelled!.failure_reason).toBe('endpoint_paused');
  });

  it('does not pause after 4 final failures', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    for (let i = 0; i < 4; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await runSchedulesToEnd(f);

    const shown = await showEndpoint(f.manage, { endpointId: ep.id });
    expect(shown).toMatchObject({ state: 'active', failure_streak: 4 });
  });

  it('resets the streak when a delivery succeeds, so failures must again be 5 in a row', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    f.sender.reply(() => FAIL);
    for (let i = 0; i < 4; i++) await sentOffer(f, ws.workspaceId, `Failing ${i}`);
    await runSchedulesToEnd(f);
    f.sender.reply(() => OK);
    await sentOffer(f, ws.workspaceId, 'Delivered');
    await runSchedulesToEnd(f);
    expect((await showEndpoint(f.manage, { endpointId: ep.id })).failure_streak).toBe(0);

    f.sender.reply(() => FAIL);
    for (let i = 0; i < 4; i++) await sentOffer(f, ws.workspaceId, `Failing again ${i}`);
    await runSchedulesToEnd(f);
    expect(await showEndpoint(f.manage, { endpointId: ep.id })).toMatchObject({ state: 'active', failure_streak: 4 });
  });

  it('never delivers events that occurred while the endpoint was paused, also not after resuming', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await markEndpointPaused(f.sql, { endpointId: ep.id, now: f.clock.now() });
    await sentOffer(f, ws.workspaceId, 'During the pause');
    await f.engine.fanOut();

    await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await runSchedulesToEnd(f);
    expect(f.sender.sent).toHaveLength(0);

    await sentOffer(f, ws.workspaceId, 'After resuming');
    await runSchedulesToEnd(f);
    expect(f.sender.sent.map((s) => JSON.parse(s.body).data.offer.title)).toEqual(['After resuming']);
  });

  it('resumes a paused endpoint as active with a streak of 0', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await runSchedulesToEnd(f);
    expect((await showEndpoint(f.manage, { endpointId: ep.id })).state).toBe('paused');

    const resumed = await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });

    expect(resumed).toMatchObject({ state: 'active', failure_streak: 0, paused_at: null });
  });

  it('keeps another endpoint of the same workspace receiving while one is paused', async () => {
    const ws = await workspace(f);
    const broken = await endpoint(f, ws, { url: 'https://hooks.test/broken' });
    await endpoint(f, ws, { url: 'https://other.test/fine' });
    await markEndpointPaused(f.sql, { endpointId: broken.id, now: f.clock.now() });
    await sentOffer(f, ws.workspaceId);
    await runSchedulesToEnd(f);
    expect(f.sender.sent.map((s) => s.url)).toEqual(['https://other.test/fine']);
    expect(await advanceToNextDue(f)).toBe(false);
  });
});
