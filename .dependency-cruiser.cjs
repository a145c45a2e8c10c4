/**
 * The layers of src/ (docs/architecture.md), and the repository's other code, checked by
 * `npm run check:layers` over src/, scripts/ and test/.
 *
 * Top to bottom: contract (src/contract.ts, the wire types from openapi.yaml) -> api ->
 * read-model -> domain -> mail -> db (mail: the mail outbox the domain writes, and its sender). webhooks sit beside api (they may import read-model, domain, db).
 * At the top beside api: console, cli and the serve entry (service/: the one express app that
 * mounts api, console, docs and health; server.ts, http-server.ts). http/ is the plumbing api and
 * console share (answers, the query string, the client address, openapi-backend's setup, sealed
 * cursors, the served document), under both. seed may import domain and db. mail (the mail
 * outbox and its sender) sits between domain and db. sealing (the master
 * keys and the sealed endpoint secrets) sits on db, under webhooks, cli and console; jobs (the
 * periodic jobs the worker runs) sit on domain and db, under webhooks. host (a worker process's
 * loops: the webhook engine, the mail loop, the periodic jobs) sits under the top and over
 * webhooks, mail, jobs and sealing. An import may only
 * point down (or to a shared leaf: clock, log, paths, config, redis, exhaustive, port-probe,
 * telemetry),
 * never up, never sideways between neighbours, never in a circle.
 *
 * Around src/: scripts/ (the benchmark, the fault suite, build helpers) and test/ may import src/;
 * src/ imports neither, and test/ does not import scripts/ (what both need lives in test/support/;
 * src/seed/ holds only the seeding serve and `offerdesk seed` run). No circle anywhere.
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
const MAIL = '^src/mail/';
const SEED = '^src/seed/';
const SEALING = '^src/sealing/';
const JOBS = '^src/jobs/';
// The process host: a worker's loops (webhook engine, mail, periodic jobs), started by serve and worker.
const HOST = '^src/host/';
const CONTRACT = '^src/contract[.]ts$|^generated/';
const LEAVES = '^src/(clock|log|paths|config|redis|exhaustive|port-probe)[.]ts$|^src/config/|^src/telemetry/';
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
    forbidUp('db-imports-up', DB, any(MAIL, DOMAIN, READ_MODEL, API, HTTP, WEBHOOKS, SEED, SEALING, JOBS, TOP, HOST, CONTRACT), 'db is the bottom layer'),
    forbidUp('mail-imports-up', MAIL, any(DOMAIN, READ_MODEL, API, HTTP, WEBHOOKS, SEED, SEALING, JOBS, TOP, HOST, CONTRACT), 'mail (the outbox and its sender) sits between domain and db: db and the leaves only'),
    forbidUp('jobs-import-up', JOBS, any(READ_MODEL, API, HTTP, WEBHOOKS, SEED, SEALING, TOP, HOST), 'periodic jobs may import domain, mail and db'),
    forbidContractCode('jobs-import-contract-code', JOBS),
    forbidUp('sealing-imports-up', SEALING, any(MAIL, DOMAIN, READ_MODEL, API, HTTP, WEBHOOKS, SEED, JOBS, TOP, HOST), 'sealing (master keys, sealed secrets) may import db only'),
    forbidContractCode('sealing-imports-contract-code', SEALING),
    forbidUp('domain-imports-up', DOMAIN, any(READ_MODEL, API, HTTP, WEBHOOKS, SEED, SEALING, JOBS, TOP, HOST), 'domain may import mail and db only'),
    forbidContractCode('domain-imports-contract-code', DOMAIN),
    forbidUp('read-model-imports-up', READ_MODEL, any(API, HTTP, WEBHOOKS, SEED, SEALING, JOBS, TOP, HOST), 'read-model may import domain and db'),
    forbidContractCode('read-model-imports-contract-code', READ_MODEL),
    forbidUp('seed-imports-up', SEED, any(READ_MODEL, API, WEBHOOKS, TOP, HOST), 'seed may import domain and db'),
    forbidContractCode('seed-imports-contract-code', SEED),
    forbidUp('api-imports-sideways-or-up', API, any(WEBHOOKS, SEED, TOP, HOST), 'api may import http, read-model, domain, db'),
    forbidUp('http-imports-up', HTTP, any(API, WEBHOOKS, READ_MODEL, SEED, TOP, HOST), 'http is plumbing under api and console: domain, db'),
    forbidContractCode('http-imports-contract-code', HTTP),
    forbidUp('webhooks-import-sideways-or-up', WEBHOOKS, any(API, HTTP, SEED, TOP, HOST), 'webhooks sit beside api: read-model, domain, db'),
    forbidUp('console-imports-sideways', '^src/console/', any('^src/cli/', API), 'console sits beside api and cli'),
    forbidUp('cli-imports-sideways', '^src/cli/', any('^src/console/', API), 'cli sits beside api and console'),
    forbidUp('host-imports-up', HOST, any(TOP, API, HTTP, SEED), 'the process host sits under serve and the cli: webhooks, mail, jobs, sealing, db'),
    forbidContractCode('host-imports-contract-code', HOST),
    forbidUp('contract-imports-a-layer', CONTRACT, any(TOP, HOST, API, HTTP, WEBHOOKS, READ_MODEL, DOMAIN, DB, SEED), 'the contract is types from openapi.yaml only'),
    forbidUp('src-imports-scripts-or-tests', '^src/', '^(scripts|test)/', 'the product stands on its own: scripts and tests sit on top of it'),
    forbidUp('test-imports-scripts', '^test/', '^scripts/', 'a helper both need belongs in test/support/'),
    forbidUp('leaf-imports-a-layer', LEAVES, any(TOP, API, HTTP, WEBHOOKS, READ_MODEL, DOMAIN, MAIL, DB, SEED, SEALING, JOBS, CONTRACT), 'shared leaves import no layer'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
