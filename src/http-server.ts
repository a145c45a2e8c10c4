import { createServer, type RequestListener, type Server } from 'node:http';
import type { HttpLimits } from './config.js';

/**
 * Node checks the header and request deadlines only on this tick (30 s by default), so a
 * deadline of 10 s could hold a socket for 40. A quarter of the header deadline, at most 1 s.
 */
export function connectionsCheckingIntervalMs(limits: HttpLimits): number {
  return Math.max(25, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)));
}

/**
 * The HTTP server of `serve`, sized for an API of small GET requests (docs/reliability.md "Slow
 * clients"): a client that trickles its headers or body is cut off after HTTP_HEADERS_TIMEOUT_MS
 * or HTTP_REQUEST_TIMEOUT_MS (Node answers 408 and closes), a request head larger than
 * HTTP_MAX_HEADER_BYTES gets 431, and idle keep-alive connections outlive a load balancer's idle
 * timeout (HTTP_KEEP_ALIVE_TIMEOUT_MS), so the balancer, not this server, closes them first and
 * never sends a request on a connection being closed.
 */
export function createHttpServer(app: RequestListener, limits: HttpLimits): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: connectionsCheckingIntervalMs(limits),
    },
    app,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  return server;
}
