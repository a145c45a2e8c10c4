import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { endpoint, manyEvents, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 64, startsPerMinutePerWorkspace: 1_000_000 });

describe('several workers on one database', () => {
  it('delivers each event to each endpoint exactly once when two engines fan out and claim at the same time', async () => {
    const workspaces = [];
    for (let i = 0; i < 4; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://hooks.test/${i}` });
      await endpoint(f, ws, { url: `https://other.test/${i}` });
      await manyEvents(f, ws.workspaceId, 50);
      workspaces.push(ws);
    }
    const a = f.engine;
    const b = f.anotherEngine();

    await Promise.all([a.fanOut(), b.fanOut(), a.fanOut(), b.fanOut()]);
    const drain = async (engine: typeof a) => {
      for (let idle = 0; idle < 3; ) {
        const outcomes = await engine.dispatchOnce();
        idle = outcomes.length === 0 ? idle + 1 : 0;
      }
    };
    await Promise.all([drain(a), drain(b)]);

    const keys = f.sender.sent.map((s) => `${s.messageId} ${s.url}`);
    expect(keys).toHaveLength(4 * 50 * 2);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('runs a periodic job once per period even when two workers ask at once', async () => {
    const a = f.engine;
    const b = f.anotherEngine();
    const first = await Promise.all([a.runDueJobs(), b.runDueJobs()]);
    f.clock.advance(15 * MINUTE);
    const second = await Promise.all([a.runDueJobs(), b.runDueJobs()]);

    expect(first.flat().filter((name) => name === 'expire-offers')).toHaveLength(1);
    expect(second.flat().filter((name) => name === 'expire-offers')).toHaveLength(1);
  });
});
