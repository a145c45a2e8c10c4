import { beforeAll, describe, expect, it } from 'vitest';
import { resendDelivery } from '../../src/webhooks/management/resend.js';
import { markEndpointPaused } from '../../src/webhooks/sql/markEndpointPaused.js';
import { consoleWorld, type ConsoleWorld, useConsoleApi } from './helpers.js';
import { finishOpenDeliveries } from '../support/deliveries.js';

/** Every management change and sign-in appears in the workspace's audit log, never with a secret. */
const ctx = useConsoleApi();
let world: ConsoleWorld;
beforeAll(async () => {
  world = await consoleWorld(ctx.api);
});

const base = () => `/workspaces/${world.workspaceId}`;

async function auditLog(): Promise<any[]> {
  const answer = await world.member.client.call('GET', `${base()}/audit-log?limit=100`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}

describe('audit entries of console changes', () => {
  const secrets: string[] = [];
  let keyId: string;
  let endpointId: string;

  it('records each change with actor, "console", target, details and the client address', async () => {
    const owner = world.owner;
    // Entries of one millisecond have no order among themselves; a person's changes are further apart.
    const tick = () => ctx.api.clock.advance(1);
    tick();
    const key = await owner.client.call('POST', `${base()}/api-keys`, { body: { name: 'CRM sync' } });
    keyId = key.body.data.id;
    secrets.push(key.body.data.value);
    tick();
    await owner.client.call('POST', `${base()}/api-keys/${keyId}/revoke`);
    tick();
    const endpoint = await world.admin.client.call('POST', `${base()}/endpoints`, { body: { url: 'https://hooks.test/a', events: ['offer.sent'] } });
    endpointId = endpoint.body.data.id;
    secrets.push(endpoint.body.data.secret);
    tick();
    const ep = `${base()}/endpoints/${endpointId}`;
    await owner.client.call('PATCH', ep, { body: { url: 'https://other.test/b', events: ['offer.sent', 'offer.accepted'] } });
    tick();
    const test = await owner.client.call('POST', `${ep}/test`);
    tick();
    const rotated = await owner.client.call('POST', `${ep}/rotate-secret`);
    secrets.push(rotated.body.data.secret);
    tick();
    await markEndpointPaused(ctx.api.db.sql, { endpointId, now: ctx.api.clock.now() });
    await owner.client.call('POST', `${ep}/resume`);
    tick();
    // The test delivery, finished as failed, resent by the domain function the console's delivery log uses.
    await finishOpenDeliveries(ctx.api.db.sql, ctx.api.db.sql`d.id = ${test.body.data.delivery_id}::uuid`, {
      status: 'failed',
      at: ctx.api.clock.now(),
    });
    await resendDelivery(
      { sql: ctx.api.db.sql, clock: ctx.api.clock, config: ctx.api.config.webhooks },
      { deliveryId: test.body.data.delivery_id, actorId: owner.id, via: { label: 'console', ip: '127.0.0.1' } },
    );
    tick();
    await owner.client.call('DELETE', ep);

    const entries = await auditLog();
    const actions = entries.map((e) => e.action);
    expect(actions.slice(0, 9)).toEqual([
      'endpoint.removed',
      'delivery.resent',
      'endpoint.resumed',
      'endpoint.secret_rotated',
      'endpoint.tested',
      'endpoint.updated',
      'endpoint.added',
      'api_key.revoked',
      'api_key.created',
    ]);
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction['api_key.created']).toMatchObject({
      actor: { id: world.owner.id, email: world.owner.email },
      actor_label: 'console',
      target: { type: 'api_key', id: keyId },
      details: { name: 'CRM sync', prefix: secrets[0]!.slice(0, 13) },
      ip: '127.0.0.1',
    });
    expect(byAction['endpoint.added']).toMatchObject({
      actor: { id: world.admin.id },
      target: { type: 'endpoint', id: endpointId },
      details: { url: 'https://hooks.test/a', events: ['offer.sent'] },
    });
    expect(byAction['endpoint.updated'].details).toEqual({
      url_before: 'https://hooks.test/a',
      url: 'https://other.test/b',
      events_before: ['offer.sent'],
      events: ['offer.sent', 'offer.accepted'],
    });
    expect(byAction['endpoint.tested'].details).toEqual({ delivery_id: test.body.data.delivery_id, webhook_id: test.body.data.webhook_id });
    expect(byAction['endpoint.resumed'].details).toEqual({ was: 'paused' });
    expect(byAction['delivery.resent']).toMatchObject({ target: { type: 'delivery', id: test.body.data.delivery_id }, details: { resend: 1 } });
    expect(byAction['endpoint.removed'].details).toMatchObject({ url: 'https://other.test/b' });
    for (const entry of entries) expect(entry.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('records sign-ins in every workspace of the account', async () => {
    const entries = await auditLog();
    const signIns = entries.filter((e) => e.action === 'signed_in');
    expect(signIns.map((e) => e.actor.id).sort()).toEqual([world.owner.id, world.admin.id, world.member.id].sort());
    expect(signIns[0]).toMatchObject({ actor_label: 'console', ip: '127.0.0.1', details: { method: 'password' }, target: null });
    // The outsider signed in too, but not into this workspace's log.
    expect(entries.some((e) => e.actor?.id === world.outsider.id)).toBe(false);
  });

  it('never holds a key value or a secret, and no later answer shows them', async () => {
    const stored = JSON.stringify(await ctx.api.db.sql`select * from audit_entries`);
    const answers = [
      (await world.owner.client.call('GET', `${base()}/audit-log?limit=100`)).text,
      (await world.owner.client.call('GET', `${base()}/api-keys`)).text,
      (await world.owner.client.call('GET', `${base()}/endpoints`)).text,
    ];
    expect(secrets).toHaveLength(3);
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      for (const text of answers) expect(text).not.toContain(secret);
      // Not even the random part of a whsec_ secret or an odk_live_ key.
      expect(stored).not.toContain(secret.slice(-20));
    }
  });

  it('is refused, like every read, to an account of another workspace', async () => {
    const answer = await world.outsider.client.call('GET', `${base()}/audit-log`);
    expect(answer.status).toBe(404);
  });

  it('pages newest first with a cursor that only this list accepts', async () => {
    const all = await auditLog();
    const first = await world.owner.client.call('GET', `${base()}/audit-log?limit=4`);
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual(all.slice(0, 4).map((e) => e.id));
    const second = await world.owner.client.call('GET', `${base()}/audit-log?limit=4&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((e: { id: string }) => e.id)).toEqual(all.slice(4, 8).map((e) => e.id));
    const elsewhere = await world.owner.client.call('GET', `${base()}/api-keys?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.param).toBe('cursor');
    const tooBig = await world.owner.client.call('GET', `${base()}/audit-log?limit=101`);
    expect(tooBig.body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
  });
});
