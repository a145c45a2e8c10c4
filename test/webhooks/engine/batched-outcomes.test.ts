import { describe, expect, it } from 'vitest';
import { createCompletionQueue } from '../../../src/webhooks/engine/completion.js';
import { attemptDelivery } from '../../../src/webhooks/engine/attempt.js';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
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
    await f.sql`update webhook_queue set lease_token = gen_random_uuid() where id = ${lost!.id}::uuid`;

    const statements: string[] = [];
    // A statement is a query that is run (awaited); fragments and identifiers built for it are not.
    const counting = new Proxy(f.sql, {
      apply(target, self, args) {
        const query = Reflect.apply(target as never, self, args) as { then?: (...a: unknown[]) => unknown };
        const then = query.then;
        if (typeof then === 'function') {
          query.then = (...a: unknown[]) => {
            statements.push(String((args[0] as TemplateStringsArray)[0]).trim().slice(0, 20));
            return then.apply(query, a);
          };
        }
        return query;
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

  it('counts only the events an active endpoint subscribes to when it drops a flood', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws, { events: ['offer.first_viewed'] });
    await manyEvents(f, ws.workspaceId, 1500);
    // 300 events of a type no endpoint subscribes to, committed before the flood: they are not
    // waiting events, so they neither take room nor get dropped by the limit (fan-out discards them).
    await f.sql`update webhook_outbox set type = 'offer.withdrawn'
                 where id in (select id from webhook_outbox order by offer_sequence limit 300)`;

    const first = await fanOutOnce(f.deps);

    const rows = await f.sql<{ type: string; n: number }[]>`
      select type, count(*)::int as n from webhook_outbox group by type order by type`;
    const left = Object.fromEntries(rows.map((r) => [r.type, r.n]));
    // 1,200 subscribed events against a room of 1,000.
    expect(first.droppedWaiting).toBe(200);
    expect((left['offer.first_viewed'] ?? 0) + first.messages).toBe(1000);
    expect((left['offer.withdrawn'] ?? 0) + first.unsubscribed).toBe(300);
  });
});
