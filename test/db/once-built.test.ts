import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Queryable, type Sql } from '../../src/db/connect.js';
import { onceBuilt } from '../../src/db/once-built.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

/**
 * A once-built statement (src/db/once-built.ts) must reach PostgreSQL exactly as the same
 * fragments would: the same text, the same parameters in the same order. postgres.js's `debug`
 * hook shows what each path sends.
 */
describe('a statement built once per shape', () => {
  let db: TestDatabase;
  let sql: Sql;
  const sent: { text: string; parameters: unknown[] }[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
    sql = connect(db.url, { max: 1, debug: (_connection, text, parameters) => sent.push({ text, parameters: [...parameters] }) });
    // The connection's first statements are postgres.js's own (its look-up of array types).
    await sql`select 1`;
  });
  afterAll(async () => {
    await sql.end();
    await db.drop();
  });

  interface Shape {
    filter: boolean;
    rows: number;
  }
  interface Values {
    from: number;
    label: string;
    at: Date;
  }

  /** Nested fragments, an identifier, unsafe text, an empty fragment, a list of fragments, a value used twice. */
  function build(q: Queryable, shape: Shape, values: Values) {
    const bound = (alias: string) => q`${q(alias)}.n >= ${values.from}`;
    return q`
      select g.n, ${values.label}::text as label, ${values.at}::timestamptz as at
        from generate_series(1, 10) as g(n)
       where ${bound('g')} ${shape.filter ? q`and g.n <= ${values.from} + 3` : q``}
         ${[q`and true`, q`and g.n > 0`]}
       order by g.n
       limit ${q.unsafe(String(shape.rows))}`;
  }

  async function sentBy(run: () => Promise<unknown>) {
    sent.length = 0;
    const rows = await run();
    return { rows, sent: [...sent] };
  }

  it('sends the text and parameters that the fragments would, and reads the same rows', async () => {
    const statement = onceBuilt({ key: (shape: Shape) => `${shape.filter}:${shape.rows}`, build });
    const at = new Date('2026-11-26T12:00:00Z');
    for (const shape of [
      { filter: true, rows: 5 },
      { filter: false, rows: 3 },
      { filter: true, rows: 5 },
    ]) {
      for (const values of [
        { from: 2, label: 'a', at },
        { from: 7, label: "it's", at: new Date(at.getTime() + 1) },
      ]) {
        const direct = await sentBy(() => build(sql, shape, values).values());
        const once = await sentBy(() => statement.values(sql, shape, values));
        expect(once.sent).toEqual(direct.sent);
        expect(once.sent).toHaveLength(1);
        expect([...(once.rows as unknown[][])]).toEqual([...(direct.rows as unknown[][])]);
      }
    }
    // Parameters in order of appearance, one per occurrence: `from` twice with the filter.
    expect(statement.textOf(sql, { filter: true, rows: 5 }, { from: 0, label: '', at }).order).toEqual(['label', 'at', 'from', 'from']);
  });

  it('builds each shape once (twice on first use: with stand-ins and with the real values, to compare)', async () => {
    let builds = 0;
    const statement = onceBuilt({
      key: (shape: Shape) => `${shape.filter}:${shape.rows}`,
      build: (q: Queryable, shape: Shape, values: Values) => (builds++, build(q, shape, values)),
    });
    const values = { from: 1, label: 'x', at: new Date() };
    for (let i = 0; i < 5; i++) await statement.values(sql, { filter: true, rows: 4 }, { ...values, from: i });
    expect(builds).toBe(2);
    await statement.values(sql, { filter: false, rows: 4 }, values);
    expect(builds).toBe(4);
  });

  it('refuses a value written into a fragment directly, before sending anything', async () => {
    const statement = onceBuilt({
      key: () => '',
      build: (q: Queryable, _shape: null, values: { from: number }) => q`select ${values.from}::int + ${1}::int as n`,
    });
    const attempt = await sentBy(() => statement.values(sql, null, { from: 1 }).catch((error: Error) => error.message));
    expect(attempt.rows).toMatch(/takes its values through `values` only/);
    expect(attempt.sent).toEqual([]);
  });

  it('refuses a text decided by a value that its key does not cover', async () => {
    const statement = onceBuilt({
      key: () => 'one text',
      build: (q: Queryable, _shape: null, values: { limit: number | null }) =>
        values.limit === null ? q`select 1 as n` : q`select 1 as n limit ${values.limit}`,
    });
    await expect(statement.values(sql, null, { limit: null })).rejects.toThrow(/depends on a value its key does not cover/);
  });

  it('refuses values that trade places by a value its key does not cover', async () => {
    const statement = onceBuilt({
      key: () => 'one text',
      build: (q: Queryable, _shape: null, values: { swap: boolean; a: number; b: number }) =>
        q`select ${values.swap ? values.b : values.a}::int as n`,
    });
    await expect(statement.values(sql, null, { swap: false, a: 1, b: 2 })).rejects.toThrow(/depends on a value its key does not cover/);
  });
});
