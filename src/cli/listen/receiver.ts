import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { MAX_WEBHOOK_BODY_BYTES } from '../../webhooks/engine/policy.js';

/**
 * The HTTPS receiver of `offerdesk listen` on loopback: verifies every request with the Standard
 * Webhooks scheme (openapi.yaml "Webhook signature", through the reference `standardwebhooks` library,
 * 5-minute tolerance included), optionally forwards a verified request unchanged to a local http
 * address, and answers with the status it decided. Reports one ReceivedEvent per request.
 */

/** openapi.yaml "Webhook delivery and retries": the sender waits 10 seconds; the forward gets a little less so our answer still arrives. */
export const FORWARD_TIMEOUT_MS = 9_000;
/** Exactly the request headers of openapi.yaml "Webhook request"; forwarded as received. */
const FORWARDED_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

export interface ReceivedEvent {
  at: Date;
  type: string;
  /** `data.offer.id`, or null (ping, or a body that is not ours). */
  offerId: string | null;
  verified: boolean;
  /** Why verification failed, or why forwarding failed. */
  note: string | null;
  status: number;
}

export interface ListenReceiver {
  port: number;
  /** Until the endpoint is registered, requests are answered 503 (the sender retries). */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startListenReceiver(options: {
  certPem: string;
  keyPem: string;
  forwardTo?: string;
  onEvent: (event: ReceivedEvent) => void;
}): Promise<ListenReceiver> {
  let webhook: Webhook | undefined;
  const server: Server = createServer({ cert: options.certPem, key: options.keyPem }, (req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = new Date();
    const body = await readBody(req);
    const answer = (status: number, event: Omit<ReceivedEvent, 'at' | 'status'>) => {
      res.writeHead(status, { 'content-type': 'text/plain' }).end();
      options.onEvent({ at, status, ...event });
    };
    if (body === null) return answer(413, { type: '-', offerId: null, verified: false, note: 'body over 64 KiB' });
    const text = body.toString('utf8');
    if (!webhook) return answer(503, { ...describe(text), verified: false, note: 'not registered yet' });
    let payload: unknown;
    try {
      payload = webhook.verify(text, headersOf(req));
    } catch (error) {
      return answer(400, { ...describe(text), verified: false, note: (error as Error).message });
    }
    const seen = describe(payload);
    if (!options.forwardTo) return answer(200, { ...seen, verified: true, note: null });
    const forwarded = await forward(options.forwardTo, req, body);
    answer(forwarded.status, { ...seen, verified: true, note: forwarded.note });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    setSecret(secret) {
      webhook = new Webhook(secret);
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // More than the 64 KiB of openapi.yaml "Webhook request" is not a webhook of ours.
      if (size > MAX_WEBHOOK_BODY_BYTES) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** Type and offer of a verified payload, or of an unverified body as far as it can be read. */
function describe(payload: unknown): { type: string; offerId: string | null } {
  let value = payload;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { type: '-', offerId: null };
    }
  }
  const event = value as { type?: unknown; data?: { offer?: { id?: unknown } } } | null;
  const type = typeof event?.type === 'string' ? event.type : '-';
  const offerId = typeof event?.data?.offer?.id === 'string' ? event.data.offer.id : null;
  return { type, offerId };
}

/** POSTs the body and the headers of openapi.yaml "Webhook request" unchanged; a failure to reach the target is a 502. */
async function forward(url: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; note: string | null }> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  try {
    const reply = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await reply.arrayBuffer().catch(() => undefined);
    return { status: reply.status, note: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? 'no reply in time' : (cause?.code ?? (error as Error).message);
    return { status: 502, note: `forward to ${url} failed: ${reason}` };
  }
}
