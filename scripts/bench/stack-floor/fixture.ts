import type { Sql } from '../../../src/db/connect.js';
import type { Offer } from '../../../src/read-model/types.js';

/**
 * The one answer every rung of the stack-floor ladder serves: GET /api/v1/offers/{id} of an
 * accepted offer from the bench data (every field filled in), 589 bytes of JSON, about 900 on the
 * wire with the service's headers.
 */
export const OFFER: Offer = {
  id: '3ab3adfd-dd37-48ea-866b-0000000124f8',
  title: 'Trade fair booth for Ostsee Reisen',
  status: 'accepted',
  created_at: '2026-03-02T05:55:27.752Z',
  updated_at: '2026-03-08T01:21:32.467Z',
  sent_at: '2026-03-02T13:32:51.074Z',
  expires_at: '2026-03-25T09:04:30.115Z',
  accepted_at: '2026-03-08T01:21:32.467Z',
  expired_at: null,
  version: 1,
  recipient: { name: 'Elif Lindqvist', company: 'Ostsee Reisen', email: 'elif.lindqvist@ostsee-reisen.example' },
  accepted_by: { name: 'Elif Lindqvist', email: 'elif.lindqvist@ostsee-reisen.example' },
  value: { amount: 2026400, currency: 'EUR' },
};

export const WORKSPACE_ID = '3ab3adfd-dd37-48ea-866b-000000000001';
export const OFFER_PATH = `/api/v1/offers/${OFFER.id}`;
/** A well-formed key (SPEC.md "Authentication" 2), so the service's admission lets it through. */
export const API_KEY = 'odk_live_' + 'Bench0StackFloor0Key0'.repeat(2);

/**
 * What the service sends with that answer (src/service/app.ts's request log, admission's
 * RateLimit-* headers, http/respond.ts), values of the same length as the service's under the
 * bench's lifted limits. Rungs (a) to (c) send these as they are; rung (d) makes its own.
 */
export function fixedHeaders(body: string): Record<string, string | number> {
  return {
    'X-Request-Id': '0f8b5a7e-3c1d-4e2f-9a6b-7c8d9e0f1a2b',
    'RateLimit-Limit': '1000000000',
    'RateLimit-Remaining': '999999999',
    'RateLimit-Reset': '42',
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(body),
  };
}

export const BODY = JSON.stringify({ data: OFFER });

type Rows = Record<string, unknown>[];

/**
 * A stand-in for the postgres.js pool that answers the statements the service sends on its way
 * to one offer, from memory: the cursor keys at start, the health probe, and the key-scoped read
 * (src/read-model/scope.ts) with the row the offer above is made from. The service's own code runs
 * on top of it unchanged (fragments, row mapping, JSON); what is left out is postgres.js and the
 * database, which the bench's baseline pays as well. Any other statement fails loudly.
 */
/** postgres.js's identifier, as `sql(name)` makes it (src/db/once-built.ts knows it by its class name). */
class Identifier {
  readonly value: string;
  constructor(name: string) {
    this.value = `"${name.replace(/"/g, '""')}"`;
  }
}

export function cannedSql(): Sql {
  const cursorKey = Buffer.alloc(32, 7);
  const offerRow = {
    scope_workspace_id: WORKSPACE_ID,
    in_scope: true,
    id: OFFER.id,
    title: OFFER.title,
    status: OFFER.status,
    created_at: OFFER.created_at,
    updated_at: OFFER.updated_at,
    sent_at: OFFER.sent_at,
    expires_at: OFFER.expires_at,
    accepted_at: OFFER.accepted_at,
    expired_at: OFFER.expired_at,
    version: OFFER.version,
    recipient_name: OFFER.recipient.name,
    recipient_company: OFFER.recipient.company,
    recipient_email: OFFER.recipient.email,
    accepted_by_name: OFFER.accepted_by?.name ?? null,
    accepted_by_email: OFFER.accepted_by?.email ?? null,
    value_amount: OFFER.value.amount,
    currency: OFFER.value.currency,
    position: '2026-03-02 05:55:27.752+00',
  };
  const answers: [RegExp, () => Rows][] = [
    [/^\s*insert into service_secrets/, () => []],
    [/^\s*select value from service_secrets/, () => [{ value: cursorKey }]],
    [/^\s*select 1\s*$/, () => [{ '?column?': 1 }]],
    [/^\s*select scope_key\.workspace_id as scope_workspace_id/, () => [{ ...offerRow }]],
  ];
  // A template's strings array is the same object on every call from one place, and a once-built
  // statement's text (src/db/once-built.ts) the same string: look either up once.
  const byTemplate = new WeakMap<TemplateStringsArray, () => Rows>();
  const byText = new Map<string, () => Rows>();
  const find = (text: string): (() => Rows) =>
    answers.find(([pattern]) => pattern.test(text))?.[1] ??
    (() => {
      throw new Error(`stack-floor: no canned answer for ${text.slice(0, 120)}`);
    });
  const answerFor = (strings: TemplateStringsArray | readonly [string]): (() => Rows) => {
    if (!('raw' in strings)) {
      const text = strings[0];
      let answer = byText.get(text);
      if (!answer) byText.set(text, (answer = find(text)));
      return answer;
    }
    let answer = byTemplate.get(strings);
    if (!answer) byTemplate.set(strings, (answer = find(strings.join('$'))));
    return answer;
  };
  /**
   * postgres.js's `.values()`: each row an array in column order, and the statement's columns,
   * one array per statement as postgres.js keeps it (src/db/fixed-shape-rows.ts finds its row
   * builder by that array).
   */
  const columnsOf = new WeakMap<() => Rows, { name: string }[]>();
  const asValues = (answer: () => Rows) => (rows: Rows) => {
    let columns = columnsOf.get(answer);
    if (!columns) columnsOf.set(answer, (columns = Object.keys(rows[0] ?? {}).map((name) => ({ name }))));
    return Object.assign(
      rows.map((row) => Object.values(row)),
      { columns },
    );
  };
  /** A pending query as postgres.js makes one, with the fields src/db/once-built.ts writes a text from. */
  function query(strings: TemplateStringsArray | readonly [string], args: unknown[]) {
    const answer = <R, T>(shape: (canned: () => Rows) => (rows: Rows) => R, resolve: (rows: R) => T, reject: (error: unknown) => T) =>
      Promise.resolve()
        .then(() => {
          const canned = answerFor(strings);
          return shape(canned)(canned());
        })
        .then(resolve, reject);
    return {
      strings,
      args,
      tagged: 'raw' in strings,
      values() {
        return {
          then: <T>(resolve: (rows: ReturnType<ReturnType<typeof asValues>>) => T, reject: (error: unknown) => T) => answer(asValues, resolve, reject),
        };
      },
      cancel() {},
      then<T>(resolve: (rows: Rows) => T, reject: (error: unknown) => T) {
        return answer(() => (rows) => rows, resolve, reject);
      },
    };
  }
  function sql(first: unknown, ...values: unknown[]) {
    if (!Array.isArray(first) || !('raw' in first)) return new Identifier(String(first));
    return query(first as unknown as TemplateStringsArray, values);
  }
  sql.unsafe = (text: string, args: unknown[] = []) => query([text], args);
  sql.json = (value: unknown) => value;
  return sql as unknown as Sql;
}
