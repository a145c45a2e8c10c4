import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signPayload } from '../../../src/webhooks/transport/signing.js';
import { generateEndpointSecret } from '../../../src/sealing/secrets.js';

/**
 * The Standard Webhooks reference vector (standard-webhooks spec and the reference library's own
 * tests); the npm package ships no tests, so the test below also checks it with the library.
 */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

function headersFor(msgId: string, timestamp: number, signature: string): Record<string, string> {
  return { 'webhook-id': msgId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('signPayload', () => {
  it('reproduces the official Standard Webhooks test vector', () => {
    expect(signPayload(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it('agrees with the reference library on the official test vector', () => {
    const reference = new Webhook(VECTOR.secret).sign(VECTOR.msgId, new Date(VECTOR.timestamp * 1000), VECTOR.payload);
    expect(reference).toBe(VECTOR.signature);
  });

  it('makes signatures that the reference library verifies', () => {
    const secret = generateEndpointSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: 'b5a2c1de-0000-4000-8000-000000000001', type: 'ping', data: {} });
    const signature = signPayload(secret, 'b5a2c1de-0000-4000-8000-000000000001', now, body);
    expect(() => new Webhook(secret).verify(body, headersFor('b5a2c1de-0000-4000-8000-000000000001', now, signature))).not.toThrow();
  });

  it('signs the UTF-8 bytes of a body with non-ASCII text so a receiver verifying raw bytes accepts it', () => {
    const secret = generateEndpointSecret();
    const now = Math.floor(Date.now() / 1000);
    const body = '{"title":"Angebot für Müller – 10 € 🚀"}';
    const signature = signPayload(secret, 'msg', now, body);
    expect(() => new Webhook(secret).verify(Buffer.from(body, 'utf8'), headersFor('msg', now, signature))).not.toThrow();
  });

  it('makes a signature that fails verification when one byte of the body changes', () => {
    const secret = generateEndpointSecret();
    const now = Math.floor(Date.now() / 1000);
    const signature = signPayload(secret, 'msg', now, '{"a":1}');
    expect(() => new Webhook(secret).verify('{"a":2}', headersFor('msg', now, signature))).toThrow();
  });

  it('makes a signature that fails verification under another timestamp', () => {
    const secret = generateEndpointSecret();
    const now = Math.floor(Date.now() / 1000);
    const signature = signPayload(secret, 'msg', now, '{"a":1}');
    expect(() => new Webhook(secret).verify('{"a":1}', headersFor('msg', now - 1, signature))).toThrow();
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => signPayload('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg', 1, '{}')).toThrow(/whsec_/);
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signPayload(VECTOR.secret, 'msg', 1614265330.5, '{}')).toThrow(/unix seconds/);
  });
});
