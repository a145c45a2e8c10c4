import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';

/**
 * The webhook receiver, in its own process: HTTPS on 127.0.0.1 answering 200 at once (500 under /fail/), keeping each
 * path + webhook-id's first arrival and count. Its control port: POST /reset, GET /summary[?prefix=p], GET /arrivals.
 */

let arrivals = new Map<string, { path: string; at: number; count: number }>();
let requests = 0;

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const wallNow = () => performance.timeOrigin + performance.now();

const KEEP_ALIVE_MS = 30_000;

const hooks = createHttpsServer(
  { key: readFileSync(process.env.RECEIVER_KEY!), cert: readFileSync(process.env.RECEIVER_CERT!), keepAliveTimeout: KEEP_ALIVE_MS },
  (req, res) => {
    const at = wallNow();
    // The body is not needed; reading it to its end keeps the connection reusable.
    req.resume();
    req.on('end', () => {
      requests++;
      const id = req.headers['webhook-id'];
      const path = req.url ?? '/';
      // Only a signed webhook counts as an arrival.
      if (typeof id === 'string' && typeof req.headers['webhook-signature'] === 'string') {
        // An event goes to each endpoint with the same webhook-id: a duplicate is that id twice at one path.
        const key = `${path} ${id}`;
        const seen = arrivals.get(key);
        if (seen) seen.count++;
        else arrivals.set(key, { path, at, count: 1 });
      }
      const fail = path.startsWith('/fail/');
      res.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain', 'content-length': fail ? '4' : '2' }).end(fail ? 'fail' : 'ok');
    });
  },
);

const control = createHttpServer((req, res) => {
  const json = (body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  if (req.method === 'POST' && req.url === '/reset') {
    arrivals = new Map();
    requests = 0;
    return json({ ok: true });
  }
  if (req.url?.startsWith('/summary')) {
    const prefix = new URL(req.url, 'http://control').searchParams.get('prefix');
    let duplicates = 0;
    const paths = new Set<string>();
    for (const a of arrivals.values()) {
      duplicates += a.count - 1;
      if (prefix !== null && a.path.startsWith(prefix)) paths.add(a.path);
    }
    return json({ requests, distinct: arrivals.size, duplicates, paths: paths.size });
  }
  if (req.url === '/arrivals') return json([...arrivals.entries()].map(([id, a]) => [id, a.path, a.at, a.count]));
  res.writeHead(404).end();
});

// The control port listens once the hooks port does: the bench waits for the control port.
hooks.listen(Number(process.env.RECEIVER_PORT), '127.0.0.1', () => control.listen(Number(process.env.RECEIVER_CONTROL_PORT), '127.0.0.1'));
process.on('SIGTERM', () => process.exit(0));
