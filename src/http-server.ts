import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from './config.js';

/**
 * Node checks the header and request deadlines only on this tick (30 s by default), so a
 * deadline of 10 s could hold a socket for 40. A quarter of the header deadline, at most 1 s.
 */
export function connectionsCheckingIntervalMs(limits: HttpLimits): number {
  return Math.max(25, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)));
}

/**
 * The HTTP server of `serve`, sized for an API of small GET requests (docs/reliability.md
 * "Slow clients are cut off"): a client that trickles its headers or body is cut off after HTTP_HEADERS_TIMEOUT_MS
 * or HTTP_REQUEST_TIMEOUT_MS (Node answers 408 and closes), a request head larger than
 * HTTP_MAX_HEADER_BYTES gets 431, and idle keep-alive connections outlive a load balancer's idle
 * timeout (HTTP_KEEP_ALIVE_TIMEOUT_MS), so the balancer, not this server, closes them first and
 * never sends a request on a connection being closed.
 *
 * With `classes`, the server makes each request and response as an instance of them (Node's
 * `IncomingMessage` and `ServerResponse` options), as an express app wants them
 * (src/service/request-classes.ts).
 */
export function createHttpServer(app: RequestListener, limits: HttpLimits, classes?: ServerClasses): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: connectionsCheckingIntervalMs(limits),
      ...classes,
    },
    app,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  return server;
}

/** The classes of the server's requests and responses: subclasses of Node's own. */
export interface ServerClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

export function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('listening', () => resolve(server));
    server.once('error', reject);
    server.listen(port, host);
  });
}

/** Connections with a request in flight, so that shutdown can tell busy ones from idle ones. */
export interface ConnectionState {
  sockets: Set<Socket>;
  busy: WeakMap<Socket, number>;
}

export function trackConnections(server: Server): ConnectionState {
  const state: ConnectionState = { sockets: new Set(), busy: new WeakMap() };
  server.on('connection', (socket) => {
    state.sockets.add(socket);
    socket.once('close', () => state.sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    state.busy.set(socket, (state.busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      state.busy.set(socket, (state.busy.get(socket) ?? 1) - 1);
      // Once shutting down, a keep-alive connection that just finished its request is closed.
      if (!server.listening && state.busy.get(socket) === 0) socket.end();
    });
  });
  return state;
}

const SHUTDOWN_POLL_MS = 20;

/**
 * Stops accepting connections, closes idle keep-alive connections at once, lets requests in
 * flight finish, and after `timeoutMs` closes whatever is left.
 */
export async function closeServer(server: Server, state: ConnectionState, timeoutMs: number): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Responses finished from now on carry `Connection: close`.
  server.on('request', (_req, res) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  });
  for (const socket of state.sockets) {
    if ((state.busy.get(socket) ?? 0) === 0) socket.end();
  }
  const deadline = Date.now() + timeoutMs;
  while (state.sockets.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_POLL_MS));
  }
  for (const socket of state.sockets) socket.destroy();
  await closed;
}
