import ipaddr from 'ipaddr.js';
import { ConfigError, integer, type Env } from './values.js';

/** The HTTP server's and Redis's settings: how slow clients and a slow Redis are held off. */

export interface RedisTimeouts {
  /** A command without an answer after this fails, and the in-memory limiter decides instead. */
  commandTimeoutMs: number;
  /** A connection attempt (TCP connect) that takes longer is abandoned and retried. */
  connectTimeoutMs: number;
  /** Reconnect attempts back off up to this pause, and go on for as long as Redis is away. */
  reconnectMaxDelayMs: number;
}

export interface HttpLimits {
  /** All request headers must arrive within this (Node `server.headersTimeout`). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this (`server.requestTimeout`). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is kept this long; above a load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Largest request head (request line plus headers) in bytes; larger gets 431. */
  maxHeaderBytes: number;
  /** An API request not answered after this gets the generic 500, whatever it waits for. */
  responseDeadlineMs: number;
}

export interface ReadinessConfig {
  /** A worker whose last successful claim round is older than this makes /readyz answer 503. */
  workerStaleAfterMs: number;
}

/** openapi.yaml "Limits" needs nothing from these; they keep a slow client from holding a socket. */
export function loadHttpLimits(env: Env): HttpLimits {
  const http: HttpLimits = {
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 15_000, 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000),
    maxHeaderBytes: integer(env, 'HTTP_MAX_HEADER_BYTES', 8_192, 1_024, 65_536),
    responseDeadlineMs: integer(env, 'HTTP_RESPONSE_DEADLINE_MS', 5_000, 100, 600_000),
  };
  // Node refuses a header deadline later than the whole request's.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`,
    );
  }
  return http;
}

export function loadRedisTimeouts(env: Env): RedisTimeouts {
  return {
    commandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 300, 10, 10_000),
    connectTimeoutMs: integer(env, 'REDIS_CONNECT_TIMEOUT_MS', 1_000, 10, 60_000),
    reconnectMaxDelayMs: integer(env, 'REDIS_RECONNECT_MAX_DELAY_MS', 2_000, 10, 60_000),
  };
}

export function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || /^(false|0|off|no)$/i.test(raw)) return false;
  if (/^(true|on|yes)$/i.test(raw)) return true;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  // Express accepts subnet lists and the names loopback, linklocal, uniquelocal; anything else
  // would stop the start with Express's own message, so it is checked here.
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) continue;
    const valid = item.includes('/') ? isCidr(item) : ipaddr.isValid(item);
    if (!valid) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count, or addresses/subnets and loopback, linklocal, uniquelocal; "${item}" is none of them`,
      );
    }
  }
  return raw;
}

function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

export /** scheme://host[:port], no path, query or credentials; returned without a trailing slash. */
function publicUrl(raw: string | undefined, port: number): string {
  if (raw === undefined || raw === '') return `http://localhost:${port}`;
  const what = `OFFERDESK_PUBLIC_URL must be the server's public base address, scheme://host[:port] without a path (e.g. https://api.example.com), got "${raw}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(what);
  }
  const bare = (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
  if (!/^https?:$/.test(url.protocol) || !bare) throw new ConfigError(what);
  return url.origin;
}
