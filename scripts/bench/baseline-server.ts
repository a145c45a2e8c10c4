import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timelineCursor } from '../../src/api/resources/offer-events.js';
import { offersCursor } from '../../src/api/resources/offers.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { API_CURSOR_KEY, loadCursors } from '../../src/http/cursor.js';
import { hashApiKey } from '../../src/domain/api-key-format.js';
import { readOffer, readOfferEventPage, readOfferPage } from '../../src/read-model/offers.js';
import type { OfferStatus } from '../../src/read-model/types.js';
import { readWorkspace } from '../../src/read-model/workspace.js';
import { workspaceOfKey } from '../../test/support/key-check.js';

/**
 * The read API's baseline (docs/performance.md): bare `node:http`, the service's read-model SQL, pool size, bodies
 * and cursors, and nothing else; one fixed workspace (BENCH_WORKSPACE_ID). The key lookup runs only once switched
 * on (`PUT /__bench/mode?keys=lookup`), for the 401 storm alone.
 */

const config = loadConfig();
const workspaceId = process.env.BENCH_WORKSPACE_ID;
if (!config.databaseUrl || !workspaceId) throw new Error('baseline-server needs DATABASE_URL and BENCH_WORKSPACE_ID');

const sql = connect(config.databaseUrl, { max: config.databasePoolSize, applicationName: 'offerdesk-bench-baseline' });
const cursors = await loadCursors(sql, API_CURSOR_KEY);
let lookUpKeys = false;
/** The fixed workspace, named directly: the baseline reads without a key. */
const scope = { workspaceId };

const PREFIX = '/api/v1/';
const OFFER_PATH = /^offers\/([0-9a-f-]{36})(\/events)?$/;

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(json), ...extra }).end(json);
}

const notFound = (res: ServerResponse) => send(res, 404, { error: { code: 'not_found', message: 'Resource not found.' } });

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const query = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));

  if (path === '/__bench/mode' && req.method === 'PUT') {
    lookUpKeys = query.get('keys') === 'lookup';
    res.writeHead(204).end();
    return;
  }
  if (path === '/healthz') return send(res, 200, { status: 'ok' });
  if (!path.startsWith(PREFIX)) return notFound(res);
  const now = new Date();

  if (lookUpKeys) {
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const found = await workspaceOfKey(sql, hashApiKey(key), now);
    if (found === null) {
      return send(res, 401, { error: { code: 'unauthorized', message: 'Missing or invalid API key.' } }, { 'www-authenticate': 'Bearer' });
    }
  }

  const route = path.slice(PREFIX.length);
  if (route === 'workspace') return send(res, 200, { data: (await readWorkspace(sql, scope, now))!.value });
  if (route === 'offers') {
    const status = (query.get('status') as OfferStatus | null) ?? null;
    const limit = Number(query.get('limit') ?? 25);
    const token = query.get('cursor');
    const after = token === null ? null : (cursors.open(offersCursor, token, status)?.position ?? null);
    const page = (await readOfferPage(sql, scope, { status, after, limit, now }))!.value;
    const next = page.next && cursors.seal(offersCursor, { workspaceId: workspaceId!, walk: status, position: page.next });
    return send(res, 200, { data: page.offers, next_cursor: next });
  }
  const match = OFFER_PATH.exec(route);
  if (!match) return notFound(res);
  const offerId = match[1]!;
  if (!match[2]) {
    const offer = await readOffer(sql, { workspaceId: workspaceId!, offerId, now });
    return offer ? send(res, 200, { data: offer }) : notFound(res);
  }
  const limit = Number(query.get('limit') ?? 50);
  const token = query.get('cursor');
  const afterSequence = token === null ? 0 : (cursors.open(timelineCursor, token, offerId)?.position ?? 0);
  const page = (await readOfferEventPage(sql, scope, { offerId, afterSequence, limit, now }))!.value;
  if (page.events === null) return notFound(res);
  const next = page.nextAfterSequence === null ? null : cursors.seal(timelineCursor, { workspaceId: workspaceId!, walk: offerId, position: page.nextAfterSequence });
  return send(res, 200, { data: page.events, next_cursor: next });
}

const server = createServer((req, res) => {
  answer(req, res).catch((error: unknown) => {
    process.stderr.write(`baseline: ${String(error)}\n`);
    if (!res.headersSent) send(res, 500, { error: { code: 'internal_error', message: 'Internal server error.' } });
    else res.destroy();
  });
});
// Same keep-alive behaviour as the service (Node's defaults under Express). The bench waits for /healthz.
server.listen(config.port, config.host);

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void sql.end({ timeout: 1 }).then(() => process.exit(0));
});
