import { beforeAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/clock.js';
import { consoleWorld, type ConsoleWorld, useConsoleApi } from './helpers.js';

/** What the console's resources answer (shapes beyond the schema checks every answer gets). */
const ctx = useConsoleApi();
let world: ConsoleWorld;
beforeAll(async () => {
  world = await consoleWorld(ctx.api);
});
const base = () => `/workspaces/${world.workspaceId}`;

describe('API keys', () => {
  it('shows the value once at creation; the list shows its prefix, creator, expiry and status, never the value', async () => {
    const expiresAt = new Date(ctx.api.clock.now().getTime() + HOUR).toISOString();
    const created = await world.admin.client.call('POST', `${base()}/api-keys`, { body: { name: 'Reporting', expires_at: expiresAt } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    expect(key.value).toMatch(/^odk_live_[0-9A-Za-z]{40}$/);
    expect(key).toMatchObject({
      name: 'Reporting',
      prefix: key.value.slice(0, 13),
      created_by: { id: world.admin.id, email: world.admin.email },
      expires_at: expiresAt,
      revoked_at: null,
      status: 'active',
    });
    // The shown value opens the public API.
    const read = await fetch(`${ctx.api.baseUrl}/workspace`, { headers: { authorization: `Bearer ${key.value}` } });
    expect(read.status).toBe(200);

    const listed = await world.member.client.call('GET', `${base()}/api-keys`);
    const row = listed.body.data.find((k: { id: string }) => k.id === key.id);
    expect(row).toEqual({ ...key, value: undefined });
    expect(listed.text).not.toContain(key.value);

    ctx.api.clock.advance(HOUR);
    const later = await world.member.client.call('GET', `${base()}/api-keys`);
    expect(later.body.data.find((k: { id: string }) => k.id === key.id).status).toBe('expired');
  });

  it('revoking takes effect at once and shows the key revoked', async () => {
    const created = await world.owner.client.call('POST', `${base()}/api-keys`, { body: { name: 'Short-lived' } });
    const revoked = await world.owner.client.call('POST', `${base()}/api-keys/${created.body.data.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ status: 'revoked', revoked_at: ctx.api.clock.now().toISOString() });
    const read = await fetch(`${ctx.api.baseUrl}/workspace`, { headers: { authorization: `Bearer ${created.body.data.value}` } });
    expect(read.status).toBe(401);
  });

  it('refuses an expiry in the past at its field', async () => {
    const answer = await world.owner.client.call('POST', `${base()}/api-keys`, { body: { name: 'Old', expires_at: '2001-01-01T00:00:00Z' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('expires_at');
  });

  it('a key of another workspace cannot be revoked through this workspace', async () => {
    const theirs = await world.outsider.client.call('POST', `/workspaces/${world.outsiderWorkspaceId}/api-keys`, { body: { name: 'Theirs' } });
    const answer = await world.owner.client.call('POST', `${base()}/api-keys/${theirs.body.data.id}/revoke`);
    expect(answer.status).toBe(404);
  });

  it('pages newest first', async () => {
    for (let i = 0; i < 3; i++) {
      ctx.api.clock.advance(1);
      await world.owner.client.call('POST', `${base()}/api-keys`, { body: { name: `Paged ${i}` } });
    }
    const first = await world.owner.client.call('GET', `${base()}/api-keys?limit=2`);
    expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['Paged 2', 'Paged 1']);
    const second = await world.owner.client.call('GET', `${base()}/api-keys?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data[0].name).toBe('Paged 0');
  });

  // console-api.yaml "Lists": a cursor is one of this list, in this workspace.
  it('refuses the same list\'s cursor from another workspace with 400 naming the cursor', async () => {
    const elsewhere = `/workspaces/${world.outsiderWorkspaceId}/api-keys`;
    for (let i = 0; i < 2; i++) {
      ctx.api.clock.advance(1);
      await world.outsider.client.call('POST', elsewhere, { body: { name: `Elsewhere ${i}` } });
    }
    const first = await world.outsider.client.call('GET', `${elsewhere}?limit=1`);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const answer = await world.owner.client.call('GET', `${base()}/api-keys?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  });
  it.each([
    ['a line break', 'CRM\nAccept the invitation: http://evil.example/phish'],
    ['the line separator U+2028', 'CRM\u2028sync'],
    ['a control character', 'CRM\u0085sync'],
  ])('refuses a name with %s at its field, and makes no key', async (_what, name) => {
    const answer = await world.owner.client.call('POST', `${base()}/api-keys`, { body: { name } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    const [row] = await ctx.api.db.sql<{ n: number }[]>`select count(*)::int as n from api_keys where name = ${name}`;
    expect(row!.n).toBe(0);
  });
});

describe('endpoints', () => {
  it('answers the secret once; later answers carry state, streak of 5, and 24 hourly stats', async () => {
    const created = await world.owner.client.call('POST', `${base()}/endpoints`, { body: { url: 'https://hooks.test/r', events: ['offer.sent'] } });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const got = await world.member.client.call('GET', `${base()}/endpoints/${created.body.data.id}`);
    expect(got.body.data).toMatchObject({
      url: 'https://hooks.test/r',
      events: ['offer.sent'],
      state: 'active',
      paused_at: null,
      paused_reason: null,
      failure_streak: 0,
      failure_streak_limit: 5,
      stats: { success_rate_24h: null, attempts_24h: 0 },
    });
    expect(got.body.data.secret).toBeUndefined();
    const hours = got.body.data.stats.hourly.map((h: { hour: string }) => new Date(h.hour).getTime());
    expect(hours).toHaveLength(24);
    expect(hours[23] - hours[0]).toBe(23 * HOUR);
    expect(got.text).not.toContain(created.body.data.secret);
  });

  it('edits the events alone, keeping the address', async () => {
    const created = await world.owner.client.call('POST', `${base()}/endpoints`, { body: { url: 'https://hooks.test/e', events: ['offer.sent'] } });
    const changed = await world.owner.client.call('PATCH', `${base()}/endpoints/${created.body.data.id}`, { body: { events: ['offer.expired'] } });
    expect(changed.body.data).toMatchObject({ url: 'https://hooks.test/e', events: ['offer.expired'] });
    const empty = await world.owner.client.call('PATCH', `${base()}/endpoints/${created.body.data.id}`, { body: {} });
    expect(empty.status).toBe(400);
  });

  it('removing says what it cancelled and dropped, and the endpoint is gone', async () => {
    const created = await world.owner.client.call('POST', `${base()}/endpoints`, { body: { url: 'https://hooks.test/gone', events: ['offer.sent'] } });
    const removed = await world.owner.client.call('DELETE', `${base()}/endpoints/${created.body.data.id}`);
    expect(removed.body.data).toEqual({ id: created.body.data.id, cancelled_deliveries: 0, dropped_events: 0 });
    expect((await world.owner.client.call('GET', `${base()}/endpoints/${created.body.data.id}`)).status).toBe(404);
  });
});

describe('event types', () => {
  it('lists the subscribable types with their one-line description from openapi.yaml, without ping', async () => {
    const answer = await world.member.client.call('GET', '/event-types');
    expect(answer.body.data.map((t: { type: string }) => t.type)).toEqual([
      'offer.sent',
      'offer.first_viewed',
      'offer.signed',
      'offer.accepted',
      'offer.withdrawn',
      'offer.expired',
    ]);
    expect(answer.body.data[0]).toEqual({ type: 'offer.sent', description: 'An offer was sent' });
    expect(answer.body.next_cursor).toBeNull();
  });
});
