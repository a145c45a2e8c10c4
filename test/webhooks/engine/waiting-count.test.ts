import { describe, expect, it } from 'vitest';
import { countWaitingEvents } from '../../../src/webhooks/sql/countWaitingEvents.js';
import { endpoint, manyEvents, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 8, startsPerMinutePerWorkspace: 1_000_000 });

const waiting = (workspaceIds: string[], upTo: number) => f.sql.begin((tx) => countWaitingEvents(tx, workspaceIds, upTo));

describe('waiting events of a workspace (docs/webhook-delivery.md "Limits": 1,000 waiting per workspace)', () => {
  it('counts an event once however many endpoints it goes to', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await endpoint(f, ws, { url: 'https://other.test/second' });
    await manyEvents(f, ws.workspaceId, 5);
    await f.engine.fanOut();

    expect(await waiting([ws.workspaceId], 1000)).toEqual(new Map([[ws.workspaceId, 5]]));
  });

  it('counts up to the given limit only', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 5);
    await f.engine.fanOut();

    expect(await waiting([ws.workspaceId], 3)).toEqual(new Map([[ws.workspaceId, 3]]));
  });

  it('no longer counts an event once each of its deliveries has been attempted, and a workspace without any as 0', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 5);
    await f.engine.fanOut();
    await f.engine.dispatchOnce(2);
    const other = await workspace(f);

    expect(await waiting([ws.workspaceId, other.workspaceId], 1000)).toEqual(
      new Map([
        [ws.workspaceId, 3],
        [other.workspaceId, 0],
      ]),
    );
  });
});
