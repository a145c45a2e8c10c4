import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../src/db/connect.js';
import { generateEndpointSecret, sealSecret } from '../../../src/sealing/secrets.js';
import { MASTER_KEY } from './helpers.js';

/**
 * A workspace as a release before this one left it, written row by row so that no code of this
 * release (which writes what the newest migrations make) runs on the older schema: its place in the
 * round-robin queue, an endpoint at https://hooks.test/<name> sealed under MASTER_KEY, and
 * `deliveries` pending deliveries due at `at`. For the migration tests.
 */
export async function waitingWorkspaceAsBefore(sql: Sql, input: { name: string; position: number; deliveries: number; at: Date }): Promise<string> {
  const { name, position, deliveries, at } = input;
  const [ws] = await sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values (${name}, 'UTC', 'EUR') returning id`;
  await sql`insert into webhook_workspace_state (workspace_id, queue_position) values (${ws!.id}::uuid, ${position})`;
  const endpointId = randomUUID();
  const sealed = sealSecret(Buffer.from(MASTER_KEY, 'base64'), endpointId, generateEndpointSecret());
  await sql`
    insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_at, updated_at)
    values (${endpointId}::uuid, ${ws!.id}::uuid, ${`https://hooks.test/${name}`}, ${['offer.sent']}::text[], ${sealed}, ${at}, ${at})`;
  for (let i = 0; i < deliveries; i++) {
    const messageId = randomUUID();
    await sql`insert into webhook_messages (id, workspace_id, type, body, created_at) values (${messageId}::uuid, ${ws!.id}::uuid, 'offer.sent', '{}', ${at})`;
    await sql`
      insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
      values (${messageId}::uuid, ${endpointId}::uuid, ${ws!.id}::uuid, 'offer.sent', 'pending', 8, ${at}, ${at}, ${at})`;
  }
  return ws!.id;
}
