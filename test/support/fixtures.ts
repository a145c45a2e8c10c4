import type { Clock } from '../../src/clock.js';
import type { Sql } from '../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';

export interface WorkspaceFixture {
  workspaceId: string;
  ownerId: string;
  key: string;
  keyId: string;
}

let counter = 0;

/** A workspace with an owner and one API key, through the real domain operations. */
export async function workspaceWithKey(
  sql: Sql,
  clock: Clock,
  input: { name?: string; currency?: string; timezone?: string } = {},
): Promise<WorkspaceFixture> {
  counter += 1;
  const owner = await createAccount(sql, clock, { email: `owner${counter}-${Date.now()}@agency.example`, name: 'Olivia Owner' });
  const workspace = await createWorkspace(sql, clock, {
    name: input.name ?? `Agency ${counter}`,
    timezone: input.timezone ?? 'Europe/Berlin',
    currency: input.currency ?? 'EUR',
    ownerAccountId: owner.id,
  });
  const key = await createApiKey(sql, clock, { workspaceId: workspace.id, name: 'CRM sync', actingAccountId: owner.id });
  return { workspaceId: workspace.id, ownerId: owner.id, key: key.key, keyId: key.id };
}

/** fetch with the key as bearer. */
export function get(url: string, key?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key !== undefined) headers.set('authorization', `Bearer ${key}`);
  return fetch(url, { ...init, headers });
}
