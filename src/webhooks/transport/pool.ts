import { createHash } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import * as tls from 'node:tls';
import { Pool, buildConnector } from 'undici';
import type { ResolvedAddress } from './address-rules.js';

/**
 * Keep-alive connection pools for webhook receivers, one per host name AND set of checked
 * addresses. The addresses are part of the key, so a connection opened to an address that was
 * fine yesterday is never reused for a name that now resolves elsewhere; the connector dials the
 * checked addresses themselves (no DNS here at all) and verifies the certificate against the
 * host name through SNI (`servername`).
 */

/** Bounded connections per receiver (connections to a receiver are reused, within a bound). */
export const MAX_CONNECTIONS_PER_ORIGIN = 8;
/**
 * Idle sockets are closed after this unless the receiver's Keep-Alive hint says otherwise. Short
 * (undici's own default) because a POST is never retried on a socket the receiver closed while
 * idle: that race would cost a failed attempt, while reuse matters mostly within bursts.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 4_000;
/** Pools with no request for this long are closed on the next sweep. */
export const POOL_IDLE_MS = 2 * 60_000;
/** Upper bound on pools held at once; the longest-idle free ones go first. */
export const MAX_POOLS = 512;
/** Per checked address; the next address is tried after this. The attempt deadline still rules. */
export const CONNECT_TIMEOUT_PER_ADDRESS_MS = 5_000;

export interface PinnedTlsOptions {
  /** Extra certificate authorities, trusted in addition to the default ones (tests only). */
  ca?: string | Buffer;
}

interface Entry {
  pool: Pool;
  lastUsed: number;
  inFlight: number;
}

export function poolKey(hostname: string, addresses: ResolvedAddress[]): string {
  const targets = addresses.map((a) => (a.family === 6 ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`));
  return `${hostname}|${targets.join(',')}`;
}

function trustedCas(extra: string | Buffer | undefined): (string | Buffer)[] | undefined {
  if (extra === undefined) return undefined;
  // Node's `ca` option replaces the default store; keep the defaults (including
  // NODE_EXTRA_CA_CERTS where Node can list them) and add the extra CA on top.
  const getCACertificates = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  const defaults = typeof getCACertificates === 'function' ? getCACertificates('default') : [...rootCertificates];
  return [...defaults, extra];
}

export class PinnedPools {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: { connectTimeoutMs: number; responseTimeoutMs: number; tls?: PinnedTlsOptions }) {}

  /**
   * Runs `use` with the pool for these checked addresses, counting it as busy meanwhile.
   * `onlyCa`: trust exactly this CA and no other for this pool (an `offerdesk listen` endpoint's
   * local CA, docs/receiving-webhooks-on-your-laptop.md); it is part of the pool's key.
   */
  async with<T>(hostname: string, addresses: ResolvedAddress[], use: (pool: Pool) => Promise<T>, onlyCa?: string): Promise<T> {
    if (this.closed) throw new Error('webhook connection pools are closed');
    this.sweep();
    const key = onlyCa === undefined ? poolKey(hostname, addresses) : `${poolKey(hostname, addresses)}|ca:${createHash('sha256').update(onlyCa).digest('hex')}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { pool: this.createPool(hostname, addresses, onlyCa), lastUsed: Date.now(), inFlight: 0 };
      this.entries.set(key, entry);
    }
    entry.inFlight += 1;
    entry.lastUsed = Date.now();
    try {
      const result = await use(entry.pool);
      // undici marks a connection free again in a microtask after the reply ends; one turn of the
      // event loop lets it, so a worker sending one attempt after another keeps one connection.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return result;
    } finally {
      entry.inFlight -= 1;
      entry.lastUsed = Date.now();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.entries.values()].map((entry) => entry.pool);
    this.entries.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private sweep(): void {
    const now = Date.now();
    const idle = [...this.entries].filter(([, e]) => e.inFlight === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    let excess = this.entries.size - MAX_POOLS + 1;
    for (const [key, entry] of idle) {
      if (now - entry.lastUsed < POOL_IDLE_MS && excess <= 0) break;
      this.entries.delete(key);
      excess -= 1;
      void entry.pool.close().catch(() => undefined);
    }
  }

  private createPool(hostname: string, addresses: ResolvedAddress[], onlyCa?: string): Pool {
    const dial = buildConnector({
      timeout: this.options.connectTimeoutMs,
      ca: onlyCa === undefined ? trustedCas(this.options.tls?.ca) : [onlyCa],
      // One TLS session cache per pool: sessions are resumed only with the same checked addresses.
      maxCachedSessions: MAX_CONNECTIONS_PER_ORIGIN,
    });
    const connect: buildConnector.connector = (opts, callback) => {
      let index = 0;
      const next = (lastError: Error) => {
        const target = addresses[index++];
        if (!target) {
          callback(lastError, null);
          return;
        }
        dial(
          { ...opts, hostname: target.address, host: undefined, port: String(target.port), servername: hostname },
          (...result) => {
            if (result[0] === null) callback(null, result[1]);
            else next(result[0]);
          },
        );
      };
      next(new Error('no address to connect to'));
    };
    // The origin carries the host name, so the Host header is the name and never the address.
    return new Pool(`https://${hostname}`, {
      connect,
      connections: MAX_CONNECTIONS_PER_ORIGIN,
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      headersTimeout: this.options.responseTimeoutMs,
      bodyTimeout: this.options.responseTimeoutMs,
    });
  }
}
