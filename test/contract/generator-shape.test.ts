import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generatorShapeFindings, type ShapeKind } from '../../contract-tests/lib/generator-shape.js';

/**
 * openapi.yaml in the shape client generators need (contract-tests/lib/generator-shape.ts), and
 * the check seen to find each kind of defect: one valid document, one thing broken per case.
 */
type Doc = Record<string, any>;
const base: Doc = parse(readFileSync('openapi.yaml', 'utf8'));

function changed(edit: (doc: Doc) => void): Doc {
  const doc = structuredClone(base);
  edit(doc);
  return doc;
}

const defects: { name: string; kind: ShapeKind; edit: (doc: Doc) => void }[] = [
  {
    name: 'a fake 405 operation',
    kind: 'operation-that-can-only-fail',
    edit: (d) => (d.paths['/offers'].post = { operationId: 'postOffers', responses: { '405': { description: 'read-only' } } }),
  },
  {
    name: 'a $ref into another schema\'s properties',
    kind: 'ref-into-properties',
    edit: (d) => (d.components.schemas.OfferSentWebhookEvent.properties.id = { $ref: '#/components/schemas/Offer/properties/id' }),
  },
  { name: 'an integer without format', kind: 'integer-without-format', edit: (d) => delete d.components.schemas.Money.properties.amount.format },
  { name: 'a nullable integer without format', kind: 'integer-without-format', edit: (d) => delete d.components.schemas.EventVersion.format },
  {
    name: 'allOf narrowing a type with const',
    kind: 'allof-const-narrowing',
    edit: (d) => (d.components.schemas.PingWebhookEvent = { allOf: [{ $ref: '#/components/schemas/OfferEvent' }, { properties: { type: { const: 'ping' } } }] }),
  },
  { name: 'x-extensible-enum', kind: 'unreadable-extensible-enum', edit: (d) => (d.components.schemas.OfferEventType = { type: 'string', 'x-extensible-enum': ['sent'] }) },
  {
    name: 'an error response with its own schema',
    kind: 'error-not-through-error-schema',
    edit: (d) => (d.components.responses.NotFound.content['application/json'].schema = { type: 'object' }),
  },
];

describe('openapi.yaml in the shape client generators need', () => {
  it('has no finding', () => {
    expect(generatorShapeFindings(base)).toEqual([]);
  });

  it.each(defects)('finds $name ($kind)', ({ kind, edit }) => {
    expect(generatorShapeFindings(changed(edit)).map((f) => f.kind)).toContain(kind);
  });
});
