/**
 * Breaking changes between two versions of an OpenAPI 3.1 document, as openapi.yaml "Versioning"
 * defines them: "new fields, endpoints and event types may be added at any time; names and
 * meanings of existing fields do not change. A breaking change is published under a new path".
 *
 * No maintained tool available from npm or PyPI reads 3.1 documents without fetching a native
 * binary (openapi-diff stops at 3.0; oasdiff and openapi-changes are Go binaries), so this is
 * ours, kept small and tested kind by kind (test/contract/breaking-changes.test.ts).
 *
 * Two sides, because what breaks a client depends on who writes the data:
 * - request side (what clients send: parameters of the paths): a removed parameter, a parameter
 *   that is newly required, and any narrowing (a type, an enum value, a tighter range, length or
 *   pattern) break clients that sent what used to be valid;
 * - read side (what clients receive: responses, and the webhook requests the service sends):
 *   a removed path, operation, webhook, response, header, media type or field, a field that is
 *   no longer always present, a removed enum value, and a changed type (narrowed, or widened so
 *   that a reader meets a type it never saw) break readers.
 * Additions pass: new paths, operations, webhooks, responses, optional parameters, fields and
 * enum values ("Consumers must ignore what they do not know", openapi.yaml "Conventions").
 */

export type BreakingKind =
  | 'path-removed'
  | 'operation-removed'
  | 'webhook-removed'
  | 'response-removed'
  | 'response-header-removed'
  | 'response-header-no-longer-required'
  | 'media-type-removed'
  | 'field-removed'
  | 'field-no-longer-required'
  | 'enum-value-removed'
  | 'type-narrowed'
  | 'type-widened'
  | 'constraint-narrowed'
  | 'parameter-removed'
  | 'parameter-newly-required'
  | 'request-body-newly-required';

export interface BreakingChange {
  kind: BreakingKind;
  /** Where in the old document, e.g. `GET /offers 200 application/json .data[].title`. */
  where: string;
  detail: string;
}

type Json = Record<string, unknown>;
type Side = 'request' | 'read';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function breakingChanges(oldDoc: Json, newDoc: Json): BreakingChange[] {
  const found: BreakingChange[] = [];
  const report = (kind: BreakingKind, where: string, detail: string) => found.push({ kind, where, detail });
  const docs = { old: oldDoc, new: newDoc };

  for (const [section, removedKind] of [['paths', 'path-removed'], ['webhooks', 'webhook-removed']] as const) {
    const oldItems = asObject(oldDoc[section]);
    const newItems = asObject(newDoc[section]);
    for (const [name, oldRaw] of Object.entries(oldItems)) {
      const label = section === 'paths' ? name : `webhook ${name}`;
      if (!(name in newItems)) {
        report(removedKind, label, `${label} was removed`);
        continue;
      }
      const oldItem = deref(oldDoc, oldRaw);
      const newItem = deref(newDoc, newItems[name]);
      for (const method of METHODS) {
        if (!(method in oldItem)) continue;
        const where = `${method.toUpperCase()} ${label}`;
        if (!(method in newItem)) {
          if (!impliedByThePath(method, asObject(oldItem[method]), newItem)) {
            report('operation-removed', where, `operation ${where} was removed`);
          }
          continue;
        }
        compareOperation(docs, where, section === 'paths' ? 'request' : 'read', { item: oldItem, op: asObject(oldItem[method]) }, { item: newItem, op: asObject(newItem[method]) }, report);
      }
    }
  }
  return found;
}

/**
 * An operation whose removal takes nothing from a client (openapi.yaml "## Methods"): one that
 * could only fail (no 2xx answer: its 405 is behaviour of the path, described in prose), an
 * OPTIONS, and a HEAD while the path keeps its GET (RFC 9110: HEAD is GET without content).
 * The behaviour itself stays tested over HTTP (test/api/methods-and-headers.test.ts).
 */
function impliedByThePath(method: string, oldOp: Json, newItem: Json): boolean {
  if (method === 'options') return true;
  if (method === 'head' && 'get' in newItem) return true;
  return !Object.keys(asObject(oldOp.responses)).some((status) => /^2/.test(status));
}

type Report = (kind: BreakingKind, where: string, detail: string) => void;
interface Docs {
  old: Json;
  new: Json;
}

function compareOperation(
  docs: Docs,
  where: string,
  parameterSide: Side,
  oldOp: { item: Json; op: Json },
  newOp: { item: Json; op: Json },
  report: Report,
): void {
  // Parameters: path-level ones apply to every operation; an operation-level one overrides.
  const oldParams = parameters(docs.old, oldOp.item, oldOp.op);
  const newParams = parameters(docs.new, newOp.item, newOp.op);
  for (const [key, oldParam] of oldParams) {
    const label = `${where} parameter ${key}`;
    const newParam = newParams.get(key);
    if (!newParam) {
      report('parameter-removed', label, `parameter ${key} was removed`);
      continue;
    }
    if (parameterSide === 'request' && newParam.required === true && oldParam.required !== true) {
      report('parameter-newly-required', label, `parameter ${key} became required`);
    }
    if (parameterSide === 'read' && oldParam.required === true && newParam.required !== true) {
      report('field-no-longer-required', label, `parameter ${key} is no longer always sent`);
    }
    compareSchema(docs, label, parameterSide, oldParam.schema, newParam.schema, report, new Set());
  }
  if (parameterSide === 'request') {
    for (const [key, newParam] of newParams) {
      if (!oldParams.has(key) && newParam.required === true) {
        report('parameter-newly-required', `${where} parameter ${key}`, `new parameter ${key} is required`);
      }
    }
  }

  // A webhook's request body is what the service sends: the receiver reads it.
  const oldBody = deref(docs.old, oldOp.op.requestBody);
  const newBody = deref(docs.new, newOp.op.requestBody);
  if (parameterSide === 'request' && newBody.required === true && oldBody.required !== true) {
    report('request-body-newly-required', `${where} request body`, 'the request body became required');
  }
  compareContent(docs, `${where} request body`, parameterSide === 'read' ? 'read' : 'request', oldBody, newBody, report);

  const oldResponses = asObject(oldOp.op.responses);
  const newResponses = asObject(newOp.op.responses);
  for (const [status, oldRaw] of Object.entries(oldResponses)) {
    const label = `${where} ${status}`;
    if (!(status in newResponses)) {
      report('response-removed', label, `response ${status} was removed`);
      continue;
    }
    const oldResponse = deref(docs.old, oldRaw);
    const newResponse = deref(docs.new, newResponses[status]);
    const oldHeaders = lowerKeys(asObject(oldResponse.headers));
    const newHeaders = lowerKeys(asObject(newResponse.headers));
    for (const [name, oldHeaderRaw] of Object.entries(oldHeaders)) {
      const headerLabel = `${label} header ${name}`;
      if (!(name in newHeaders)) {
        report('response-header-removed', headerLabel, `response header ${name} was removed`);
        continue;
      }
      const oldHeader = deref(docs.old, oldHeaderRaw);
      const newHeader = deref(docs.new, newHeaders[name]);
      if (oldHeader.required === true && newHeader.required !== true) {
        report('response-header-no-longer-required', headerLabel, `response header ${name} is no longer always present`);
      }
      compareSchema(docs, headerLabel, 'read', oldHeader.schema, newHeader.schema, report, new Set());
    }
    compareContent(docs, label, 'read', oldResponse, newResponse, report);
  }
}

function compareContent(docs: Docs, where: string, side: Side, oldHolder: Json, newHolder: Json, report: Report): void {
  const oldContent = asObject(oldHolder.content);
  const newContent = asObject(newHolder.content);
  for (const [mediaType, oldMedia] of Object.entries(oldContent)) {
    if (!(mediaType in newContent)) {
      // Dropping a media type a client may send is the server's loss only when clients never used it;
      // for what clients read it always breaks them. Either way it is a removal.
      report('media-type-removed', `${where} ${mediaType}`, `media type ${mediaType} was removed`);
      continue;
    }
    compareSchema(docs, `${where} ${mediaType}`, side, asObject(oldMedia).schema, asObject(newContent[mediaType]).schema, report, new Set());
  }
}

interface Parameter {
  required?: unknown;
  schema?: unknown;
}

function parameters(doc: Json, item: Json, op: Json): Map<string, Parameter> {
  const map = new Map<string, Parameter>();
  for (const raw of [...asArray(item.parameters), ...asArray(op.parameters)]) {
    const param = deref(doc, raw);
    const location = String(param.in);
    // Header names are case-insensitive (RFC 9110).
    const name = location === 'header' ? String(param.name).toLowerCase() : String(param.name);
    map.set(`${location}:${name}`, param as Parameter);
  }
  return map;
}

// ---------------------------------------------------------------------------------------------
// Schemas

/** A schema with its $ref resolved and its allOf merged into one set of facts. */
interface Flat {
  types: Set<string> | null; // null: any type
  properties: Map<string, unknown[]>;
  required: Set<string>;
  enum: unknown[] | null;
  const: { value: unknown } | null;
  items: unknown[];
  alternatives: unknown[] | null; // oneOf / anyOf branches
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
  patterns: string[];
}

function compareSchema(
  docs: Docs,
  where: string,
  side: Side,
  oldRaw: unknown,
  newRaw: unknown,
  report: Report,
  seen: Set<string>,
): void {
  if (oldRaw === undefined || newRaw === undefined) return;
  const pair = `${refOf(oldRaw)}|${refOf(newRaw)}|${where}`;
  if (seen.has(pair)) return;
  const nextSeen = new Set(seen).add(pair);
  const oldFlat = flatten(docs.old, oldRaw);
  const newFlat = flatten(docs.new, newRaw);

  const oldTypes = effectiveTypes(docs.old, oldFlat);
  const newTypes = effectiveTypes(docs.new, newFlat);
  const lost = oldTypes === null ? (newTypes === null ? [] : ['any']) : [...oldTypes].filter((t) => newTypes !== null && !newTypes.has(t) && !(t === 'integer' && newTypes.has('number')));
  if (lost.length > 0) report('type-narrowed', where, `no longer allows type ${lost.join(', ')}`);
  if (side === 'read') {
    const gained = newTypes === null ? (oldTypes === null ? [] : ['any']) : [...newTypes].filter((t) => oldTypes !== null && !oldTypes.has(t) && !(t === 'integer' && oldTypes.has('number')));
    if (gained.length > 0) report('type-widened', where, `now also carries type ${gained.join(', ')}, which readers never saw`);
  }

  // Allowed values: an enum, or a const (one value), or any value (null).
  const oldValues = oldFlat.const !== null ? [oldFlat.const.value] : oldFlat.enum;
  const newValues = newFlat.const !== null ? [newFlat.const.value] : newFlat.enum;
  if (oldValues !== null && newValues !== null) {
    for (const value of oldValues.filter((v) => !newValues.some((w) => sameValue(v, w)))) {
      report('enum-value-removed', where, `value ${JSON.stringify(value)} is no longer allowed`);
    }
  } else if (oldValues === null && newValues !== null && side === 'request') {
    report('constraint-narrowed', where, `now restricted to ${newValues.map((v) => JSON.stringify(v)).join(', ')}`);
  }

  if (side === 'request') {
    const narrowed = (what: string, oldValue: number | null, newValue: number | null, tighter: (o: number, n: number) => boolean) => {
      if (newValue !== null && (oldValue === null || tighter(oldValue, newValue))) {
        report('constraint-narrowed', where, `${what} narrowed from ${oldValue ?? 'none'} to ${newValue}`);
      }
    };
    narrowed('minimum', oldFlat.minimum, newFlat.minimum, (o, n) => n > o);
    narrowed('maximum', oldFlat.maximum, newFlat.maximum, (o, n) => n < o);
    narrowed('minLength', oldFlat.minLength, newFlat.minLength, (o, n) => n > o);
    narrowed('maxLength', oldFlat.maxLength, newFlat.maxLength, (o, n) => n < o);
    for (const pattern of newFlat.patterns.filter((p) => !oldFlat.patterns.includes(p))) {
      report('constraint-narrowed', where, `new pattern ${pattern}`);
    }
  }

  for (const [name, oldSchemas] of oldFlat.properties) {
    const label = `${where} .${name}`;
    const newSchemas = newFlat.properties.get(name);
    if (!newSchemas) {
      // Request side: a removed field of a body clients send is ignored like any unknown field.
      if (side === 'read') report('field-removed', label, `field ${name} was removed`);
      continue;
    }
    if (side === 'read' && oldFlat.required.has(name) && !newFlat.required.has(name)) {
      report('field-no-longer-required', label, `field ${name} is no longer always present`);
    }
    compareSchema(docs, label, side, combine(oldSchemas), combine(newSchemas), report, nextSeen);
  }
  if (side === 'request') {
    for (const name of newFlat.required) {
      if (!oldFlat.required.has(name)) report('parameter-newly-required', `${where} .${name}`, `field ${name} became required`);
    }
  }
  if (oldFlat.items.length > 0 && newFlat.items.length > 0) {
    compareSchema(docs, `${where}[]`, side, combine(oldFlat.items), combine(newFlat.items), report, nextSeen);
  }
  if (oldFlat.alternatives && newFlat.alternatives) {
    for (const oldAlt of oldFlat.alternatives) {
      const match = newFlat.alternatives.find((newAlt) => signature(docs.new, newAlt) === signature(docs.old, oldAlt));
      if (match !== undefined) compareSchema(docs, where, side, oldAlt, match, report, nextSeen);
    }
  }
}

function flatten(doc: Json, raw: unknown, depth = 0): Flat {
  const schema = deref(doc, raw);
  const flat: Flat = {
    types: typeSet(schema),
    properties: new Map(Object.entries(asObject(schema.properties)).map(([k, v]) => [k, [v]])),
    required: new Set(asArray(schema.required).map(String)),
    enum: Array.isArray(schema.enum) ? schema.enum : null,
    const: 'const' in schema ? { value: schema.const } : null,
    items: schema.items === undefined ? [] : [schema.items],
    alternatives: Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : null,
    minimum: numberOrNull(schema.minimum),
    maximum: numberOrNull(schema.maximum),
    minLength: numberOrNull(schema.minLength),
    maxLength: numberOrNull(schema.maxLength),
    patterns: typeof schema.pattern === 'string' ? [schema.pattern] : [],
  };
  if (depth > 20) return flat;
  for (const branch of asArray(schema.allOf)) {
    const part = flatten(doc, branch, depth + 1);
    if (part.types) flat.types = flat.types ? new Set([...flat.types].filter((t) => part.types!.has(t))) : part.types;
    for (const [name, schemas] of part.properties) flat.properties.set(name, [...(flat.properties.get(name) ?? []), ...schemas]);
    for (const name of part.required) flat.required.add(name);
    if (part.enum) flat.enum = flat.enum ? flat.enum.filter((v) => part.enum!.some((w) => sameValue(v, w))) : part.enum;
    flat.const ??= part.const;
    flat.items.push(...part.items);
    flat.alternatives ??= part.alternatives;
    flat.minimum = maxOf(flat.minimum, part.minimum);
    flat.maximum = minOf(flat.maximum, part.maximum);
    flat.minLength = maxOf(flat.minLength, part.minLength);
    flat.maxLength = minOf(flat.maxLength, part.maxLength);
    flat.patterns.push(...part.patterns);
  }
  return flat;
}

/** The types a value may have: declared, implied by const, or the union of the alternatives. */
function effectiveTypes(doc: Json, flat: Flat): Set<string> | null {
  if (flat.types) return flat.types;
  if (flat.const !== null) return new Set([jsonType(flat.const.value)]);
  if (flat.enum) return new Set(flat.enum.map(jsonType));
  if (flat.alternatives) {
    const union = new Set<string>();
    for (const alt of flat.alternatives) {
      const types = effectiveTypes(doc, flatten(doc, alt));
      if (types === null) return null;
      for (const t of types) union.add(t);
    }
    return union;
  }
  return null;
}

function signature(doc: Json, raw: unknown): string {
  const ref = refOf(raw);
  if (ref) return `ref:${ref}`;
  const types = effectiveTypes(doc, flatten(doc, raw));
  return `types:${types === null ? 'any' : [...types].sort().join(',')}`;
}

function typeSet(schema: Json): Set<string> | null {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  return null;
}

function combine(schemas: unknown[]): unknown {
  return schemas.length === 1 ? schemas[0] : { allOf: schemas };
}

// ---------------------------------------------------------------------------------------------
// Plumbing

function refOf(raw: unknown): string | null {
  return typeof raw === 'object' && raw !== null && typeof (raw as Json).$ref === 'string' ? ((raw as Json).$ref as string) : null;
}

/** Follows local `$ref`s (`#/components/...`, JSON pointers with ~0 and ~1). */
function deref(doc: Json, raw: unknown, depth = 0): Json {
  const ref = refOf(raw);
  if (ref === null || depth > 50) return asObject(raw);
  if (!ref.startsWith('#/')) throw new Error(`only local $ref values are supported, got ${ref}`);
  let target: unknown = doc;
  for (const token of ref.slice(2).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    target = asObject(target)[key];
    if (target === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  // Siblings of $ref (3.1 allows description etc.) do not change the shape here.
  return deref(doc, target, depth + 1);
}

function asObject(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function lowerKeys(object: Json): Json {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k.toLowerCase(), v]));
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
