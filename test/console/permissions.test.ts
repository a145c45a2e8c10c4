import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/api-keys.js';
import { addEndpoint, type ManagementDeps } from '../../src/webhooks/management/endpoints.js';
import { markEndpointPaused } from '../../src/webhooks/sql/markEndpointPaused.js';
import { consoleWorld, type ConsoleClient, type ConsoleWorld, useConsoleApi } from './helpers.js';

/**
 * console-api.yaml "Who may do what", cell by cell for every operation this module serves:
 * reads 200 for owner, admin and member; changes 2xx for owner and admin, 403 for a member;
 * 404 for an account of another workspace (the body of an unknown ID); 401 without a session.
 */
const ctx = useConsoleApi();

type Cell = 'owner' | 'admin' | 'member' | 'outsider' | 'anonymous';
const CELLS: Cell[] = ['owner', 'admin', 'member', 'outsider', 'anonymous'];

interface Operation {
  operationId: string;
  kind: 'read' | 'change';
  success: number;
  /** Builds the request of one cell (its own target where the change would use it up). */
  request(world: ConsoleWorld): Promise<{ method: string; path: string; body?: unknown }>;
}

function manage(): ManagementDeps {
  return {
    sql: ctx.api.db.sql,
    clock: ctx.api.clock,
    config: ctx.api.config.webhooks,
    masterKey: Buffer.from(ctx.api.config.webhooks.masterKey!, 'base64'),
  };
}

let n = 0;
async function anEndpoint(world: ConsoleWorld): Promise<string> {
  n += 1;
  const { id } = await addEndpoint(manage(), { workspaceId: world.workspaceId, url: `https://hooks.test/p${n}`, events: ['offer.sent'], actorId: world.owner.id });
  return id;
}

const ws = (world: ConsoleWorld) => `/workspaces/${world.workspaceId}`;

const OPERATIONS: Operation[] = [
  { operationId: 'listApiKeys', kind: 'read', success: 200, request: async (w) => ({ method: 'GET', path: `${ws(w)}/api-keys` }) },
  {
    operationId: 'createApiKey',
    kind: 'change',
    success: 201,
    request: async (w) => ({ method: 'POST', path: `${ws(w)}/api-keys`, body: { name: 'CRM sync' } }),
  },
  {
    operationId: 'revokeApiKey',
    kind: 'change',
    success: 200,
    request: async (w) => {
      const { id } = await createApiKey(ctx.api.db.sql, ctx.api.clock, { workspaceId: w.workspaceId, name: 'to revoke', actingAccountId: w.owner.id });
      return { method: 'POST', path: `${ws(w)}/api-keys/${id}/revoke` };
    },
  },
  { operationId: 'listEndpoints', kind: 'read', success: 200, request: async (w) => ({ method: 'GET', path: `${ws(w)}/endpoints` }) },
  {
    operationId: 'createEndpoint',
    kind: 'change',
    success: 201,
    request: async (w) => ({ method: 'POST', path: `${ws(w)}/endpoints`, body: { url: 'https://hooks.test/new', events: ['offer.sent'] } }),
  },
  {
    operationId: 'getEndpoint',
    kind: 'read',
    success: 200,
    request: async (w) => ({ method: 'GET', path: `${ws(w)}/endpoints/${await anEndpoint(w)}` }),
  },
  {
    operationId: 'updateEndpoint',
    kind: 'change',
    success: 200,
    request: async (w) => ({ method: 'PATCH', path: `${ws(w)}/endpoints/${await anEndpoint(w)}`, body: { events: ['offer.accepted'] } }),
  },
  {
    operationId: 'removeEndpoint',
    kind: 'change',
    success: 200,
    request: async (w) => ({ method: 'DELETE', path: `${ws(w)}/endpoints/${await anEndpoint(w)}` }),
  },
  {
    operationId: 'testEndpoint',
    kind: 'change',
    success: 202,
    request: async (w) => ({ method: 'POST', path: `${ws(w)}/endpoints/${await anEndpoint(w)}/test` }),
  },
  {
    operationId: 'rotateEndpointSecret',
    kind: 'change',
    success: 200,
    request: async (w) => ({ method: 'POST', path: `${ws(w)}/endpoints/${await anEndpoint(w)}/rotate-secret` }),
  },
  {
    operationId: 'resumeEndpoint',
    kind: 'change',
    success: 200,
    request: async (w) => {
      const id = await anEndpoint(w);
      await markEndpointPaused(ctx.api.db.sql, { endpointId: id, now: ctx.api.clock.now() });
      return { method: 'POST', path: `${ws(w)}/endpoints/${id}/resume` };
    },
  },
  { operationId: 'listAuditEntries', kind: 'read', success: 200, request: async (w) => ({ method: 'GET', path: `${ws(w)}/audit-log` }) },
];

function expected(op: Operation, cell: Cell): number {
  if (cell === 'anonymous') return 401;
  if (cell === 'outsider') return 404;
  if (cell === 'member' && op.kind === 'change') return 403;
  return op.success;
}

function clientOf(world: ConsoleWorld, cell: Cell): ConsoleClient {
  return cell === 'anonymous' ? world.anonymous : world[cell].client;
}

async function auditCount(workspaceId: string): Promise<number> {
  const [row] = await ctx.api.db.sql<{ n: number }[]>`select count(*)::int as n from audit_entries where workspace_id = ${workspaceId}::uuid`;
  return row!.n;
}

describe.each(OPERATIONS)('$operationId ($kind)', (op) => {
  let world: ConsoleWorld;
  let unknownIdBody: string;
  beforeAll(async () => {
    world = await consoleWorld(ctx.api);
    unknownIdBody = (await world.owner.client.call('GET', `/workspaces/00000000-0000-4000-8000-000000000000/endpoints`)).text;
  });

  it.each(CELLS)(`%s`, async (cell) => {
    const { method, path, body } = await op.request(world);
    const before = await auditCount(world.workspaceId);
    const answer = await clientOf(world, cell).call(method, path, { body });
    const want = expected(op, cell);
    expect(answer.status, answer.text).toBe(want);
    if (want === 404) expect(answer.text).toBe(unknownIdBody);
    if (want === 403) expect(answer.body.error.code).toBe('forbidden');
    if (want === 401) expect(answer.body.error.code).toBe('unauthorized');
    // A refused change leaves no trace; an allowed one leaves exactly one audit entry.
    const written = (await auditCount(world.workspaceId)) - before;
    expect(written).toBe(op.kind === 'change' && want < 300 ? 1 : 0);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

describe('operations that need only a session', () => {
  let world: ConsoleWorld;
  beforeAll(async () => {
    world = await consoleWorld(ctx.api);
  });

  it.each([
    ['getMe', 'GET', '/me'],
    ['listEventTypes', 'GET', '/event-types'],
  ])('%s: any signed-in account 200, no session 401', async (_id, method, path) => {
    for (const cell of ['owner', 'member', 'outsider'] as const) expect((await world[cell].client.call(method, path)).status).toBe(200);
    expect((await world.anonymous.call(method, path)).status).toBe(401);
  });

  it('getMe lists exactly the workspaces of the account with its role in each', async () => {
    const me = await world.member.client.call('GET', '/me');
    expect(me.body.data.workspaces).toEqual([{ id: world.workspaceId, name: expect.any(String), role: 'member' , endpoint_notices: true}]);
    const outsider = await world.outsider.client.call('GET', '/me');
    expect(outsider.body.data.workspaces.map((w: { id: string }) => w.id)).toEqual([world.outsiderWorkspaceId]);
  });

  it('signOut and changePassword need a session', async () => {
    expect((await world.anonymous.call('DELETE', '/session')).status).toBe(401);
    expect((await world.anonymous.call('POST', '/me/password', { body: { current_password: 'x', new_password: 'long enough!' } })).status).toBe(401);
  });

  it('the document needs no session', async () => {
    const answer = await world.anonymous.call('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.1.0');
    expect(answer.body.servers).toEqual([{ url: `${ctx.api.config.publicUrl}/console/api`, description: 'This server' }]);
  });

  it('an ID of the wrong form is 404 like an unknown one', async () => {
    const wrongForm = await world.owner.client.call('GET', `/workspaces/${world.workspaceId}/endpoints/not-a-uuid`);
    const unknown = await world.owner.client.call('GET', `/workspaces/${world.workspaceId}/endpoints/00000000-0000-4000-8000-000000000000`);
    expect(wrongForm.status).toBe(404);
    expect(wrongForm.text).toBe(unknown.text);
  });

  it("an endpoint of the outsider's workspace is not reachable through this workspace's path", async () => {
    const { id } = await addEndpoint(manage(), {
      workspaceId: world.outsiderWorkspaceId,
      url: 'https://hooks.test/theirs',
      events: ['offer.sent'],
      actorId: world.outsider.id,
    });
    const answer = await world.owner.client.call('DELETE', `/workspaces/${world.workspaceId}/endpoints/${id}`);
    expect(answer.status).toBe(404);
    expect((await world.outsider.client.call('GET', `/workspaces/${world.outsiderWorkspaceId}/endpoints/${id}`)).status).toBe(200);
  });
});
