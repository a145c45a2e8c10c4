import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, loadCursorCodec } from '../../src/api/cursor.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

/**
 * The API's cursors are opaque and tamper-evident (openapi.yaml, "Pagination": "A cursor is used
 * only with the list it came from and must not be built or edited"). The pagination tests decode
 * only cursors the service sealed itself; these build tokens by hand, in the documented form
 * (base64url of the JSON, ".", the first 16 bytes of HMAC-SHA256 over the first part, in
 * base64url), with the right key, so that each check of the decoded payload is met on its own.
 */

const KEY = randomBytes(32);
const codec = new CursorCodec(KEY);

function macOf(body: string, key = KEY, bytes = 16): string {
  return createHmac('sha256', key).update(body).digest().subarray(0, bytes).toString('base64url');
}
function bodyOf(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
/** A token as the service would seal `value`. */
function sealed(value: unknown, key = KEY): string {
  const body = bodyOf(value);
  return `${body}.${macOf(body, key)}`;
}

const WORKSPACE = '7d1e0c55-3b7e-4b8e-9d61-2f0c1a9e4b11';
const OFFER = 'c2a4f6e8-1b3d-4f5a-8c7e-9d0b2a4c6e8f';
const CREATED_AT = '2026-03-01T12:00:00.000000Z';

const offersCompact = { l: 'o', w: WORKSPACE, s: null, c: CREATED_AT, i: OFFER };
const eventsCompact = { l: 'e', w: WORKSPACE, o: OFFER, q: 7 };

describe('cursors the service seals decode to what they name', () => {
  it('an offers cursor, without a status filter, round-trips', () => {
    const payload = { list: 'offers', workspaceId: WORKSPACE, status: null, createdAt: CREATED_AT, id: OFFER } as const;
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
  });

  it('an offers cursor with a status filter round-trips', () => {
    const payload = { list: 'offers', workspaceId: WORKSPACE, status: 'sent', createdAt: CREATED_AT, id: OFFER } as const;
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
  });

  it('a timeline cursor round-trips', () => {
    const payload = { list: 'events', workspaceId: WORKSPACE, offerId: OFFER, sequence: 12 } as const;
    expect(codec.decode(codec.encode(payload))).toEqual(payload);
  });

  it('the token is the documented form: base64url JSON, a dot, 16 bytes of HMAC-SHA256', () => {
    const token = codec.encode({ list: 'events', workspaceId: WORKSPACE, offerId: OFFER, sequence: 12 });
    const [body, mac] = token.split('.');
    expect(mac).toBe(macOf(body!));
    expect(Buffer.from(mac!, 'base64url')).toHaveLength(16);
    expect(JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'))).toMatchObject({ w: WORKSPACE, o: OFFER, q: 12 });
  });
});

describe('a payload sealed with the right key is still refused when a field is not what the list needs', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 7],
    ['a string', 'offers'],
    ['an object without a list', { w: WORKSPACE }],
    ['an unknown list', { ...offersCompact, l: 'x' }],
    ['a workspace that is not a string', { ...offersCompact, w: 7 }],
    ['a workspace that is not a UUID', { ...offersCompact, w: 'workspace' }],
    ['no workspace', { l: 'o', s: null, c: CREATED_AT, i: OFFER }],
    // An array holding a UUID reads as that UUID when made text: the type is checked first.
    ['a workspace that is an array holding a UUID', { ...offersCompact, w: [WORKSPACE] }],
    ['a timeline payload under an unknown list', { ...eventsCompact, l: 'x' }],
  ])('%s', (_name, value) => {
    expect(codec.decode(sealed(value))).toBeNull();
  });

  it.each<[string, unknown]>([
    ['an unknown status', { ...offersCompact, s: 'archived' }],
    ['a status that is not a string', { ...offersCompact, s: 1 }],
    ['no status at all', { l: 'o', w: WORKSPACE, c: CREATED_AT, i: OFFER }],
    ['a position time that is not a string', { ...offersCompact, c: 1_700_000_000 }],
    ['an offer ID that is not a string', { ...offersCompact, i: 7 }],
    ['an offer ID that is not a UUID', { ...offersCompact, i: 'offer' }],
    ['an offer ID that is an array holding a UUID', { ...offersCompact, i: [OFFER] }],
    ['no offer ID', { l: 'o', w: WORKSPACE, s: null, c: CREATED_AT }],
  ])('offers list: %s', (_name, value) => {
    expect(codec.decode(sealed(value))).toBeNull();
  });

  it.each(['draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn'])('offers list: the status filter %s is read', (status) => {
    expect(codec.decode(sealed({ ...offersCompact, s: status }))).toMatchObject({ list: 'offers', status });
  });

  // The position time is compared in SQL; 64 characters is more than any timestamp the service writes.
  it.each([
    [63, true],
    [64, true],
    [65, false],
  ])('offers list: a position time of %i characters is read: %s', (length, read) => {
    const createdAt = CREATED_AT.padEnd(length, '0');
    const decoded = codec.decode(sealed({ ...offersCompact, c: createdAt }));
    expect(decoded).toEqual(read ? { list: 'offers', workspaceId: WORKSPACE, status: null, createdAt, id: OFFER } : null);
  });

  it.each<[string, unknown]>([
    ['an offer ID that is not a string', { ...eventsCompact, o: 7 }],
    ['an offer ID that is not a UUID', { ...eventsCompact, o: 'offer' }],
    ['an offer ID that is an array holding a UUID', { ...eventsCompact, o: [OFFER] }],
    ['a sequence that is an array holding a number', { ...eventsCompact, q: [7] }],
    ['no offer ID', { l: 'e', w: WORKSPACE, q: 7 }],
    ['a sequence that is a string', { ...eventsCompact, q: '7' }],
    ['a sequence that is not whole', { ...eventsCompact, q: 1.5 }],
    ['a sequence past the safe integers', { ...eventsCompact, q: 2 ** 53 }],
    ['a sequence of 0', { ...eventsCompact, q: 0 }],
    ['a negative sequence', { ...eventsCompact, q: -1 }],
    ['no sequence', { l: 'e', w: WORKSPACE, o: OFFER }],
  ])('timeline: %s', (_name, value) => {
    expect(codec.decode(sealed(value))).toBeNull();
  });

  // A timeline starts at sequence 1; a cursor names the last event of a page.
  it.each([1, 2, Number.MAX_SAFE_INTEGER])('timeline: the sequence %i is read', (sequence) => {
    expect(codec.decode(sealed({ ...eventsCompact, q: sequence }))).toEqual({
      list: 'events',
      workspaceId: WORKSPACE,
      offerId: OFFER,
      sequence,
    });
  });
});

describe('a token that is not exactly one the service sealed is refused', () => {
  const good = sealed(eventsCompact);
  const [body, mac] = good.split('.') as [string, string];

  it('the unmodified token is read (the baseline of this table)', () => {
    expect(codec.decode(good)).not.toBeNull();
  });

  it.each([
    ['empty', ''],
    ['no dot', body + mac],
    ['nothing before the dot', `.${mac}`],
    ['nothing after the dot', `${body}.`],
    ['a MAC one byte short (15 bytes)', `${body}.${macOf(body, KEY, 15)}`],
    ['a MAC one byte long (17 bytes)', `${body}.${macOf(body, KEY, 17)}`],
    ['the whole 32-byte MAC', `${body}.${macOf(body, KEY, 32)}`],
    ['the MAC with padding added', `${body}.${mac}==`],
    ['the MAC with a character the encoding skips', `${body}.${mac.slice(0, 4)}!${mac.slice(4)}`],
    ['the MAC of another key', sealed(eventsCompact, randomBytes(32))],
    ['another body under the first MAC', `${bodyOf({ ...eventsCompact, q: 8 })}.${mac}`],
    ['a second dot', `${good}.${mac}`],
  ])('%s', (_name, token) => {
    expect(codec.decode(token)).toBeNull();
  });

  it('nothing before the dot, even under the MAC of an empty body', () => {
    expect(codec.decode(`.${macOf('')}`)).toBeNull();
  });

  it('a body that is not JSON, under its right MAC', () => {
    const notJson = Buffer.from('{"l":"e",').toString('base64url');
    expect(codec.decode(`${notJson}.${macOf(notJson)}`)).toBeNull();
  });
});

describe('the cursor key is one per database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db.drop());

  it('every process on one database reads the others\' cursors, sealed with the 32-byte key it keeps', async () => {
    const first = await loadCursorCodec(db.sql);
    const second = await loadCursorCodec(db.sql);
    const token = first.encode({ list: 'events', workspaceId: WORKSPACE, offerId: OFFER, sequence: 3 });
    expect(second.decode(token)).toEqual({ list: 'events', workspaceId: WORKSPACE, offerId: OFFER, sequence: 3 });

    const [row] = await db.sql<{ value: Buffer }[]>`select value from service_secrets where name = 'cursor_hmac_key'`;
    expect(row!.value).toHaveLength(32);
    expect(second.decode(sealed({ ...eventsCompact, q: 3 }, row!.value))).toMatchObject({ sequence: 3 });
    expect(token).toBe(sealed({ l: 'e', w: WORKSPACE, o: OFFER, q: 3 }, row!.value));
  });

  it('a cursor of another database\'s key is refused', async () => {
    const here = await loadCursorCodec(db.sql);
    expect(here.decode(new CursorCodec(randomBytes(32)).encode({ list: 'events', workspaceId: WORKSPACE, offerId: OFFER, sequence: 3 }))).toBeNull();
  });
});
