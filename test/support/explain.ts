import type { Queryable } from '../../src/db/connect.js';

/** A node of a JSON plan, as far as the tests read it. */
export interface PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The relations whose name starts with `prefix` that a plan read (executed at least once). */
export function relationsRead(node: PlanNode, prefix: string, into = new Set<string>()): Set<string> {
  if (node['Relation Name']?.startsWith(prefix) && (node['Actual Loops'] ?? 0) > 0) into.add(node['Relation Name']);
  for (const child of node.Plans ?? []) relationsRead(child, prefix, into);
  return into;
}

/**
 * A handle whose statements (a template starting with select or with) run under EXPLAIN ANALYZE,
 * their plans kept; fragments and identifiers pass through. The callers get plan rows back.
 */
export function explaining(sql: Queryable, plans: PlanNode[]): Queryable {
  const run = sql as unknown as (...args: unknown[]) => PromiseLike<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>;
  const wrapped = (strings: unknown, ...values: unknown[]) => {
    if (!Array.isArray(strings) || !/^\s*(select|with)\b/.test(String(strings[0]))) return run(strings, ...values);
    const prefixed = Object.assign([`explain (analyze, format json) ${String(strings[0])}`, ...strings.slice(1)], {
      raw: [`explain (analyze, format json) ${String(strings[0])}`, ...(strings as unknown as TemplateStringsArray).raw.slice(1)],
    });
    return run(prefixed, ...values).then((rows) => {
      plans.push(rows[0]!['QUERY PLAN'][0].Plan);
      return rows;
    });
  };
  return Object.assign(wrapped, sql) as unknown as Queryable;
}
