/**
 * What a client generator needs from the document (openapi.yaml read as integrators' tools read
 * it), as findings: each one names where it is. Used by the spec gate
 * (test/contract/generator-shape.test.ts) and by the planted-regression checks
 * (contract-tests/gate-planted-regressions.sh), which must see each kind found.
 */
type Json = Record<string, unknown>;

export type ShapeKind =
  | 'ref-into-properties'
  | 'integer-without-format'
  | 'operation-that-can-only-fail'
  | 'allof-const-narrowing'
  | 'unreadable-extensible-enum'
  | 'error-not-through-error-schema';

export interface ShapeFinding {
  kind: ShapeKind;
  where: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const INTEGER_FORMATS = new Set(['int32', 'int64']);

export function generatorShapeFindings(doc: Json): ShapeFinding[] {
  const found: ShapeFinding[] = [];
  walk(doc, '#', (node, where) => {
    const ref = node.$ref;
    // A $ref must name a whole component; one into another schema's properties becomes an
    // undefined type name in orval's output.
    if (typeof ref === 'string' && /\/properties\//.test(ref)) found.push({ kind: 'ref-into-properties', where });
    const type = node.type;
    const isInteger = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
    if (isInteger && !INTEGER_FORMATS.has(String(node.format))) found.push({ kind: 'integer-without-format', where });
    if (Array.isArray(node.allOf) && node.allOf.some((part) => containsConst(part))) {
      found.push({ kind: 'allof-const-narrowing', where });
    }
    if ('x-extensible-enum' in node) found.push({ kind: 'unreadable-extensible-enum', where });
  });

  for (const [path, item] of Object.entries(asObject(doc.paths))) {
    for (const method of METHODS) {
      const op = asObject(asObject(item)[method]);
      if (!(method in asObject(item))) continue;
      const responses = asObject(op.responses);
      const where = `${method.toUpperCase()} ${path}`;
      if (!Object.keys(responses).some((status) => /^2/.test(status))) found.push({ kind: 'operation-that-can-only-fail', where });
      for (const [status, response] of Object.entries(responses)) {
        if (!/^[45]/.test(status)) continue;
        const resolved = resolve(doc, response);
        for (const [type, media] of Object.entries(asObject(resolved.content))) {
          if (asObject(asObject(media).schema).$ref !== '#/components/schemas/Error') {
            found.push({ kind: 'error-not-through-error-schema', where: `${where} ${status} ${type}` });
          }
        }
      }
    }
  }
  return found;
}

function containsConst(node: unknown): boolean {
  let hit = false;
  walk(node, '', (n) => {
    if ('const' in n) hit = true;
  });
  return hit;
}

function walk(node: unknown, where: string, visit: (node: Json, where: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => walk(child, `${where}/${i}`, visit));
    return;
  }
  if (!node || typeof node !== 'object') return;
  visit(node as Json, where);
  for (const [key, child] of Object.entries(node)) {
    // Examples are data, not schemas.
    if (key === 'example' || key === 'examples') continue;
    walk(child, `${where}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, visit);
  }
}

function resolve(doc: Json, node: unknown): Json {
  const ref = asObject(node).$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return asObject(node);
  let target: unknown = doc;
  for (const part of ref.slice(2).split('/')) target = asObject(target)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return asObject(target);
}

function asObject(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}
