import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_PAUSES_MS } from '../../src/webhooks/engine/policy.js';
import { endpoint, engineFixture, MASTER_KEY, sentOffer, workspace, type EngineFixture } from '../webhooks/engine/helpers.js';
import { cliRunner } from './runner.js';

/**
 * `offerdesk delivery list` reads the delivery log the console reads (one read,
 * src/webhooks/management/delivery-log.ts): each delivery with its last response status and its
 * next attempt. A real engine makes one failed attempt (the receiver answers 503), then the CLI runs
 * as a real process against the same database.
 */
let f: EngineFixture;
let ws: { workspaceId: string; ownerId: string };
let endpointId: string;
let deliveryId: string;
let attemptedAt: Date;

const { cli, json } = cliRunner(() => ({ DATABASE_URL: f.db.url, LOG_LEVEL: 'silent', OFFERDESK_MASTER_KEY: MASTER_KEY }));

beforeAll(async () => {
  f = await engineFixture();
  ws = await workspace(f);
  endpointId = (await endpoint(f, ws, { events: ['offer.sent'] })).id;
  await sentOffer(f, ws.workspaceId);
  await f.engine.fanOut();
  f.sender.reply(() => ({ ok: false, status: 503, error: 'status 503', durationMs: 7, responsePrefix: 'busy' }));
  attemptedAt = f.clock.now();
  const [outcome] = await f.engine.dispatchOnce();
  expect(outcome!.kind).toBe('retry-scheduled');
  deliveryId = outcome!.deliveryId;
}, 60_000);
afterAll(async () => {
  await f.close();
});

describe('offerdesk delivery list', () => {
  it("prints each delivery's last response status and next attempt, as the console shows them", async () => {
    const next = new Date(attemptedAt.getTime() + RETRY_PAUSES_MS[0]!).toISOString();
    const run = await cli('delivery', 'list', '--endpoint', endpointId, '--as', ws.ownerId);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${deliveryId}  \\S+  offer\\.sent  pending  attempts 1  last response 503  next attempt ${next}`));
  }, 60_000);

  it('gives the same fields as JSON', async () => {
    const list = await json<{ id: string; last_response_status: number | null; next_attempt_at: string | null }[]>(
      'delivery', 'list', '--endpoint', endpointId, '--as', ws.ownerId,
    );
    expect(list).toEqual([
      expect.objectContaining({
        id: deliveryId,
        last_response_status: 503,
        next_attempt_at: new Date(attemptedAt.getTime() + RETRY_PAUSES_MS[0]!).toISOString(),
      }),
    ]);
  }, 60_000);

  it('shows a delivery with its attempts through the same read', async () => {
    const run = await cli('delivery', 'show', deliveryId, '--as', ws.ownerId);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('last response 503');
    expect(run.stdout).toMatch(new RegExp(`  #1  ${attemptedAt.toISOString()}  503  7 ms  status 503`));
  }, 60_000);
});
