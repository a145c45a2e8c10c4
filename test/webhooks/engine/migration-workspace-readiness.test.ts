import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/migrate.js';
import { useDatabaseBefore } from '../../support/database-before.js';

/**
 * Migration 0030 on a database with open deliveries: the workspaces holding them are ready for the
 * claim at once, the others are not, and deliveries written from then on make theirs ready.
 */
const db = useDatabaseBefore('webhook_workspace_readiness');

const at = new Date('2026-01-15T10:00:00.000Z');

async function workspaceWithEndpoint(name: string, position: number) {
  const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values (${name}, 'UTC', 'EUR') returning id`;
  await db.sql`insert into webhook_workspace_state (workspace_id, queue_position) values (${ws!.id}::uuid, ${position})`;
  const [ep] = await db.sql<{ id: string }[]>`
    insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
    values (${ws!.id}::uuid, 'https://hooks.example.com/a', ${['offer.sent']}::text[], ${randomBytes(40)}, ${at}, ${at})
    returning id`;
  return { workspaceId: ws!.id, endpointId: ep!.id };
}

async function openDelivery(target: { workspaceId: string; endpointId: string }) {
  const messageId = randomUUID();
  await db.sql`
    insert into webhook_messages (id, workspace_id, type, body, created_at)
    values (${messageId}::uuid, ${target.workspaceId}::uuid, 'offer.sent', '{}', ${at})`;
  await db.sql`
    insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
    values (${messageId}::uuid, ${target.endpointId}::uuid, ${target.workspaceId}::uuid, 'offer.sent', 'pending', 8, ${at}, ${at}, ${at})`;
}

const ready = async (workspaceId: string) =>
  (await db.sql<{ ready: boolean }[]>`select ready from webhook_workspace_state where workspace_id = ${workspaceId}::uuid`)[0]!.ready;

describe('migration webhook_workspace_readiness', () => {
  it('makes ready the workspaces with open deliveries, and later deliveries make theirs ready', async () => {
    const waiting = await workspaceWithEndpoint('Waiting', 1);
    const idle = await workspaceWithEndpoint('Idle', 2);
    await openDelivery(waiting);

    await migrate(db.sql);

    expect([await ready(waiting.workspaceId), await ready(idle.workspaceId)]).toEqual([true, false]);
    await openDelivery(idle);
    expect(await ready(idle.workspaceId)).toBe(true);
  });
});
