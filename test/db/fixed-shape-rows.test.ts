import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowObjects } from '../../src/db/fixed-shape-rows.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

// V8's own check of whether an object is a fast object or a hash table; the flag must be set
// before the function that uses the intrinsic is compiled.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** A statement as wide as an Offer's read with its scope columns and more. */
const WIDE_COLUMNS = 24;
const wideSelect = (db: TestDatabase, rows: number) =>
  db.sql.unsafe(
    `select ${Array.from({ length: WIDE_COLUMNS }, (_, i) => `(n * 100 + ${i})::int as c${i}`).join(', ')}, n % 2 = 0 as even
       from generate_series(1, ${rows}) n order by n`,
  );

describe('rowObjects', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('gives the objects postgres.js gives, column for column', async () => {
    const expected = await wideSelect(db, 3);
    const actual = rowObjects<Record<string, unknown>>(await wideSelect(db, 3).values());
    expect(actual).toEqual([...expected]);
    expect(actual.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
  });

  it('builds wide rows as fast objects, where adding columns one by one makes hash tables', async () => {
    const [byPostgres] = await wideSelect(db, 1);
    expect(hasFastProperties(byPostgres!)).toBe(false);
    const [built] = rowObjects<object>(await wideSelect(db, 1).values());
    expect(hasFastProperties(built!)).toBe(true);
  });

  it('leaves out the columns before `from` and the rows `keep` rejects', async () => {
    const result = await db.sql`select 'ws' as scope, n % 2 = 0 as in_scope, n, n * 10 as tenfold from generate_series(1, 4) n order by n`.values();
    expect(rowObjects(result, 2, (values) => values[1] === true)).toEqual([
      { n: 2, tenfold: 20 },
      { n: 4, tenfold: 40 },
    ]);
    expect(rowObjects(result, 2)).toHaveLength(4);
  });

  it('finds the builder of a statement it has seen by its columns array, without reading the names again', async () => {
    // postgres.js hands back one columns array per prepared statement and connection.
    const connection = await db.sql.reserve();
    const first = await connection`select 1 as a, 2 as b, 3 as c`.values();
    const again = await connection`select 1 as a, 2 as b, 3 as c`.values();
    connection.release();
    expect(again.columns).toBe(first.columns);
    let reads = 0;
    const columns = first.columns.map((column) => ({
      get name() {
        reads++;
        return column.name;
      },
    }));
    const result = Object.assign([[1, 2, 3]], { columns });
    expect(rowObjects(result)).toEqual([{ a: 1, b: 2, c: 3 }]);
    const afterFirst = reads;
    expect(afterFirst).toBeGreaterThan(0);
    expect(rowObjects(result, 1)).toEqual([{ b: 2, c: 3 }]);
    expect(rowObjects(result)).toEqual([{ a: 1, b: 2, c: 3 }]);
    expect(rowObjects(result, 1)).toEqual([{ b: 2, c: 3 }]);
    // Once for each `from`, never again for either.
    expect(reads).toBe(afterFirst * 2);
  });

  it('gives no rows for an empty result', async () => {
    expect(rowObjects(await db.sql`select 1 as one where false`.values())).toEqual([]);
  });
});
