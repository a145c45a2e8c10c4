import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { breakingChanges, type BreakingKind } from '../../contract-tests/lib/breaking-changes.js';

/**
 * The breaking-change check of the spec gate (contract-tests/gate-spec.sh). One valid document
 * (the real openapi.yaml), one change per case (one valid fixture, one thing broken), table-driven
 * like openapi.yaml "Versioning" reads.
 */
type Doc = Record<string, any>; // fixtures are edited freely; the check itself is typed
const base: Doc = parse(readFileSync('openapi.yaml', 'utf8'));
const schemas = (doc: Doc) => doc.components.schemas;
const params = (doc: Doc) => doc.components.parameters;

function changed(edit: (doc: Doc) => void): Doc {
  const doc = structuredClone(base);
  edit(doc);
  return doc;
}

const breaking: { name: string; kind: BreakingKind; edit: (doc: Doc) => void }[] = [
  { name: 'a removed path', kind: 'path-removed', edit: (d) => delete d.paths['/offers/{id}/events'] },
  { name: 'a removed operation', kind: 'operation-removed', edit: (d) => delete d.paths['/offers'].get },
  { name: 'a removed webhook event type', kind: 'webhook-removed', edit: (d) => delete d.webhooks['offer.withdrawn'] },
  { name: 'a removed response', kind: 'response-removed', edit: (d) => delete d.paths['/offers/{id}'].get.responses['404'] },
  { name: 'a removed response header', kind: 'response-header-removed', edit: (d) => delete d.paths['/workspace'].get.responses['200'].headers['RateLimit-Reset'] },
  { name: 'a response header no longer required', kind: 'response-header-no-longer-required', edit: (d) => (d.components.headers.CacheControlNoStore.required = false) },
  { name: 'a removed media type', kind: 'media-type-removed', edit: (d) => { d.paths['/workspace'].get.responses['200'].content = { 'application/xml': d.paths['/workspace'].get.responses['200'].content['application/json'] }; } },
  { name: 'a removed response field', kind: 'field-removed', edit: (d) => delete schemas(d).Offer.properties.title },
  { name: 'a removed field of a nested object', kind: 'field-removed', edit: (d) => delete schemas(d).Money.properties.currency },
  { name: 'a removed field of a webhook body', kind: 'field-removed', edit: (d) => delete schemas(d).OfferSentWebhookEvent.properties.api_version },
  { name: 'a response field no longer always present', kind: 'field-no-longer-required', edit: (d) => (schemas(d).Offer.required = schemas(d).Offer.required.filter((f: string) => f !== 'expired_at')) },
  { name: 'a removed enum value', kind: 'enum-value-removed', edit: (d) => (schemas(d).OfferStatus.enum = ['draft', 'sent', 'accepted', 'declined', 'expired']) },
  { name: 'a changed const', kind: 'enum-value-removed', edit: (d) => (d.components.headers.CacheControlNoStore.schema.const = 'no-cache') },
  { name: 'a response type narrowed (null no longer allowed)', kind: 'type-narrowed', edit: (d) => (schemas(d).Recipient.properties.name.type = 'string') },
  { name: 'a response type changed', kind: 'type-narrowed', edit: (d) => (schemas(d).Money.properties.amount.type = 'string') },
  { name: 'a response field that may now be null', kind: 'type-widened', edit: (d) => (schemas(d).Offer.properties.title = { type: ['string', 'null'] }) },
  { name: 'a nullable alternative removed', kind: 'type-narrowed', edit: (d) => (schemas(d).Offer.properties.accepted_by = { $ref: '#/components/schemas/Signer' }) },
  { name: 'a query parameter type narrowed', kind: 'type-narrowed', edit: (d) => (params(d).Cursor.schema.type = 'integer') },
  { name: 'a query parameter range narrowed', kind: 'constraint-narrowed', edit: (d) => (params(d).OffersLimit.schema.maximum = 50) },
  { name: 'a query parameter length narrowed', kind: 'constraint-narrowed', edit: (d) => (params(d).Cursor.schema.maxLength = 256) },
  { name: 'a query parameter given a pattern', kind: 'constraint-narrowed', edit: (d) => (params(d).Cursor.schema.pattern = '^[A-Za-z0-9_-]+$') },
  { name: 'a query parameter enum value removed', kind: 'enum-value-removed', edit: (d) => (params(d).StatusFilter.schema = { type: 'string', enum: ['draft', 'sent'] }) },
  { name: 'a removed query parameter', kind: 'parameter-removed', edit: (d) => (d.paths['/offers'].get.parameters = d.paths['/offers'].get.parameters.slice(0, 2)) },
  { name: 'an optional parameter made required', kind: 'parameter-newly-required', edit: (d) => (params(d).OffersLimit.required = true) },
  { name: 'a new required parameter', kind: 'parameter-newly-required', edit: (d) => d.paths['/workspace'].get.parameters = [{ name: 'fields', in: 'query', required: true, schema: { type: 'string' } }] },
  { name: 'a removed webhook header', kind: 'parameter-removed', edit: (d) => (d.webhooks.ping.post.parameters = d.webhooks.ping.post.parameters.slice(1)) },
];

const additions: { name: string; edit: (doc: Doc) => void }[] = [
  { name: 'a new path', edit: (d) => (d.paths['/templates'] = { get: { operationId: 'listTemplates', responses: { '200': { description: 'ok' } } } }) },
  { name: 'a new operation', edit: (d) => (d.paths['/offers'].trace = { operationId: 'traceOffers', responses: { '405': { description: 'no' } } }) },
  { name: 'a new webhook event type', edit: (d) => (d.webhooks['offer.declined'] = structuredClone(d.webhooks['offer.withdrawn'])) },
  { name: 'a new optional response field', edit: (d) => (schemas(d).Offer.properties.language = { type: 'string' }) },
  { name: 'a new required response field', edit: (d) => { schemas(d).Workspace.properties.slug = { type: 'string' }; schemas(d).Workspace.required.push('slug'); } },
  { name: 'a new enum value', edit: (d) => schemas(d).OfferStatus.enum.push('archived') },
  { name: 'a new optional query parameter', edit: (d) => d.paths['/offers'].get.parameters.push({ name: 'q', in: 'query', schema: { type: 'string' } }) },
  { name: 'a new response', edit: (d) => (d.paths['/workspace'].get.responses['503'] = { description: 'maintenance' }) },
  { name: 'a new response header', edit: (d) => (d.paths['/workspace'].get.responses['200'].headers['X-Trace-Id'] = { schema: { type: 'string' } }) },
  { name: 'a query parameter range widened', edit: (d) => (params(d).EventsLimit.schema.maximum = 500) },
  { name: 'changed descriptions and examples', edit: (d) => { schemas(d).Offer.description = 'An offer.'; schemas(d).Offer.examples = []; } },
];

describe('breaking-change check of openapi.yaml (openapi.yaml "Versioning")', () => {
  it('finds nothing between openapi.yaml and itself', () => {
    expect(breakingChanges(base, structuredClone(base))).toEqual([]);
  });

  it.each(breaking)('fails on $name ($kind)', ({ kind, edit }) => {
    const found = breakingChanges(base, changed(edit));
    expect(found.map((c) => c.kind)).toContain(kind);
  });

  it.each(additions)('passes $name', ({ edit }) => {
    expect(breakingChanges(base, changed(edit))).toEqual([]);
  });

  // openapi.yaml "## Methods": these describe behaviour every path keeps, so dropping them from the
  // document takes nothing from a client.
  it.each([
    { name: 'an operation that could only fail (405)', method: 'post', op: { operationId: 'postOffers', responses: { '405': { description: 'no' } } } },
    { name: 'an OPTIONS operation', method: 'options', op: { operationId: 'optionsOffers', responses: { '204': { description: 'Allow' } } } },
    { name: 'a HEAD operation while GET stays', method: 'head', op: { operationId: 'headOffers', responses: { '200': { description: 'no body' } } } },
  ])('passes the removal of $name', ({ method, op }) => {
    const before = changed((d) => (d.paths['/offers'][method] = op));
    expect(breakingChanges(before, base)).toEqual([]);
  });

  it('fails the removal of an operation that could succeed', () => {
    const before = changed((d) => (d.paths['/offers'].trace = { operationId: 'traceOffers', responses: { '200': { description: 'ok' } } }));
    expect(breakingChanges(before, base).map((c) => c.kind)).toEqual(['operation-removed']);
  });

  it('names where the break is', () => {
    const [first] = breakingChanges(base, changed((d) => delete schemas(d).Offer.properties.title));
    expect(first!.where).toMatch(/^GET \/offers 200 application\/json .*\.title$/);
  });
});
