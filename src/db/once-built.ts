import type postgres from 'postgres';
import type { Fragment, Queryable } from './connect.js';
import type { ValuesResult } from './fixed-shape-rows.js';

/**
 * A statement written with postgres.js fragments whose text is built once per shape, then sent
 * with postgres.js `unsafe` and each call's values.
 *
 * Why: building a statement from fragments costs on every call. Each `sql` fragment is a Promise
 * subclass, and the driver walks the whole tree to write the text, while the text itself depends
 * only on the statement's shape. Examples of shape are which filter applies and the row count
 * written in the text (read-model/planned-once.ts). For a read of the API that is most of the
 * client's cost before the socket write. For an unknown key it is all of it: that request
 * builds the whole read only to find no key (openapi.yaml "Order of checks" step 6).
 *
 * How: `build` gets the shape as it is and the values as stand-ins. The text is written from the
 * fragment tree the way postgres.js writes it ($1, $2, … in order of appearance, one per
 * occurrence). Each call then sends that text with its values in the same order. postgres.js
 * infers each parameter's type from the value, as it does for a fragment, and prepares the text
 * once per connection. So PostgreSQL receives the same statement and parameters as from the fragment
 * (test/db/once-built.test.ts holds the two paths to the same text and parameters).
 *
 * Rules for `build`: every value goes in through `values`, and everything the text depends on
 * goes in through `shape` and `key`. Both are checked at each shape's first build: a value
 * written into a fragment directly throws, and so does a text that comes out differently from
 * the first call's real values. Nested fragments, identifiers (`sql(name)`) and `sql.unsafe`
 * text without parameters are allowed.
 */
export interface OnceBuilt<S, V> {
  /** Runs the statement for `shape` with `values`; rows as arrays (postgres.js `.values()`). */
  values(sql: Queryable, shape: S, values: V): Promise<ValuesResult>;
  /** The text for `shape` and the names of its values in parameter order (built with `values` if new). */
  textOf(sql: Queryable, shape: S, values: V): { text: string; order: readonly string[] };
}

/** Stands in for the value `name` while a statement's text is built. */
class Slot {
  constructor(readonly name: string) {}
}

/** Values that hand out a Slot for every name asked for (typed as the real values for `build`). */
function slots<V>(): V {
  return new Proxy(
    {},
    {
      get: (_target, name) => {
        if (typeof name !== 'string') throw new Error('a once-built statement names its values with strings');
        return new Slot(name);
      },
    },
  ) as V;
}

/** The parts of postgres.js's Query and Identifier that its own writer reads (src/types.js). */
interface QueryParts {
  strings: readonly string[];
  args: readonly unknown[];
  tagged: boolean;
}

function isQuery(value: unknown): value is QueryParts {
  return typeof value === 'object' && value !== null && 'strings' in value && 'args' in value && 'tagged' in value;
}

function isIdentifier(value: unknown): value is { value: string } {
  return typeof value === 'object' && value !== null && value.constructor?.name === 'Identifier';
}

/**
 * The text of `query` as postgres.js's `stringify` writes it: nested fragments in place,
 * identifiers as written, and each value as `place` numbers it.
 */
function write(query: QueryParts, place: (value: unknown) => string): string {
  if (!query.tagged && query.args.length > 0) throw new Error('a once-built statement cannot nest sql.unsafe with parameters');
  let text = query.strings[0]!;
  for (let i = 1; i < query.strings.length; i++) text += writeValue(query.args[i - 1], place) + query.strings[i]!;
  return text;
}

function writeValue(value: unknown, place: (value: unknown) => string): string {
  if (isQuery(value)) return write(value, place);
  if (isIdentifier(value)) return value.value;
  if (Array.isArray(value) && value.length > 0 && value.every(isQuery)) {
    return value.map((fragment) => ` ${write(fragment, place)}`).join('');
  }
  return place(value);
}

/**
 * The text for one shape, built from stand-ins, checked against the same shape built from the
 * first call's real values: a text or a value order that differs means `build` decided something
 * by a value that `key` does not cover, and that is refused before anything is sent.
 */
function buildText<S, V extends object>(
  sql: Queryable,
  build: (sql: Queryable, shape: S, values: V) => Fragment,
  shape: S,
  values: V,
): { text: string; order: readonly string[] } {
  const order: string[] = [];
  const text = write(build(sql, shape, slots<V>()) as unknown as QueryParts, (value) => {
    if (!(value instanceof Slot)) throw new Error('a once-built statement takes its values through `values` only, not written into a fragment');
    order.push(value.name);
    return `$${order.length}`;
  });
  const real: unknown[] = [];
  const direct = write(build(sql, shape, values) as unknown as QueryParts, (value) => `$${real.push(value)}`);
  const same = direct === text && real.every((value, i) => Object.is(value, (values as Record<string, unknown>)[order[i]!]));
  if (!same) throw new Error(`a once-built statement's text depends on a value its key does not cover:\n${text}\n${direct}`);
  return { text, order };
}

export function onceBuilt<S, V extends object>(definition: {
  /** Everything the text depends on besides the values, as a string; equal keys, equal texts. */
  key: (shape: S) => string;
  build: (sql: Queryable, shape: S, values: V) => Fragment;
}): OnceBuilt<S, V> {
  // Bounded by the shapes the code writes (a few per read), not by the values.
  const texts = new Map<string, { text: string; order: readonly string[] }>();

  const textOf = (sql: Queryable, shape: S, values: V) => {
    const key = definition.key(shape);
    let built = texts.get(key);
    if (built === undefined) {
      built = buildText(sql, definition.build, shape, values);
      texts.set(key, built);
    }
    return built;
  };

  return {
    textOf,
    values(sql, shape, values) {
      let built: { text: string; order: readonly string[] };
      try {
        built = textOf(sql, shape, values);
      } catch (error) {
        return Promise.reject(error);
      }
      const { text, order } = built;
      const parameters = new Array<unknown>(order.length);
      for (let i = 0; i < order.length; i++) parameters[i] = (values as Record<string, unknown>)[order[i]!];
      // unsafe is not prepared unless asked; prepared, the text is parsed and planned once per
      // connection, as a fragment's text is.
      return sql.unsafe(text, parameters as postgres.ParameterOrJSON<never>[], { prepare: true }).values() as unknown as Promise<ValuesResult>;
    },
  };
}
