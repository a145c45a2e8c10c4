import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../../src/clock.js';
import { attemptDelivery } from '../../../src/webhooks/engine/attempt.js';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
import { shownDelivery } from './log-helpers.js';
import { RETRY_PAUSES_MS } from '../../../src/webhooks/engine/policy.js';
import { FAIL, OK, endpoint, sentOffer, workspace, useEngineFixture } from './helpers.js';

const f = useEngineFixture();

async function oneDelivery(): Promise<{ id: string; endpointId: string }> {
  const ws = await workspace(f);
  const ep = await endpoint(f, ws);
  await sentOffer(f, ws.workspaceId);
  await f.engine.fanOut();
  const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
  return { id: row!.id, endpointId: ep.id };
}

describe('retry schedule (openapi.yaml "Webhook delivery and retries")', () => {
  it('pauses 1 m, 5 m, 30 m, 2 h, 5 h, 8 h, 8 h between the 8 attempts, to the millisecond', () => {
    expect(RETRY_PAUSES_MS).toEqual([1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 8 * HOUR, 8 * HOUR]);
  });

  it('makes attempt n+1 exactly its pause after attempt n and never a millisecond earlier', async () => {
    f.sender.reply(() => FAIL);
    await oneDelivery();
    const start = f.clock.now().getTime();
    await f.engine.dispatchOnce();
    for (const pause of RETRY_PAUSES_MS) {
      const before = f.sender.sent.length;
      f.clock.advance(pause - 1);
      expect(await f.engine.dispatchOnce()).toEqual([]);
      f.clock.advance(1);
      expect(await f.engine.dispatchOnce()).toHaveLength(1);
      expect(f.sender.sent.length).toBe(before + 1);
    }
    const sinceFirst = f.sender.sent.map((s) => (s.attemptAt.getTime() - start) / MINUTE);
    // "Since first attempt" column: 0, 1 m, 6 m, 36 m, 2 h 36 m, 7 h 36 m, 15 h 36 m, 23 h 36 m.
    expect(sinceFirst).toEqual([0, 1, 6, 36, 156, 456, 936, 1416]);
  });

  it('marks the delivery failed after the 8th failed attempt and attempts it no more', async () => {
    f.sender.reply(() => FAIL);
    const delivery = await oneDelivery();
    for (let i = 0; i < 8; i++) {
      const [outcome] = await f.engine.dispatchOnce();
      expect(outcome!.kind).toBe(i < 7 ? 'retry-scheduled' : 'failed-finally');
      if (i < 7) f.clock.advance(RETRY_PAUSES_MS[i]!);
    }
    f.clock.advance(48 * HOUR);
    expect(await f.engine.dispatchOnce()).toEqual([]);
    const shown = await shownDelivery(f, delivery.id);
    expect(shown.status).toBe('failed');
    expect(shown.attempt_count).toBe(8);
    expect(shown.next_attempt_at).toBeNull();
    expect(f.sender.sent).toHaveLength(8);
  });

  it('stops retrying once an attempt gets a 2xx', async () => {
    f.sender.reply((_, index) => (index < 2 ? FAIL : OK));
    const delivery = await oneDelivery();
    await f.engine.dispatchOnce();
    f.clock.advance(RETRY_PAUSES_MS[0]!);
    await f.engine.dispatchOnce();
    f.clock.advance(RETRY_PAUSES_MS[1]!);
    const [outcome] = await f.engine.dispatchOnce();
    expect(outcome).toEqual({ kind: 'delivered', deliveryId: delivery.id, attempt: 3 });
    f.clock.advance(48 * HOUR);
    expect(await f.engine.dispatchOnce()).toEqual([]);
    expect((await shownDelivery(f, delivery.id)).status).toBe('succeeded');
  });

  it('keeps every attempt in the delivery log with time, status code, error, duration and reply prefix', async () => {
    f.sender.reply((_, index) =>
      index === 0
        ? { ok: false, status: null, error: 'connection refused', durationMs: 12, responsePrefix: null }
        : { ok: false, status: 503, error: 'status 503', durationMs: 40, responsePrefix: 'busy' },
    );
    const delivery = await oneDelivery();
    const first = f.clock.now();
    await f.engine.dispatchOnce();
    f.clock.advance(MINUTE);
    await f.engine.dispatchOnce();

    const shown = await shownDelivery(f, delivery.id);
    expect(shown.attempts).toEqual([
      { attempt: 1, attempted_at: first.toISOString(), succeeded: false, status_code: null, error: 'connection refused', duration_ms: 12, response_prefix: null },
      { attempt: 2, attempted_at: new Date(first.getTime() + MINUTE).toISOString(), succeeded: false, status_code: 503, error: 'status 503', duration_ms: 40, response_prefix: 'busy' },
    ]);
    expect(shown.next_attempt_at).toBe(new Date(first.getTime() + 6 * MINUTE).toISOString());
  });

  it('counts a sender that throws as a failed attempt', async () => {
    f.sender.reply(() => {
      throw new Error('boom');
    });
    const delivery = await oneDelivery();
    const [outcome] = await f.engine.dispatchOnce();
    expect(outcome!.kind).toBe('retry-scheduled');
    const shown = await shownDelivery(f, delivery.id);
    expect(shown.attempts[0]!.error).toMatch(/boom/);
  });
});

describe('leases (a worker that dies mid-attempt)', () => {
  it('attempts a claimed delivery again with the same webhook-id once its lease has passed', async () => {
    await oneDelivery();
    const dead = await claimBatch(f.deps, 10);
    expect(dead.deliveries).toHaveLength(1);

    f.clock.advance(f.deps.settings.leaseMs - 1);
    expect(await f.engine.dispatchOnce()).toEqual([]);
    f.clock.advance(1);
    const [outcome] = await f.engine.dispatchOnce();

    expect(outcome!.kind).toBe('delivered');
    expect(f.sender.sent[0]!.messageId).toBe(dead.deliveries[0]!.message_id);
  });

  it('lets the late result of a lost lease change nothing', async () => {
    f.sender.reply(() => FAIL);
    const delivery = await oneDelivery();
    const dead = await claimBatch(f.deps, 10);
    f.clock.advance(f.deps.settings.leaseMs);
    f.sender.reply(() => OK);
    await f.engine.dispatchOnce();

    f.sender.reply(() => FAIL);
    const late = await attemptDelivery(f.deps, dead.deliveries[0]!, []);

    expect(late.kind).toBe('cancelled');
    expect((await shownDelivery(f, delivery.id)).status).toBe('succeeded');
  });
});
