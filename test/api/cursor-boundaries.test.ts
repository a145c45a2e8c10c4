import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timelineCursor } from '../../src/api/resources/offer-events.js';
import { offersCursor } from '../../src/api/resources/offers.js';
import { API_CURSOR_KEY, Cursors, inWorkspace, isPositionTime, loadCursors } from '../../src/http/cursor.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

/**
 * The API's cursors are opaque and tamper-evident (openapi.yaml, "Pagination": "A cursor is used
 * only with the list it came from and must not be built or edited"). The pagination tests decode
 * only cursors the service sealed itself; these build tokens by hand, in the documented form
 * (base64url of the JSON, ".", the first 16 bytes of HMAC-SHA256 over the first part, in
 * base64url), with the right key, so that each check of the decoded payload is met on its own.
 */

const KEY = randomBytes(32);
const cursors = new Cursors(KEY);

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

/** The token as the offers list reads it, on the walk of `status` (none: no filter). */
const openOffers = (token: string, status: string | null = null) => cursors.open(offersCursor, token, status as never);
/** The token as the timeline of OFFER reads it. */
const openTimeline = (token: string, offerId = OFFER) => cursors.open(timelineCursor, token, offerId);
/** Refused by both lists. */
const refused = (token: string) => openOffers(token) === null && openTimeline(token) === null;

describe('cursors the service seals decode to what they name', () => {
  it('an offers cursor, without a status filter, round-trips', () => {
    const cursor = { workspaceId: WORKSPACE, walk: null, position: { createdAt: CREATED_AT, id: OFFER } };
    expect(openOffers(cursors.seal(offersCursor, cursor))).toEqual(cursor);
  });

  it('an offers cursor with a status filter round-trips', () => {
    const cursor = { workspaceId: WORKSPACE, walk: 'sent' as const, position: { createdAt: CREATED_AT, id: OFFER } };
    expect(openOffers(cursors.seal(offersCursor, cursor), 'sent')).toEqual(cursor);
  });

  it('a timeline cursor round-trips', () => {
    const cursor = { workspaceId: WORKSPACE, walk: OFFER, position: 12 };
    expect(openTimeline(cursors.seal(timelineCursor, cursor))).toEqual(cursor);
  });

  it('an offers cursor is sealed in the form integrators\' cursors already have', () => {
    const token = cursors.seal(offersCursor, { workspaceId: WORKSPACE, walk: 'sent', position: { createdAt: CREATED_AT, id: OFFER } });
    expect(token).toBe(sealed({ l: 'o', w: WORKSPACE, s: 'sent', c: CREATED_AT, i: OFFER }));
  });

  it('the token is the documented form: base64url JSON, a dot, 16 bytes of HMAC-SHA256', () => {
    const token = cursors.seal(timelineCursor, { workspaceId: WORKSPACE, walk: OFFER, position: 12 });
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
    expect(refused(sealed(value))).toBe(true);
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
    expect(openOffers(sealed(value), (value as { s?: string }).s ?? null)).toBeNull();
  });

  it.each(['draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn'])('offers list: the status filter %s is read', (status) => {
    expect(openOffers(sealed({ ...offersCompact, s: status }), status)).toMatchObject({ walk: status });
  });

  // The position time is compared in SQL; 64 characters is more than any timestamp the service writes.
  it.each([
    [63, true],
    [64, true],
    [65, false],
  ])('offers list: a position time of %i characters is read: %s', (length, read) => {
    const createdAt = CREATED_AT.padEnd(length, '0');
    const decoded = openOffers(sealed({ ...offersCompact, c: createdAt }));
    expect(decoded).toEqual(read ? { workspaceId: WORKSPACE, walk: null, position: { createdAt, id: OFFER } } : null);
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
    expect(openTimeline(sealed(value))).toBeNull();
  });

  // A timeline starts at sequence 1; a cursor names the last event of a page.
  it.each([1, 2, Number.MAX_SAFE_INTEGER])('timeline: the sequence %i is read', (sequence) => {
    expect(openTimeline(sealed({ ...eventsCompact, q: sequence }))).toEqual({ workspaceId: WORKSPACE, walk: OFFER, position: sequence });
  });
});

describe('a cursor is read only by the list and walk it came from', () => {
  it('an offers cursor is refused by the same list with another status filter', () => {
    expect(openOffers(sealed({ ...offersCompact, s: 'sent' }), null)).toBeNull();
  });

  it('an offers cursor without a filter is refused by the list filtered to a status', () => {
    expect(openOffers(sealed(offersCompact), 'sent')).toBeNull();
  });

  it('a timeline cursor is refused by the timeline of another offer', () => {
    expect(openTimeline(sealed(eventsCompact), '0b6f2d3e-8a41-4c2b-9f7e-5d1a3c9e2b40')).toBeNull();
  });

  it('an offers cursor is refused by a timeline, and a timeline cursor by the offers list', () => {
    expect(openTimeline(sealed({ ...offersCompact, o: OFFER, q: 7 }))).toBeNull();
    expect(openOffers(sealed({ ...eventsCompact, s: null, c: CREATED_AT, i: OFFER }))).toBeNull();
  });

  it('a cursor fits the workspace it was read for, and no other', () => {
    const cursor = openTimeline(sealed(eventsCompact));
    expect(inWorkspace(cursor, WORKSPACE)).toBe(true);
    expect(inWorkspace(cursor, '0b6f2d3e-8a41-4c2b-9f7e-5d1a3c9e2b40')).toBe(false);
  });

  it('positionIn reads the position only in the cursor\'s own workspace', () => {
    const token = sealed(eventsCompact);
    expect(cursors.positionIn(timelineCursor, token, OFFER, WORKSPACE)).toBe(7);
    expect(cursors.positionIn(timelineCursor, token, OFFER, '0b6f2d3e-8a41-4c2b-9f7e-5d1a3c9e2b40')).toBeNull();
  });

  it('positionIn answers null, not an error, for a token that is no cursor of the list', () => {
    expect(cursors.positionIn(timelineCursor, 'not-a-cursor', OFFER, WORKSPACE)).toBeNull();
    expect(cursors.positionIn(timelineCursor, sealed(offersCompact), OFFER, WORKSPACE)).toBeNull();
  });
});

describe('a position time is text of at most 64 characters', () => {
  it.each([
    { value: 'x'.repeat(64), ok: true },
    { value: 'x'.repeat(65), ok: false },
    { value: ['2026-03-01T12:00:00Z'], ok: false },
    { value: { length: 3 }, ok: false },
  ])('$value is a position time: $ok', ({ value, ok }) => {
    expect(isPositionTime(value)).toBe(ok);
  });
});

describe('a token that is not exactly one the service sealed is refused', () => {
  const good = sealed(eventsCompact);
  const [body, mac] = good.split('.') as [string, string];

  it('the unmodified token is read (the baseline of this table)', () => {
    expect(openTimeline(good)).not.toBeNull();
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
    expect(openTimeline(token)).toBeNull();
  });

  it('nothing before the dot, even under the MAC of an empty body', () => {
    expect(openTimeline(`.${macOf('')}`)).toBeNull();
  });

  it('a body that is not JSON, under its right MAC', () => {
    const notJson = Buffer.from('{"l":"e",').toString('base64url');
    expect(openTimeline(`${notJson}.${macOf(notJson)}`)).toBeNull();
  });
});

describe('the cursor key is one per database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db.drop());

  it('every process on one database reads the others\' cursors, sealed with the 32-byte key it keeps', async () => {
    const first = await loadCursors(db.sql, API_CURSOR_KEY);
    const second = await loadCursors(db.sql, API_CURSOR_KEY);
    const token = first.seal(timelineCursor, { workspaceId: WORKSPACE, walk: OFFER, position: 3 });
    expect(second.open(timelineCursor, token, OFFER)).toEqual({ workspaceId: WORKSPACE, walk: OFFER, position: 3 });

    const [row] = await db.sql<{ value: Buffer }[]>`select value from service_secrets where name = 'cursor_hmac_key'`;
    expect(row!.value).toHaveLength(32);
    expect(second.open(timelineCursor, sealed({ ...eventsCompact, q: 3 }, row!.value), OFFER)).toMatchObject({ position: 3 });
    expect(token).toBe(sealed({ l: 'e', w: WORKSPACE, o: OFFER, q: 3 }, row!.value));
  });

  it('a cursor of another database\'s key is refused', async () => {
    const here = await loadCursors(db.sql, API_CURSOR_KEY);
    const elsewhere = new Cursors(randomBytes(32)).seal(timelineCursor, { workspaceId: WORKSPACE, walk: OFFER, position: 3 });
    expect(here.open(timelineCursor, elsewhere, OFFER)).toBeNull();
  });
});
