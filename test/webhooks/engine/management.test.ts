import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { DomainError } from '../../../src/domain/errors.js';
import {
  addEndpoint,
  listEndpoints,
  removeEndpoint,
  resumeEndpoint,
  rotateSecret,
  showEndpoint,
  testEndpoint,
} from '../../../src/webhooks/management/endpoints.js';
import { openSecret } from '../../../src/sealing/secrets.js';
import { endpoint, memberOf, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture();

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('endpoint management', () => {
  it('adds an endpoint and shows its whsec_ secret once, storing it only encrypted', async () => {
    const ws = await workspace(f);
    const added = await endpoint(f, ws, { events: ['offer.sent', 'offer.accepted'] });

    expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = await f.sql<{ secret_sealed: Buffer }[]>`select secret_sealed from webhook_endpoints`;
    expect(row!.secret_sealed.toString('latin1')).not.toContain(added.secret);
    expect(openSecret({ current: f.deps.masterKey, previous: [] }, added.id, row!.secret_sealed)).toBe(added.secret);
    expect(await showEndpoint(f.manage, { endpointId: added.id })).not.toHaveProperty('secret');
  });

  it('lists endpoints with state, events and failure streak', async () => {
    const ws = await workspace(f);
    const added = await endpoint(f, ws, { events: ['offer.sent'] });
    expect(await listEndpoints(f.manage, { workspaceId: ws.workspaceId })).toEqual([
      expect.objectContaining({ id: added.id, url: 'https://hooks.test/webhooks', events: ['offer.sent'], state: 'active', failure_streak: 0 }),
    ]);
  });

  it.each([
    ['http://hooks.test/x', /https/],
    ['https://hooks.test:8443/x', /port 443/],
    ['https://user:pw@hooks.test/x', /credentials/],
    ['https://127.0.0.1/x', /IP address/],
    ['https://localhost/x', /internal|public/],
  ])('refuses the address %s with the reason', async (url, reason) => {
    const ws = await workspace(f);
    const error = await refusal(addEndpoint(f.manage, { workspaceId: ws.workspaceId, url, events: ['offer.sent'], actorId: ws.ownerId }));
    expect(error.message).toMatch(/^endpoint address refused: /);
    expect(error.message).toMatch(reason);
  });

  it("refuses an address on any workspace's custom offer domain", async () => {
    await workspace(f, { offerDomain: 'offers.agency.test' });
    const ws = await workspace(f);
    const error = await refusal(
      addEndpoint(f.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.offers.agency.test/x', events: ['offer.sent'], actorId: ws.ownerId }),
    );
    expect(error.message).toMatch(/custom offer-page domain/);
  });

  it('refuses ping and unknown types as subscriptions', async () => {
    const ws = await workspace(f);
    const add = (events: string[]) => addEndpoint(f.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/x', events, actorId: ws.ownerId });
    expect((await refusal(add(['ping']))).message).toMatch(/ping cannot be subscribed/);
    expect((await refusal(add(['offer.declined']))).message).toMatch(/unknown event type/);
    expect((await refusal(add([]))).message).toMatch(/at least one/);
  });

  it.each(['add', 'test', 'rotate-secret', 'resume', 'remove'])('refuses a member who tries to %s', async (action) => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    const member = await memberOf(f, ws.workspaceId, 'member');
    const attempt = {
      add: () => addEndpoint(f.manage, { workspaceId: ws.workspaceId, url: 'https://other.test/x', events: ['offer.sent'], actorId: member }),
      test: () => testEndpoint(f.manage, { endpointId: ep.id, actorId: member }),
      'rotate-secret': () => rotateSecret(f.manage, { endpointId: ep.id, actorId: member }),
      resume: () => resumeEndpoint(f.manage, { endpointId: ep.id, actorId: member }),
      remove: () => removeEndpoint(f.manage, { endpointId: ep.id, actorId: member }),
    }[action]!;
    const error = await refusal(attempt());
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/is member .* needs owner or admin/);
  });

  it('lets an admin add an endpoint', async () => {
    const ws = await workspace(f);
    const admin = await memberOf(f, ws.workspaceId, 'admin');
    await expect(
      addEndpoint(f.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/x', events: ['offer.sent'], actorId: admin }),
    ).resolves.toHaveProperty('secret');
  });

  it('signs the next attempt with a rotated secret at once', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    const { secret } = await rotateSecret(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(secret).not.toBe(ep.secret);
    expect(f.sender.sent[0]!.secret).toBe(secret);
  });

  it('sends a ping with data {} to the tested endpoint only', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws, { url: 'https://hooks.test/tested' });
    await endpoint(f, ws, { url: 'https://other.test/untouched' });
    const queued = await testEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await f.engine.dispatchOnce();

    expect(f.sender.sent).toHaveLength(1);
    const body = JSON.parse(f.sender.sent[0]!.body);
    expect(body).toEqual({ id: queued.webhook_id, type: 'ping', created_at: f.clock.now().toISOString(), api_version: 'v1', data: {} });
    expect(f.sender.sent[0]!.url).toBe('https://hooks.test/tested');
  });

  it('allows a test of a paused endpoint, to check the receiver before resuming', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await f.sql`update webhook_endpoints set state = 'paused', paused_at = now() where id = ${ep.id}::uuid`;
    await testEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await f.engine.dispatchOnce();
    expect(f.sender.sent).toHaveLength(1);
  });

  it('removes an endpoint: it receives nothing more and its open deliveries are cancelled', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    const removed = await removeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await sentOffer(f, ws.workspaceId, 'Later');
    f.clock.advance(MINUTE);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(removed).toMatchObject({ cancelled_deliveries: 1 });
    expect(f.sender.sent).toHaveLength(0);
    expect(await listEndpoints(f.manage, { workspaceId: ws.workspaceId })).toEqual([]);
    expect((await refusal(showEndpoint(f.manage, { endpointId: ep.id }))).code).toBe('not_found');
  });
});
