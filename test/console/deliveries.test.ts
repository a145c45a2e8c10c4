import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/clock.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { addEndpoint, type ManagementDeps } from '../../src/webhooks/management/endpoints.js';
import { seedDeliveryLog } from '../support/seed/delivery-log.js';
import { consoleWorld, type ConsoleClient, type ConsoleWorld, useConsoleApi } from './helpers.js';
import { finishOpenDeliveries, reopenDeliveries } from '../support/deliveries.js';

/**
 * The delivery log over HTTP (console-api.yaml "Delivery log"): every answer is checked against
 * the document by the client; the permission matrix cell by cell for its five operations.
 */
const ctx = useConsoleApi();

function manage(): ManagementDeps {
  return {
    sql: ctx.api.db.sql,
    clock: ctx.api.clock,
    config: ctx.api.config.webhooks,
    masterKey: Buffer.from(ctx.api.config.webhooks.masterKey!, 'base64'),
  };
}

let n = 0;
/** An endpoint with `count` failed deliveries (seeded set-based, newest first a minute apart). */
async function endpointWithLog(world: ConsoleWorld, count = 30): Promise<{ endpointId: string; secret: string }> {
  n += 1;
  const { id, secret } = await addEndpoint(manage(), {
    workspaceId: world.workspaceId,
    url: `https://hooks.test/log${n}`,
    events: ['offer.sent'],
    actorId: world.owner.id,
  });
  await seedDeliveryLog(ctx.api.db.sql, { workspaceId: world.workspaceId, endpointIds: [id], count, pending: 0, now: ctx.api.clock.now() });
  return { endpointId: id, secret };
}

async function aFailedDelivery(world: ConsoleWorld, endpointId: string): Promise<string> {
  const [row] = await ctx.api.db.sql<{ id: string }[]>`
    select id from webhook_deliveries where endpoint_id = ${endpointId}::uuid and status = 'failed' and resend_count = 0
     order by created_at desc limit 1`;
  return row!.id;
}

const ws = (world: ConsoleWorld) => `/workspaces/${world.workspaceId}`;

async function walk(client: ConsoleClient, path: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const sep = path.includes('?') ? '&' : '?';
    const answer = await client.call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(answer.status, answer.text).toBe(200);
    ids.push(...answer.body.data.map((d: { id: string }) => d.id));
    cursor = answer.body.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error('walk did not end');
}

describe('listDeliveries over HTTP', () => {
  let world: ConsoleWorld;
  let endpointId: string;
  beforeAll(async () => {
    world = await consoleWorld(ctx.api);
    ({ endpointId } = await endpointWithLog(world, 120));
  });

  it('walks the whole filtered log page by page with the cursor, each row once, newest first', async () => {
    const want = await ctx.api.db.sql<{ id: string }[]>`
      select id from webhook_deliveries where workspace_id = ${world.workspaceId}::uuid and event_type = 'offer.sent'
       order by created_at desc, id desc`;
    expect(want.length).toBe(20);
    expect(await walk(world.member.client, `${ws(world)}/deliveries?event_type=offer.sent`, 7)).toEqual(want.map((r) => r.id));
    const all = await walk(world.member.client, `${ws(world)}/deliveries?endpoint_id=${endpointId}`, 50);
    expect(all).toHaveLength(120);
    expect(new Set(all).size).toBe(120);
  });

  it('filters by status, time range and offer id', async () => {
    const now = ctx.api.clock.now().getTime();
    const since = new Date(now - 2 * HOUR).toISOString();
    const until = new Date(now - HOUR).toISOString();
    const answer = await world.owner.client.call('GET', `${ws(world)}/deliveries?status=failed&since=${since}&until=${until}&limit=100`);
    expect(answer.status, answer.text).toBe(200);
    const rows = answer.body.data as { status: string; created_at: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.status === 'failed' && r.created_at >= since && r.created_at < until)).toBe(true);
    const [one] = await ctx.api.db.sql<{ offer_id: string }[]>`
      select m.offer_id from webhook_messages m where m.workspace_id = ${world.workspaceId}::uuid limit 1`;
    const byOffer = await world.owner.client.call('GET', `${ws(world)}/deliveries?q=${one!.offer_id}`);
    expect(byOffer.body.data.length).toBeGreaterThan(0);
    expect(byOffer.body.data.every((d: { offer_id: string }) => d.offer_id === one!.offer_id)).toBe(true);
  });

  it('refuses a cursor sent with other filters, and a malformed filter, with 400 naming the parameter', async () => {
    const first = await world.owner.client.call('GET', `${ws(world)}/deliveries?status=failed&limit=1`);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const swapped = await world.owner.client.call('GET', `${ws(world)}/deliveries?status=succeeded&cursor=${encodeURIComponent(cursor)}`);
    expect(swapped.status).toBe(400);
    expect(swapped.body.error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    const status = await world.owner.client.call('GET', `${ws(world)}/deliveries?status=lost`);
    expect(status.status).toBe(400);
    expect(status.body.error.param).toBe('status');
    const q = await world.owner.client.call('GET', `${ws(world)}/deliveries?q=not-a-uuid`);
    expect(q.status).toBe(400);
    expect(q.body.error.param).toBe('q');
  });
});

describe('times the database cannot hold', () => {
  it('are refused with 400 naming the parameter (ISO 8601 has a year 0, PostgreSQL does not)', async () => {
    const world = await consoleWorld(ctx.api);
    const { endpointId } = await endpointWithLog(world, 3);
    const year0 = '0000-06-01T00:00:00.000Z';
    const answers = [
      await world.owner.client.call('GET', `${ws(world)}/deliveries?since=${year0}`),
      await world.owner.client.call('GET', `${ws(world)}/deliveries?until=${year0}`),
      await world.owner.client.call('GET', `${ws(world)}/endpoints/${endpointId}/failed-deliveries?since=${year0}`),
      await world.owner.client.call('POST', `${ws(world)}/endpoints/${endpointId}/resend-failed`, { body: { since: year0 } }),
    ];
    expect(answers.map((a) => [a.status, a.body.error.code, a.body.error.param])).toEqual([
      [400, 'invalid_request', 'since'],
      [400, 'invalid_request', 'until'],
      [400, 'invalid_request', 'since'],
      [400, 'invalid_request', 'since'],
    ]);
  });
});

describe("a delivery's page and resends over HTTP", () => {
  let world: ConsoleWorld;
  beforeAll(async () => {
    world = await consoleWorld(ctx.api);
  });

  it('shows the body and never the secret', async () => {
    const { endpointId, secret } = await endpointWithLog(world, 5);
    const id = await aFailedDelivery(world, endpointId);
    const answer = await world.member.client.call('GET', `${ws(world)}/deliveries/${id}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({ id, body: '{"seed":true}', status: 'failed', resend_limit: 5 });
    expect(answer.text).not.toContain(secret);
    expect(answer.text).not.toContain('whsec_');
  });

  it('resends a delivery up to 5 times, then answers 409 limit_reached', async () => {
    const { endpointId } = await endpointWithLog(world, 5);
    const id = await aFailedDelivery(world, endpointId);
    for (let i = 1; i <= 5; i++) {
      const answer = await world.admin.client.call('POST', `${ws(world)}/deliveries/${id}/resend`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toMatchObject({ id, status: 'pending', resend_count: i, waiting_reason: 'turn' });
      // Finished again, as a failed attempt would leave it.
      await finishOpenDeliveries(ctx.api.db.sql, ctx.api.db.sql`d.id = ${id}::uuid`, { status: 'failed', at: ctx.api.clock.now() });
    }
    const sixth = await world.admin.client.call('POST', `${ws(world)}/deliveries/${id}/resend`);
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.code).toBe('limit_reached');
  });

  it('refuses to resend a delivery that is still pending (400), and a resend failed that does not fit (409)', async () => {
    const { endpointId } = await endpointWithLog(world, 1200);
    await reopenDeliveries(
      ctx.api.db.sql,
      ctx.api.db.sql`d.id in (select id from webhook_delivery_log where endpoint_id = ${endpointId}::uuid and status = 'succeeded'
                               order by created_at desc limit 999)`,
    );
    const [pending] = await ctx.api.db.sql<{ id: string }[]>`
      select id from webhook_deliveries where endpoint_id = ${endpointId}::uuid and status = 'pending' limit 1`;
    const resend = await world.owner.client.call('POST', `${ws(world)}/deliveries/${pending!.id}/resend`);
    expect(resend.status).toBe(400);
    expect(resend.body.error.message).toMatch(/still pending/);
    const since = new Date(ctx.api.clock.now().getTime() - 30 * DAY).toISOString();
    const tooMany = await world.owner.client.call('POST', `${ws(world)}/endpoints/${endpointId}/resend-failed`, { body: { since } });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error).toMatchObject({ code: 'limit_reached', message: expect.stringMatching(/room for 1 more/) });
    const [left] = await ctx.api.db.sql<{ failed: number }[]>`
      select count(*)::int as failed from webhook_deliveries where endpoint_id = ${endpointId}::uuid and status = 'failed' and resend_count = 0`;
    expect(left!.failed).toBeGreaterThan(1);
  });

  it('previews "resend failed since" and then resends exactly that many', async () => {
    const { endpointId } = await endpointWithLog(world, 300);
    const since = new Date(ctx.api.clock.now().getTime() - 3 * HOUR).toISOString();
    const preview = await world.member.client.call('GET', `${ws(world)}/endpoints/${endpointId}/failed-deliveries?since=${since}`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.since).toBe(since);
    expect(preview.body.data.count).toBeGreaterThan(0);
    const resend = await world.owner.client.call('POST', `${ws(world)}/endpoints/${endpointId}/resend-failed`, { body: { since } });
    expect(resend.status, resend.text).toBe(200);
    expect(resend.body.data).toEqual({ resent: preview.body.data.count, skipped_limit: 0 });
  });
});

type Cell = 'owner' | 'admin' | 'member' | 'outsider' | 'anonymous';
const CELLS: Cell[] = ['owner', 'admin', 'member', 'outsider', 'anonymous'];

interface Operation {
  operationId: string;
  kind: 'read' | 'change';
  success: number;
  request(world: ConsoleWorld): Promise<{ method: string; path: string; body?: unknown }>;
}

const SINCE = () => new Date(ctx.api.clock.now().getTime() - DAY).toISOString();

const OPERATIONS: Operation[] = [
  { operationId: 'listDeliveries', kind: 'read', success: 200, request: async (w) => ({ method: 'GET', path: `${ws(w)}/deliveries` }) },
  {
    operationId: 'getDelivery',
    kind: 'read',
    success: 200,
    request: async (w) => ({ method: 'GET', path: `${ws(w)}/deliveries/${await aFailedDelivery(w, (await endpointWithLog(w, 2)).endpointId)}` }),
  },
  {
    operationId: 'resendDelivery',
    kind: 'change',
    success: 200,
    request: async (w) => ({ method: 'POST', path: `${ws(w)}/deliveries/${await aFailedDelivery(w, (await endpointWithLog(w, 2)).endpointId)}/resend` }),
  },
  {
    operationId: 'previewResendFailed',
    kind: 'read',
    success: 200,
    request: async (w) => ({ method: 'GET', path: `${ws(w)}/endpoints/${(await endpointWithLog(w, 2)).endpointId}/failed-deliveries?since=${SINCE()}` }),
  },
  {
    operationId: 'resendFailed',
    kind: 'change',
    success: 200,
    request: async (w) => ({
      method: 'POST',
      path: `${ws(w)}/endpoints/${(await endpointWithLog(w, 2)).endpointId}/resend-failed`,
      body: { since: SINCE() },
    }),
  },
];

function expected(op: Operation, cell: Cell): number {
  if (cell === 'anonymous') return 401;
  if (cell === 'outsider') return 404;
  if (cell === 'member' && op.kind === 'change') return 403;
  return op.success;
}

async function auditCount(workspaceId: string): Promise<number> {
  const [row] = await ctx.api.db.sql<{ n: number }[]>`select count(*)::int as n from audit_entries where workspace_id = ${workspaceId}::uuid`;
  return row!.n;
}

describe.each(OPERATIONS)('permissions: $operationId ($kind)', (op) => {
  let world: ConsoleWorld;
  let unknownIdBody: string;
  beforeAll(async () => {
    world = await consoleWorld(ctx.api);
    // One world per operation: its five cells add at most five endpoints, the workspace's limit.
    unknownIdBody = (await world.owner.client.call('GET', `/workspaces/00000000-0000-4000-8000-000000000000/deliveries`)).text;
  });

  it.each(CELLS)('%s', async (cell) => {
    const { method, path, body } = await op.request(world);
    const before = await auditCount(world.workspaceId);
    const client = cell === 'anonymous' ? world.anonymous : world[cell].client;
    const answer = await client.call(method, path, { body });
    const want = expected(op, cell);
    expect(answer.status, answer.text).toBe(want);
    if (want === 404) expect(answer.text).toBe(unknownIdBody);
    if (want === 403) expect(answer.body.error.code).toBe('forbidden');
    if (want === 401) expect(answer.body.error.code).toBe('unauthorized');
    expect((await auditCount(world.workspaceId)) - before).toBe(op.kind === 'change' && want < 300 ? 1 : 0);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

describe('an endpoint of another workspace', () => {
  it("is not found through this workspace's path, for the log and for resend failed", async () => {
    const world = await consoleWorld(ctx.api);
    const offer = await createOffer(ctx.api.db.sql, ctx.api.clock, { workspaceId: world.outsiderWorkspaceId, title: 'Theirs' });
    await sendOffer(ctx.api.db.sql, ctx.api.clock, { offerId: offer.id, recipientEmail: 'r@client.example', expiresAt: new Date(ctx.api.clock.now().getTime() + DAY) });
    const { id } = await addEndpoint(manage(), { workspaceId: world.outsiderWorkspaceId, url: 'https://hooks.test/theirs', events: ['offer.sent'], actorId: world.outsider.id });
    const answer = await world.owner.client.call('POST', `${ws(world)}/endpoints/${id}/resend-failed`, { body: { since: SINCE() } });
    expect(answer.status).toBe(404);
    const list = await world.owner.client.call('GET', `${ws(world)}/deliveries?endpoint_id=${id}`);
    expect(list.body.data).toEqual([]);
  });
});
