import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { ConfigError } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { checkMasterKeys } from '../../../src/sealing/key-check.js';
import { FAILURES_IN_A_ROW_TO_PAUSE } from '../../../src/webhooks/engine/policy.js';
import { rekeySecrets } from '../../../src/webhooks/management/rekey.js';
import { masterKeyId, openSecret, sealSecret, sealedKeyId } from '../../../src/sealing/secrets.js';
import { endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture();
const silent = createLogger('silent');

async function sealedOf(endpointId: string): Promise<Buffer> {
  const [row] = await f.sql<{ secret_sealed: Buffer }[]>`select secret_sealed from webhook_endpoints where id = ${endpointId}::uuid`;
  return row!.secret_sealed;
}

async function setSealed(endpointId: string, sealed: Buffer): Promise<void> {
  await f.sql`update webhook_endpoints set secret_sealed = ${sealed} where id = ${endpointId}::uuid`;
}

describe('the master key check at start', () => {
  it('refuses, in one line naming the key ids, a key that cannot open the stored secrets', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    const other = randomBytes(32);
    const refusal = await checkMasterKeys(f.sql, { current: other, previous: [] }, silent).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ConfigError);
    const message = (refusal as Error).message;
    expect(message).toMatch(/^the master key cannot open the stored webhook secrets: 1 endpoint\(s\) are sealed under master key id [0-9a-f]{8}/);
    expect(message).toContain(`the current key (OFFERDESK_MASTER_KEY) is key id ${masterKeyId(other)}`);
    expect(message).toContain(masterKeyId(f.deps.masterKey));
    expect(message).not.toContain('\n');
    expect(message).not.toContain(f.deps.masterKey.toString('base64'));
  });

  it('accepts the old key as a previous one during a rotation and counts what is left to rekey', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await endpoint(f, ws, { url: 'https://other.test/in' });
    const rotated = randomBytes(32);
    expect(await checkMasterKeys(f.sql, { current: rotated, previous: [f.deps.masterKey] }, silent)).toEqual({ current: 0, toRekey: 2 });
    expect(await checkMasterKeys(f.sql, { current: f.deps.masterKey, previous: [] }, silent)).toEqual({ current: 2, toRekey: 0 });
  });

  it('passes on a database without endpoints (a first start)', async () => {
    expect(await checkMasterKeys(f.sql, { current: randomBytes(32), previous: [] }, silent)).toEqual({ current: 0, toRekey: 0 });
  });
});

describe('a secret that cannot be opened', () => {
  it('is never an attempt nor a failure of the subscriber: the delivery waits, the endpoint is not paused', async () => {
    const ws = await workspace(f);
    const victim = await endpoint(f, ws, { events: ['offer.sent'] });
    const donor = await endpoint(f, ws, { url: 'https://other.test/in', events: ['offer.accepted'] });
    const own = await sealedOf(victim.id);
    // A sealed value copied from another row does not open (it is bound to its endpoint id).
    await setSealed(victim.id, await sealedOf(donor.id));
    for (let i = 0; i < FAILURES_IN_A_ROW_TO_PAUSE + 2; i++) await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();

    for (let round = 0; round < 10; round++) {
      const outcomes = await f.engine.dispatchOnce();
      expect(outcomes.every((o) => o.kind === 'held')).toBe(true);
      f.clock.advance(MINUTE);
    }
    expect(f.sender.sent).toHaveLength(0);
    const [state] = await f.sql<{ state: string; failure_streak: number }[]>`
      select state, failure_streak from webhook_endpoints where id = ${victim.id}::uuid`;
    expect(state).toEqual({ state: 'active', failure_streak: 0 });
    const [counts] = await f.sql<{ attempts: number; pending: number; attempted: number }[]>`
      select (select count(*)::int from webhook_attempts) as attempts,
             count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where attempt_count > 0)::int as attempted
        from webhook_deliveries where endpoint_id = ${victim.id}::uuid`;
    expect(counts).toEqual({ attempts: 0, pending: FAILURES_IN_A_ROW_TO_PAUSE + 2, attempted: 0 });

    // Fixed by the operator (here: the right value back): every waiting delivery goes out.
    await setSealed(victim.id, own);
    f.clock.advance(MINUTE);
    const delivered: string[] = [];
    for (let outcomes = await f.engine.dispatchOnce(); outcomes.length > 0; outcomes = await f.engine.dispatchOnce()) {
      delivered.push(...outcomes.map((o) => o.kind));
    }
    expect(delivered).toEqual(Array(FAILURES_IN_A_ROW_TO_PAUSE + 2).fill('delivered'));
    expect(f.sender.sent[0]!.secret).toBe(victim.secret);
  });
});

describe('offerdesk secrets rekey (rekeySecrets)', () => {
  it('re-seals every secret under the current key in committed batches, resumable after an interruption', async () => {
    const ws = await workspace(f);
    const old = f.deps.masterKey;
    const added = [];
    for (const url of ['https://hooks.test/a', 'https://hooks.test/b', 'https://hooks.test/c', 'https://other.test/d', 'https://other.test/e']) {
      added.push(await endpoint(f, ws, { url, events: ['offer.sent'] }));
    }
    const rotated = { current: randomBytes(32), previous: [old] };

    const interrupted = await rekeySecrets(f.sql, rotated, {
      batchSize: 2,
      progress: () => {
        throw new Error('killed after the first batch');
      },
    }).catch((e: unknown) => e);
    expect(interrupted).toBeInstanceOf(Error);
    expect(await checkMasterKeys(f.sql, rotated, silent)).toEqual({ current: 2, toRekey: 3 });

    const progress: Array<{ done: number; total: number }> = [];
    const result = await rekeySecrets(f.sql, rotated, { batchSize: 2, progress: (p) => progress.push(p) });
    expect(result).toEqual({ key_id: masterKeyId(rotated.current), resealed: 3, unopenable: [] });
    expect(progress).toEqual([
      { done: 2, total: 3, resealed: 2 },
      { done: 3, total: 3, resealed: 3 },
    ]);

    // The old key is no longer needed: every secret opens with the new one alone, unchanged.
    const onlyNew = { current: rotated.current, previous: [] };
    expect(await checkMasterKeys(f.sql, onlyNew, silent)).toEqual({ current: 5, toRekey: 0 });
    for (const one of added) {
      const sealed = await sealedOf(one.id);
      expect(sealedKeyId(sealed)).toBe(masterKeyId(rotated.current));
      expect(openSecret(onlyNew, one.id, sealed)).toBe(one.secret);
    }
    expect(await rekeySecrets(f.sql, onlyNew)).toMatchObject({ resealed: 0 });
  });

  it('leaves a secret no configured key opens as it was and names it', async () => {
    const ws = await workspace(f);
    const lost = await endpoint(f, ws);
    const kept = await endpoint(f, ws, { url: 'https://other.test/in' });
    await setSealed(lost.id, sealSecret(randomBytes(32), lost.id, lost.secret));
    const before = await sealedOf(lost.id);
    const rotated = { current: randomBytes(32), previous: [f.deps.masterKey] };
    const result = await rekeySecrets(f.sql, rotated);
    expect(result).toMatchObject({ resealed: 1, unopenable: [lost.id] });
    expect((await sealedOf(lost.id)).equals(before)).toBe(true);
    expect(openSecret(rotated, kept.id, await sealedOf(kept.id))).toBe(kept.secret);
  });
});
