import { describe, expect, it } from 'vitest';
import { createCompletionQueue } from '../../../src/webhooks/engine/completion.js';
import { attemptDelivery, claimBatch } from '../../../src/webhooks/engine/dispatch.js';
import { fanOutOnce } from '../../../src/webhooks/engine/fanout.js';
import { FAIL, OK, endpoint, manyEvents, statusCounts, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 4000, startsPerMinutePerWorkspace: 1_000_000 });

describe('outcomes written in batches, excess dropped in one step', () => {
  it('records a batch of outcomes in one write, each by its own lease: a lost lease changes only its delivery', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 3);
    await f.engine.fanOut();
    const batch = await claimBatch(f.deps, 10);
    expect(batch.deliveries).toHaveLength(3);
    const [lost, , retried] = batch.deliveries;
    // Another claim took the first one over: its lease token is no longer the row's.
    await f.sql`update webhook_deliveries set lease_token = gen_random_uuid() where id = ${lost!.id}::uuid`;

    const statements: string[] = [];
    const counting = new Proxy(f.sql, {
      apply(target, self, args) {
        statements.push(String((args[0] as TemplateStringsArray)[0]).trim().slice(0, 20));
        return Reflect.apply(target as never, self, args);
      },
    });
    const queue = createCompletionQueue(counting);
    f.sender.reply((request) => (request.messageId === retried!.message_id ? FAIL : OK));
    const outcomes = await Promise.all(batch.deliveries.map((d) => attemptDelivery(f.deps, d, [], queue)));

    expect(outcomes.map((o) => o.kind)).toEqual(['cancelled', 'delivered', 'retry-scheduled']);
    expect(statements).toHaveLength(1);
    const [log] = await f.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
    expect(log!.n).toBe(3);
    expect(await statusCounts(f.sql, ep.id)).toEqual({ sending: 1, succeeded: 1, pending: 1 });
  });

  it('drops a flood beyond 1,000 waiting events in the first fan-out step that meets it, keeping the oldest', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 1500);

    const first = await fanOutOnce(f.deps);

    const [left] = await f.sql<{ outbox: number }[]>`select count(*)::int as outbox from webhook_outbox`;
    expect(first.droppedWaiting).toBe(500);
    expect(first.taken + left!.outbox).toBe(1000);
    await f.engine.fanOut();
    const [counts] = await f.sql<{ messages: number; max_sequence: number }[]>`
      select count(*)::int as messages,
             max((body::jsonb -> 'data' -> 'event' ->> 'sequence')::int) as max_sequence
        from webhook_messages`;
    // Sequences 1 (created) and 2 (sent) precede the bulk entries 3..1502.
    expect(counts).toEqual({ messages: 1000, max_sequence: 1002 });
  });
});
