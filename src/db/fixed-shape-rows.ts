/**
 * Rows as plain objects of one fixed shape per column list, built from a postgres.js `.values()`
 * result (each row an array in column order).
 *
 * Why: postgres.js builds each row object by adding its columns one at a time under names it
 * learns at run time. V8 keeps such an object in fast mode only up to about 19 properties; past
 * that every row becomes a hash table, about three times slower to build, larger for the garbage
 * collector and slower to read (an Offer's 18 columns plus a read's two scope columns are 20).
 * An object literal with the names written out has one hidden class for every row, whatever
 * its width, and costs a tenth of the one-at-a-time build.
 */

type Make = (values: readonly unknown[]) => Record<string, unknown>;

/** One builder per column list and first column: the statements are the code's own, so few. */
const builders = new Map<string, Make>();

/**
 * The same builders by the result's `columns` array itself: postgres.js hands back one array per
 * prepared statement and connection (`result.columns = query.statement.columns`), so a read of a
 * statement seen before finds its builder without joining its column names into a key. Weak, so
 * the entries go with the statements; an array seen for the first time (a new connection, or a
 * statement not prepared) falls back to the names.
 */
const byColumns = new WeakMap<readonly object[], Make[]>();

/**
 * A builder of objects from row arrays: the properties are `names` in order, read from the
 * array from index `from` on (columns before it are left out of the object).
 */
function builder(names: readonly string[], from: number): Make {
  const cacheKey = `${from}\u0000${names.join('\u0000')}`;
  let make = builders.get(cacheKey);
  if (make === undefined) {
    const fields = names.slice(from).map((name, index) => {
      // A literal `__proto__:` would set the prototype instead of a property.
      if (name === '__proto__') throw new Error('a column may not be named __proto__');
      return `${JSON.stringify(name)}: v[${from + index}]`;
    });
    make = new Function('v', `return { ${fields.join(', ')} };`) as Make;
    builders.set(cacheKey, make);
  }
  return make;
}

function builderFor(columns: readonly { name: string }[], from: number): Make {
  let makes = byColumns.get(columns);
  if (makes === undefined) byColumns.set(columns, (makes = []));
  return (makes[from] ??= builder(
    columns.map((column) => column.name),
    from,
  ));
}

/** What `.values()` resolves to: rows as arrays, and the statement's columns. */
export interface ValuesResult {
  readonly length: number;
  readonly [index: number]: readonly unknown[];
  readonly columns: readonly { name: string }[];
}

/**
 * The rows of `result` as objects (typed `R` by the caller, as postgres.js would type them),
 * without the columns before index `from`; `keep` picks the rows to build.
 */
export function rowObjects<R>(result: ValuesResult, from = 0, keep?: (values: readonly unknown[]) => boolean): R[] {
  if (result.length === 0) return [];
  const make = builderFor(result.columns, from);
  const rows: R[] = [];
  for (let i = 0; i < result.length; i++) {
    const values = result[i]!;
    if (keep === undefined || keep(values)) rows.push(make(values) as R);
  }
  return rows;
}
