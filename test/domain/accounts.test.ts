import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWorkspace } from '../../src/read-model/workspace.js';
import { DAY, ManualClock } from '../../src/clock.js';
import { addMember, createAccount, createWorkspace, requireRole, resolveAccount } from '../../src/domain/accounts.js';
import { apiKeyPrefix, hashApiKey } from '../../src/domain/api-key-format.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../src/domain/api-keys.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { workspaceWithOwner } from './fixtures.js';

let db: TestDatabase;
const clock = new ManualClock();

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('accounts and workspaces', () => {
  it('an email is unique regardless of case', async () => {
    await createAccount(db.sql, clock, { email: 'Same@Agency.test', name: 'One' });
    await expect(createAccount(db.sql, clock, { email: 'same@agency.test', name: 'Two' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('an account is found by id or by email', async () => {
    const { id } = await createAccount(db.sql, clock, { email: 'find@agency.test', name: 'Find Me' });
    expect((await resolveAccount(db.sql, id)).email).toBe('find@agency.test');
    expect((await resolveAccount(db.sql, 'FIND@agency.test')).id).toBe(id);
    await expect(resolveAccount(db.sql, 'nobody@agency.test')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a time zone is stored in its usual spelling, and a non-IANA one is refused', async () => {
    const { id } = await createWorkspace(db.sql, clock, { name: 'W', timezone: 'europe/berlin', currency: 'EUR' });
    const [row] = await db.sql`select timezone from workspaces where id = ${id}::uuid`;
    expect(row!.timezone).toBe('Europe/Berlin');
    for (const timezone of ['Mars/Olympus', '+01:00', '']) {
      await expect(createWorkspace(db.sql, clock, { name: 'W', timezone, currency: 'EUR' })).rejects.toMatchObject({ code: 'invalid_input' });
    }
  });

  it('a currency must be an ISO 4217 code in capitals', async () => {
    for (const currency of ['eur', 'EUX', 'EURO']) {
      await expect(createWorkspace(db.sql, clock, { name: 'W', timezone: 'UTC', currency })).rejects.toMatchObject({ code: 'invalid_input' });
    }
  });

  it('an offer domain belongs to one workspace only', async () => {
    await createWorkspace(db.sql, clock, { name: 'A', timezone: 'UTC', currency: 'EUR', offerDomain: 'offers.agency.test' });
    await expect(
      createWorkspace(db.sql, clock, { name: 'B', timezone: 'UTC', currency: 'EUR', offerDomain: 'OFFERS.agency.test' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('the last owner cannot be demoted', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    await expect(addMember(db.sql, clock, { actorId: null, workspaceId, accountId: ownerId, role: 'member' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('requireRole lets owners, admins and the operator through, refuses members, and answers strangers as an unknown ID', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    const admin = await createAccount(db.sql, clock, { email: `admin-${workspaceId}@a.test`, name: 'Admin' });
    const member = await createAccount(db.sql, clock, { email: `member-${workspaceId}@a.test`, name: 'Member' });
    const stranger = await createAccount(db.sql, clock, { email: `stranger-${workspaceId}@a.test`, name: 'Stranger' });
    await addMember(db.sql, clock, { actorId: null, workspaceId, accountId: admin.id, role: 'admin' });
    await addMember(db.sql, clock, { actorId: null, workspaceId, accountId: member.id, role: 'member' });
    const roles = ['owner', 'admin'] as const;
    expect(await requireRole(db.sql, { workspaceId, accountId: ownerId, roles })).toBe('owner');
    expect(await requireRole(db.sql, { workspaceId, accountId: admin.id, roles })).toBe('admin');
    await expect(requireRole(db.sql, { workspaceId, accountId: member.id, roles })).rejects.toMatchObject({ code: 'forbidden' });
    // console-api.yaml "Who may do what": a workspace the account is not a member of is not found, exactly like an unknown ID.
    await expect(requireRole(db.sql, { workspaceId, accountId: stranger.id, roles })).rejects.toMatchObject({
      code: 'not_found',
      message: `workspace ${workspaceId} not found`,
    });
    expect(await requireRole(db.sql, { workspaceId, accountId: null, roles })).toBe('operator');
    await expect(requireRole(db.sql, { workspaceId: '00000000-0000-4000-8000-000000000000', accountId: null, roles })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('API keys', () => {
  it('a key is returned once and stored only as its hash and a four-character hint', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    const { id, key } = await createApiKey(db.sql, clock, { workspaceId, name: 'CRM', actingAccountId: ownerId });
    const [row] = await db.sql`select key_hash, key_hint from api_keys where id = ${id}::uuid`;
    expect(row!.key_hash).toEqual(hashApiKey(key));
    expect(row!.key_hint).toBe(key.slice(-4));
    const listed = await listApiKeys(db.sql, clock, { workspaceId, limit: 10, after: null });
    expect(listed).toEqual([
      {
        id,
        name: 'CRM',
        prefix: apiKeyPrefix(key),
        hint: key.slice(-4),
        created_at: clock.now().toISOString(),
        created_at_key: expect.any(String),
        created_by: expect.objectContaining({ id: ownerId }),
        expires_at: null,
        revoked_at: null,
        status: 'active',
      },
    ]);
  });

  it('a member cannot create or revoke keys', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    const member = await createAccount(db.sql, clock, { email: `m-${workspaceId}@a.test`, name: 'M' });
    await addMember(db.sql, clock, { actorId: null, workspaceId, accountId: member.id, role: 'member' });
    await expect(createApiKey(db.sql, clock, { workspaceId, name: 'x', actingAccountId: member.id })).rejects.toMatchObject({
      code: 'forbidden',
    });
    const { id } = await createApiKey(db.sql, clock, { workspaceId, name: 'x', actingAccountId: ownerId });
    await expect(revokeApiKey(db.sql, clock, { keyId: id, actingAccountId: member.id })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('an expiry in the past is refused, and a key past its expiry is listed as expired', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    await expect(
      createApiKey(db.sql, clock, { workspaceId, name: 'x', actingAccountId: ownerId, expiresAt: clock.now() }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await createApiKey(db.sql, clock, { workspaceId, name: 'x', actingAccountId: ownerId, expiresAt: new Date(clock.now().getTime() + DAY) });
    const later = new ManualClock(new Date(clock.now().getTime() + 2 * DAY));
    expect((await listApiKeys(db.sql, later, { workspaceId, limit: 10, after: null }))[0]!.status).toBe('expired');
  });

  it('revocation takes effect at once for the API key check, and a second revocation keeps the first time', async () => {
    const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
    const { id, key } = await createApiKey(db.sql, clock, { workspaceId, name: 'x', actingAccountId: ownerId });
    // Every API request reads the key row (openapi.yaml "Authentication"): no cache to tell. GET /workspace's read, by key.
    const workspaceOfKey = async () => (await readWorkspace(db.sql, { apiKeyHash: hashApiKey(key) }, clock.now()))?.workspaceId ?? null;
    expect(await workspaceOfKey()).toBe(workspaceId);
    const first = await revokeApiKey(db.sql, clock, { keyId: id, actingAccountId: ownerId });
    expect(await workspaceOfKey()).toBeNull();
    clock.advance(DAY);
    const second = await revokeApiKey(db.sql, clock, { keyId: id, actingAccountId: ownerId });
    expect(second.revokedAt).toEqual(first.revokedAt);
    expect((await listApiKeys(db.sql, clock, { workspaceId, limit: 10, after: null }))[0]!.status).toBe('revoked');
  });
});
