import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { Webhook } from 'standardwebhooks';
import { signPayload } from '../../src/webhooks/transport/signing.js';

/**
 * The signature test vector that openapi.yaml publishes in its `Webhooks` tag is read from the
 * document itself, so a vector edited by hand (or a signer that drifts) fails here. The reference
 * `standardwebhooks` library is the independent party.
 */
function publishedVector() {
  const doc = parse(readFileSync('openapi.yaml', 'utf8')) as { tags: { name: string; description: string }[] };
  const text = doc.tags.find((t) => t.name === 'Webhooks')!.description;
  const block = /\*\*Signature test vector\.\*\*[\s\S]*?```text\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('openapi.yaml: no "Signature test vector" block in the Webhooks tag');
  const value = (name: string) => {
    const line = block[1]!.split('\n').find((l) => l.startsWith(`${name}:`));
    if (!line) throw new Error(`signature test vector has no ${name}`);
    return line.slice(name.length + 1).trimStart();
  };
  return {
    secret: value('secret'),
    id: value('webhook-id'),
    timestamp: Number(value('webhook-timestamp')),
    body: value('body'),
    signature: value('webhook-signature'),
  };
}

describe('the signature test vector of openapi.yaml', () => {
  afterEach(() => vi.useRealTimers());

  it('is reproduced by the reference standardwebhooks library', () => {
    const v = publishedVector();
    expect(new Webhook(v.secret).sign(v.id, new Date(v.timestamp * 1000), v.body)).toBe(v.signature);
  });

  it('verifies with the reference library at its timestamp', () => {
    const v = publishedVector();
    vi.useFakeTimers({ toFake: ['Date'], now: v.timestamp * 1000 + 30_000 });
    const headers = { 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.signature };
    expect(new Webhook(v.secret).verify(v.body, headers)).toEqual(JSON.parse(v.body));
    expect(() => new Webhook(v.secret).verify(v.body.replace('ping', 'pong'), headers)).toThrow();
  });

  it('is what the service signs for those values', () => {
    const v = publishedVector();
    expect(signPayload(v.secret, v.id, v.timestamp, v.body)).toBe(v.signature);
  });

  it('has a body that is a valid ping event with the published id', () => {
    const v = publishedVector();
    expect(JSON.parse(v.body)).toMatchObject({ id: v.id, type: 'ping', api_version: 'v1', data: {} });
  });
});
