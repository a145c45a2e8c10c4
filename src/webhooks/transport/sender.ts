import { performance } from 'node:perf_hooks';
import type { WebhookConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { type Resolver, checkEndpointAddress } from './address-rules.js';
import { unsignedHeaders, webhookTimestamp } from './headers.js';
import { withDevListen } from '../management/dev-listen-rules.js';
import type { DevListenTarget } from '../sql/devListen.js';
import { signPayload } from './signing.js';
import { CONNECT_TIMEOUT_PER_ADDRESS_MS, PinnedPools, type PinnedTlsOptions } from './pool.js';

/**
 * One webhook attempt over HTTPS (openapi.yaml "Webhook request", "Webhook delivery and retries"):
 * check the address again, connect only to the checked addresses, POST the signed body with exactly
 * the headers of openapi.yaml "Webhook request", and report the outcome. Network problems are outcomes, never throws.
 */

export { USER_AGENT } from './headers.js';
/** docs/webhook-delivery.md "Limits": time to respond, headers and body together, from the attempt's start. */
export const RESPONSE_TIMEOUT_MS = 10_000;
/** How much of a reply body the delivery log keeps. */
export const RESPONSE_PREFIX_BYTES = 1024;
/**
 * The reply body is ignored (openapi.yaml "Webhook delivery and retries"), but reading it to its end keeps the connection reusable.
 * Past this many bytes the connection is dropped instead and the reply counts as complete.
 */
export const RESPONSE_DRAIN_LIMIT_BYTES = 64 * 1024;

/** Why an attempt failed; the delivery log shows `error`, this is for code and metrics. */
export type AttemptFailure = 'address' | 'connect' | 'tls' | 'timeout' | 'status' | 'reply';

export type AttemptOutcome =
  | { ok: true; status: number; durationMs: number; responsePrefix: string; signature?: string }
  | {
      ok: false;
      status: number | null;
      error: string | null;
      durationMs: number;
      responsePrefix: string | null;
      /** The webhook-signature header of the request, once one was prepared (the delivery log shows it). */
      signature?: string;
      /** Always set by this sender; optional so other code can build outcomes without it. */
      failure?: AttemptFailure;
    };

export interface SendRequest {
  url: string;
  /** `whsec_...` in clear text. */
  secret: string;
  /** Equals the body's `id`; the same on every retry and resend. */
  messageId: string;
  /** The exact JSON text to send and sign. */
  body: string;
  /** Time of this attempt: `webhook-timestamp` in unix seconds. */
  attemptAt: Date;
  customOfferDomains: string[];
  /**
   * The `offerdesk listen` mapping of this endpoint, passed only by a worker with development
   * mappings enabled (config webhooks.devListen): the URL's name goes to this loopback port and
   * the certificate must come from this CA.
   */
  devListen?: DevListenTarget;
}

export interface WebhookSender {
  send(request: SendRequest): Promise<AttemptOutcome>;
  /** Stops accepting sends, waits for the ones in flight, then closes every connection. */
  close(): Promise<void>;
}

export interface WebhookSenderOptions {
  config: WebhookConfig;
  resolver?: Resolver;
  logger?: Logger;
  /** Defaults to RESPONSE_TIMEOUT_MS; tests shorten it so a silent receiver costs milliseconds. */
  responseTimeoutMs?: number;
  /**
   * Tests only: an extra certificate authority trusted in addition to the default ones, for the
   * in-process test receiver. Processes started normally trust a local CA via NODE_EXTRA_CA_CERTS.
   */
  tls?: PinnedTlsOptions;
}

class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.responseTimeoutMs ?? RESPONSE_TIMEOUT_MS;
  const pools = new PinnedPools({
    connectTimeoutMs: Math.min(CONNECT_TIMEOUT_PER_ADDRESS_MS, timeoutMs),
    responseTimeoutMs: timeoutMs,
    tls: options.tls,
  });
  const inFlight = new Set<Promise<AttemptOutcome>>();
  let closing = false;

  if (options.config.devResolve.size > 0) {
    const mapping = Object.fromEntries([...options.config.devResolve].map(([name, t]) => [name, `${t.address}:${t.port}`]));
    options.logger?.warn(
      { devResolve: mapping },
      'OFFERDESK_WEBHOOK_DEV_RESOLVE is set: webhooks to these names go to local addresses and skip the public-address rules; never use this in production',
    );
  }

  async function attempt(request: SendRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new AttemptTimeout()), timeoutMs);
    const timeoutError = `no complete reply within ${describeMs(timeoutMs)}`;
    try {
      const verdict = await Promise.race([
        checkEndpointAddress(request.url, {
          config: request.devListen ? withDevListen(options.config, request.url, request.devListen) : options.config,
          customOfferDomains: request.customOfferDomains,
          resolver: options.resolver,
        }),
        whenAborted(deadline.signal),
      ]);
      // A lookup that outlives the deadline is abandoned; its answer is never used.
      if (verdict === 'aborted') return failedAttempt('timeout', null, timeoutError, elapsed(), null);
      if (!verdict.ok) return failedAttempt('address', null, `address refused: ${verdict.reason}`, elapsed(), null);

      const url = new URL(request.url);
      const body = Buffer.from(request.body, 'utf8');
      const timestamp = webhookTimestamp(request.attemptAt);
      // openapi.yaml "Webhook request": these five and nothing else; undici adds only host,
      // content-length and connection, which HTTP/1.1 itself needs.
      const headers = {
        ...unsignedHeaders(request.messageId, timestamp),
        'webhook-signature': signPayload(request.secret, request.messageId, timestamp, request.body),
      };

      let status: number | null = null;
      let prefix: string | null = null;
      try {
        return await pools.with(verdict.hostname, verdict.addresses, async (pool) => {
          const reply = await pool.request({
            method: 'POST',
            path: `${url.pathname}${url.search}`,
            headers,
            body,
            signal: deadline.signal,
          });
          status = reply.statusCode;
          prefix = await readPrefix(reply.body);
          if (status >= 200 && status <= 299) return { ok: true, status, durationMs: elapsed(), responsePrefix: prefix, signature: headers['webhook-signature'] };
          const error =
            status >= 300 && status <= 399
              ? `status ${status}: redirects are not followed`
              : `status ${status}: not a 2xx reply`;
          return failedAttempt('status', status, error, elapsed(), prefix, headers['webhook-signature']);
        }, request.devListen?.caPem);
      } catch (thrown) {
        if (deadline.signal.aborted) return failedAttempt('timeout', status, timeoutError, elapsed(), prefix, headers['webhook-signature']);
        const { failure, error } = describeNetworkError(thrown, timeoutMs);
        return failedAttempt(status === null ? failure : 'reply', status, error, elapsed(), prefix, headers['webhook-signature']);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send(request) {
      if (closing) return Promise.reject(new Error('webhook sender is closed'));
      const pending = attempt(request).catch((thrown: unknown): AttemptOutcome => {
        // Programming errors (a malformed secret, say) still become a failed attempt, logged once.
        options.logger?.error({ err: thrown, url: request.url }, 'webhook attempt failed unexpectedly');
        return failedAttempt('connect', null, 'internal error before sending', 0, null);
      });
      inFlight.add(pending);
      void pending.finally(() => inFlight.delete(pending));
      return pending;
    },
    async close() {
      closing = true;
      await Promise.allSettled([...inFlight]);
      await pools.close();
    },
  };
}

function failedAttempt(
  failure: AttemptFailure,
  status: number | null,
  error: string | null,
  durationMs: number,
  responsePrefix: string | null,
  signature?: string,
): AttemptOutcome {
  return signature === undefined
    ? { ok: false, status, error, durationMs, responsePrefix, failure }
    : { ok: false, status, error, durationMs, responsePrefix, failure, signature };
}

function whenAborted(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * The first RESPONSE_PREFIX_BYTES of the body as text. A multi-byte character cut at the limit is
 * dropped rather than mangled, invalid UTF-8 becomes U+FFFD, and NUL (which PostgreSQL text cannot
 * hold) becomes U+FFFD as well.
 */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_PREFIX_BYTES) {
      const part = chunk.subarray(0, RESPONSE_PREFIX_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    seen += chunk.length;
    if (seen > RESPONSE_DRAIN_LIMIT_BYTES) {
      body.destroy();
      break;
    }
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(kept), { stream: true }).replace(/\u0000/g, '\uFFFD');
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_INFO: 'invalid reply',
  HPE_INVALID_CONSTANT: 'invalid HTTP reply',
};

/** One short line for the delivery log: no stack, no internals beyond the error code. */
function describeNetworkError(thrown: unknown, timeoutMs: number): { failure: AttemptFailure; error: string } {
  const error = thrown as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof error?.code === 'string' ? error.code : undefined;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { failure: 'timeout', error: `no complete reply within ${describeMs(timeoutMs)}` };
  }
  if (code && /CERT|SSL|TLS|UNABLE_TO_|ERR_OSSL/.test(code)) {
    return { failure: 'tls', error: `TLS error: ${firstLine(error?.message) ?? code} (${code})` };
  }
  if (code && NETWORK_ERRORS[code]) return { failure: 'connect', error: `${NETWORK_ERRORS[code]} (${code})` };
  if (code?.startsWith('HPE_')) return { failure: 'connect', error: `invalid HTTP reply (${code})` };
  const message = firstLine(error?.message) ?? 'unknown error';
  return { failure: 'connect', error: code ? `${message} (${code})` : message };
}

function firstLine(message: unknown): string | undefined {
  if (typeof message !== 'string' || message === '') return undefined;
  const line = message.split('\n', 1)[0]!;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
