import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * The Prism validation proxy of the contract gates (contract-tests/gate-prism.sh): with
 * OFFERDESK_TEST_PROXY=prism, startTestApi() puts `prism proxy openapi.yaml <server> --errors`
 * in front of its server, so every response the HTTP suite receives has been validated against
 * openapi.yaml. A violation fails the test that made the request (Prism answers 500) and, in
 * any case, the file: close() throws with every violation seen. In the `api` and `console`
 * projects that Prism is one per project, shared by every server's front (SharedPrism below).
 *
 * Prism sits behind a thin front that keeps the suite's URLs (`<origin>/api/v1/...`) and routes
 * around Prism exactly where Prism cannot judge an answer the contract (openapi.yaml) requires:
 * - HEAD: openapi.yaml "Methods": "Treated exactly like GET (same checks, status, headers) with no
 *   body". The answer keeps `Content-Type: application/json` and Prism's proxy then fails
 *   parsing the empty body (FetchError: invalid json response body, answered 500), so HEAD
 *   goes straight to the server (its headers and status are fuzzed by Schemathesis instead).
 * - Prism's own refusals, which it sends without asking the server: UNAUTHORIZED (its security
 *   check of a missing `Authorization` or another scheme; openapi.yaml "Authentication" wants the
 *   server's 401 with its fixed body) and NO_PATH_MATCHED / NO_METHOD_MATCHED (openapi.yaml
 *   "Methods": "A path that does not exist returns 404 `not_found` for every method"; the
 *   contract has no route for it, so there is nothing to validate). Such a request is sent to
 *   the server unchanged and its answer returned; no other Prism error is passed over.
 * - Everything outside /api/v1 (e.g. /healthz) is not part of the contract.
 * Request validation is off (`--validate-request false`): the suite sends invalid requests on
 * purpose, and the contract defines the server's answers to them, which Prism then validates.
 * `--cors false`: openapi.yaml "Scope", no CORS headers (Prism would add its own).
 */

const ROOT = join(import.meta.dirname, '..', '..');
const PRISM = join(ROOT, 'node_modules', '.bin', 'prism');
const BASE_PATH = '/api/v1';
const START_DEADLINE_MS = 30_000;
const POLL_INTERVAL_MS = 100;
const PRISM_ERRORS = 'https://stoplight.io/prism/errors#';
/** Prism's refusals of requests it never forwarded; the server answers those itself. */
const ROUTED_AROUND = new Set(['UNAUTHORIZED', 'NO_PATH_MATCHED_ERROR', 'NO_METHOD_MATCHED_ERROR']);

export interface PrismFront {
  /** http://127.0.0.1:PORT: the same paths as the server's origin. */
  origin: string;
  /** Every contract violation Prism reported so far. */
  violations: string[];
  /** Stops front and Prism; throws when any violation was seen. */
  close(): Promise<void>;
}

/** Which document Prism validates, and the path it is served under (the public API by default). */
export interface PrismContract {
  document: string;
  basePath: string;
}

export const PUBLIC_API: PrismContract = { document: 'openapi.yaml', basePath: BASE_PATH };
/**
 * The console API (console-api.yaml under /console/api). The front stands where the browser's
 * page would be, so a request carrying the front's own Origin is passed on with the server's
 * (the console refuses state-changing requests from any other origin).
 */
export const CONSOLE_API: PrismContract = { document: 'console-api.yaml', basePath: '/console/api' };

/**
 * The request header by which a front sharing a Prism (SharedPrism) names its own server; the
 * relay behind that Prism sends the request there and drops the header.
 */
const UPSTREAM_HEADER = 'x-offerdesk-test-upstream';

/** A running `prism proxy <document> <upstream> --errors` and how to stop it. */
interface RunningPrism {
  origin: string;
  stop(): void;
}

async function spawnPrism(contract: PrismContract, upstream: string): Promise<RunningPrism> {
  const prismPort = await freePort();
  // Detached: stop() ends Prism and anything it forked as one process group. (Prism's `-m`
  // halves its latency per request but triples its start.)
  const prism = spawn(
    PRISM,
    ['proxy', join(ROOT, contract.document), `${upstream}${contract.basePath}`, '--errors', '--validate-request', 'false', '--cors', 'false', '--port', String(prismPort), '-v', 'warn'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(chunk.toString('utf8'));
    if (log.length > 200) log.shift();
  };
  prism.stdout!.on('data', keep);
  prism.stderr!.on('data', keep);
  const stop = () => {
    try {
      process.kill(-prism.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  try {
    await untilAnswering(`http://127.0.0.1:${prismPort}/`, prism, log);
  } catch (error) {
    stop();
    throw error;
  }
  return { origin: `http://127.0.0.1:${prismPort}`, stop };
}

export interface SharedPrism {
  /** Prism's own address, for startPrismFront's `shared`. */
  origin: string;
  close(): Promise<void>;
}

/**
 * One Prism for every server of a test run (test/support/prism-setup.ts starts it in vitest's
 * global setup): a Prism takes seconds of CPU to start, and every file of the HTTP suites started
 * its own. Its upstream is a relay that sends each request on to the server its front named in
 * UPSTREAM_HEADER, with the Host that server's own Prism would have sent; Prism validates every
 * answer exactly as before, and each front still keeps its own violations.
 */
export async function startSharedPrism(contract: PrismContract): Promise<SharedPrism> {
  const relay: Server = createServer((req, res) => {
    const port = Number(req.headers[UPSTREAM_HEADER]);
    if (!Number.isInteger(port) || port <= 0) {
      fail(res, new Error(`no ${UPSTREAM_HEADER} header: the request did not come through a test front`));
      return;
    }
    delete req.headers[UPSTREAM_HEADER];
    void relayTo(req, `http://127.0.0.1:${port}`, req.url ?? '/').then((answer) => send(res, answer), (error) => fail(res, error));
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayOrigin = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  let prism: RunningPrism;
  try {
    prism = await spawnPrism(contract, relayOrigin);
  } catch (error) {
    relay.close();
    throw error;
  }
  return {
    origin: prism.origin,
    async close() {
      prism.stop();
      relay.closeAllConnections();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

/**
 * A front for one server. With `shared` (a SharedPrism's origin) its Prism is that one, which must
 * validate the same document; without it, a Prism of its own is started and stopped with it.
 */
export async function startPrismFront(serverOrigin: string, contract: PrismContract = PUBLIC_API, shared?: string): Promise<PrismFront> {
  const BASE_PATH = contract.basePath;
  const own = shared === undefined ? await spawnPrism(contract, serverOrigin) : undefined;
  const prismOrigin = shared ?? own!.origin;
  const stopPrism = () => own?.stop();
  const upstreamPort = new URL(serverOrigin).port;
  const violations: string[] = [];

  let frontOrigin = '';
  const front: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (contract !== PUBLIC_API && req.headers.origin === frontOrigin) req.headers.origin = serverOrigin;
    const inContract = url === BASE_PATH || url.startsWith(`${BASE_PATH}/`) || url.startsWith(`${BASE_PATH}?`);
    if (!inContract || req.method === 'HEAD') {
      void relayTo(req, serverOrigin, url).then((answer) => send(res, answer), (error) => fail(res, error));
      return;
    }
    void (async () => {
      const body = await readAll(req);
      // Prism answers a body it cannot parse as JSON itself (`invalid_json`) instead of passing it
      // on; the server's own answer to it is what the contract describes, so it goes straight there.
      if (body.length > 0 && String(req.headers['content-type'] ?? '').startsWith('application/json') && !parsesAsJson(body)) {
        send(res, await forward(req, body, serverOrigin, url));
        return;
      }
      if (shared !== undefined) req.headers[UPSTREAM_HEADER] = upstreamPort;
      const viaPrism = await forward(req, body, prismOrigin, url.slice(BASE_PATH.length) || '/');
      delete req.headers[UPSTREAM_HEADER];
      const problem = prismProblem(viaPrism);
      if (problem && ROUTED_AROUND.has(problem)) {
        send(res, await forward(req, body, serverOrigin, url));
        return;
      }
      // An error answer (500 VIOLATIONS with --errors) or, for violations Prism only warns about,
      // the sl-violations header it adds to the passed-through answer.
      const reported = viaPrism.headers['sl-violations'];
      if (problem) violations.push(`${req.method} ${url}: Prism ${problem}: ${viaPrism.body.toString('utf8')}`);
      else if (reported) violations.push(`${req.method} ${url}: sl-violations ${String(reported)}`);
      send(res, viaPrism);
    })().catch((error) => fail(res, error));
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  frontOrigin = origin;

  return {
    origin,
    violations,
    async close() {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      stopPrism();
      if (violations.length > 0) {
        throw new Error(`Prism found ${violations.length} contract violation(s) in real responses:\n${violations.join('\n')}`);
      }
    },
  };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function parsesAsJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function prismProblem(answer: Answer): string | null {
  if (!String(answer.headers['content-type'] ?? '').startsWith('application/problem+json')) return null;
  try {
    const type = (JSON.parse(answer.body.toString('utf8')) as { type?: string }).type ?? '';
    return type.startsWith(PRISM_ERRORS) ? type.slice(PRISM_ERRORS.length) : null;
  } catch {
    return null;
  }
}

async function relayTo(req: IncomingMessage, target: string, path: string): Promise<Answer> {
  return forward(req, await readAll(req), target, path);
}

function forward(req: IncomingMessage, body: Buffer, target: string, path: string): Promise<Answer> {
  const headers = { ...req.headers, host: new URL(target).host };
  return new Promise((resolve, reject) => {
    const out = request(`${target}${path}`, { method: req.method, headers }, (answer) => {
      void readAll(answer).then((data) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: data }), reject);
    });
    out.once('error', reject);
    out.end(body);
  });
}

function send(res: ServerResponse, answer: Answer): void {
  const headers = { ...answer.headers };
  delete headers['transfer-encoding'];
  delete headers.connection;
  delete headers['keep-alive'];
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

function fail(res: ServerResponse, error: unknown): void {
  res.writeHead(502, { 'content-type': 'text/plain' });
  res.end(`prism front: ${String(error)}`);
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Polls until Prism answers (any status), with a deadline. */
async function untilAnswering(url: string, prism: ChildProcess, log: string[]): Promise<void> {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (prism.exitCode !== null) throw new Error(`Prism exited (code ${prism.exitCode}) before listening:\n${log.join('')}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  }
  throw new Error(`Prism did not answer within ${START_DEADLINE_MS} ms:\n${log.join('')}`);
}
