/**
 * The layers of src/ (docs/architecture.md), checked by `npm run check:layers`.
 *
 * Top to bottom: contract (src/contract.ts, the wire types from openapi.yaml) -> api ->
 * read-model -> domain -> db. webhooks sit beside api (they may import read-model, domain, db).
 * At the top beside api: console, cli and the serve entry (service/: the one express app that
 * mounts api, console, docs and health; server.ts, http-server.ts). http/ is the plumbing api and
 * console share (answers, the query string, the client address, openapi-backend's setup, sealed
 * cursors, the served document), under both. seed may import domain and db. An import may only
 * point down (or to a shared leaf: clock, log, paths, config, redis, exhaustive, port-probe),
 * never up, never sideways between neighbours, never in a circle.
 *
 * One exception, on purpose: a lower layer may import the contract's *types* (`import type`).
 * They are compile-time only and are how the domain and the read model are held to openapi.yaml
 * (a status or event type added to the document fails the typecheck); importing the contract's
 * code from below stays forbidden.
 */
const TOP = '^src/(cli|console|service)/|^src/(server|http-server)[.]ts$';
const HTTP = '^src/http/';
const API = '^src/api/';
const WEBHOOKS = '^src/webhooks/';
const READ_MODEL = '^src/read-model/';
const DOMAIN = '^src/domain/';
const DB = '^src/db/';
const SEED = '^src/seed/';
const CONTRACT = '^src/contract[.]ts$|^generated/';
const LEAVES = '^src/(clock|log|paths|config|redis|exhaustive|port-probe)[.]ts$|^src/config/';
const any = (...patterns) => patterns.join('|');

const forbidUp = (name, from, to, comment) => ({ name, severity: 'error', comment, from: { path: from }, to: { path: to } });
const forbidContractCode = (name, from) => ({
  name,
  severity: 'error',
  comment: 'below the contract only its types may be imported (import type)',
  from: { path: from },
  to: { path: '^src/contract[.]ts$', dependencyTypesNot: ['type-only'] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a circle of imports has no bottom: one of its files belongs lower',
      from: {},
      to: { circular: true },
    },
    forbidUp('db-imports-up', DB, any(DOMAIN, READ_MODEL, API, HTTP, WEBHOOKS, SEED, TOP, CONTRACT), 'db is the bottom layer'),
    forbidUp('domain-imports-up', DOMAIN, any(READ_MODEL, API, HTTP, WEBHOOKS, SEED, TOP), 'domain may import db only'),
    forbidContractCode('domain-imports-contract-code', DOMAIN),
    forbidUp('read-model-imports-up', READ_MODEL, any(API, HTTP, WEBHOOKS, SEED, TOP), 'read-model may import domain and db'),
    forbidContractCode('read-model-imports-contract-code', READ_MODEL),
    forbidUp('seed-imports-up', SEED, any(READ_MODEL, API, WEBHOOKS, TOP), 'seed may import domain and db'),
    forbidContractCode('seed-imports-contract-code', SEED),
    forbidUp('api-imports-sideways-or-up', API, any(WEBHOOKS, SEED, TOP), 'api may import http, read-model, domain, db'),
    forbidUp('http-imports-up', HTTP, any(API, WEBHOOKS, READ_MODEL, SEED, TOP), 'http is plumbing under api and console: domain, db'),
    forbidContractCode('http-imports-contract-code', HTTP),
    forbidUp('webhooks-import-sideways-or-up', WEBHOOKS, any(API, HTTP, SEED, TOP), 'webhooks sit beside api: read-model, domain, db'),
    forbidUp('console-imports-sideways', '^src/console/', any('^src/cli/', API), 'console sits beside api and cli'),
    forbidUp('cli-imports-sideways', '^src/cli/', any('^src/console/', API), 'cli sits beside api and console'),
    forbidUp('contract-imports-a-layer', CONTRACT, any(TOP, API, HTTP, WEBHOOKS, READ_MODEL, DOMAIN, DB, SEED), 'the contract is types from openapi.yaml only'),
    forbidUp('leaf-imports-a-layer', LEAVES, any(TOP, API, HTTP, WEBHOOKS, READ_MODEL, DOMAIN, DB, SEED, CONTRACT), 'shared leaves import no layer'),
    // Tracing is a shared leaf too: every layer makes spans through src/telemetry/tracing.ts.
    forbidUp('tracing-imports-a-layer', '^src/telemetry/tracing', any(TOP, API, HTTP, WEBHOOKS, READ_MODEL, DOMAIN, DB, SEED, CONTRACT), 'tracing imports no layer'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
