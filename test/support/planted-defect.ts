import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookSender } from '../../src/webhooks/transport/sender.js';

/**
 * The defect the contract gates plant to be seen failing (docs/contract.md "The gates"): every
 * offer loses its required `title`. It is planted outside the product, on the way between the
 * real server and the checker, so the product carries no fault switch:
 * - API answers: a forwarding proxy in front of the server (startTitleDroppingProxy) drops `title`
 *   from the offers in the JSON answers of `GET /offers` and `GET /offers/{id}`; Schemathesis
 *   (contract-tests/gate-planted-defect.sh) and Prism (test/contract/prism-front.test.ts) talk to it.
 * - Webhook bodies: a sender that drops `data.offer.title` from the body before the project's
 *   HTTPS sender signs and sends it (titleDroppingSender). The signature is made over the altered
 *   body, so the receiver's signature check still passes and the failure the webhook gate must
 *   see is the body's schema check (contract-tests/gate-webhooks.sh), not a broken signature.
 */
export const PLANTED_DEFECT = 'drop-offer-title';

/** `GET /offers` and `GET /offers/{id}` under `basePath`; the timeline (`/offers/{id}/events`) is left alone. */
function answersOffers(path: string, basePath: string): boolean {
  const pathname = path.split('?')[0]!;
  if (!pathname.startsWith(`${basePath}/offers`)) return false;
  const rest = pathname.slice(`${basePath}/offers`.length);
  return rest === '' || /^\/[^/]+$/.test(rest);
}

function withoutTitle(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const { title: _dropped, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** An API answer's JSON text with `title` dropped from its offer (`data`) or offers (`data[]`). */
export function dropOfferTitles(text: string): string {
  const body = JSON.parse(text) as { data?: unknown };
  if (body === null || typeof body !== 'object' || !('data' in body)) return text;
  const data = Array.isArray(body.data) ? body.data.map(withoutTitle) : withoutTitle(body.data);
  return JSON.stringify({ ...body, data });
}

export interface PlantingProxy {
  /** http://127.0.0.1:PORT: the same paths as the server's origin. */
  origin: string;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of `serverOrigin` that passes every request on unchanged and every answer
 * back unchanged, except the JSON answers of the offer operations under `basePath`, whose offers
 * lose their `title` (Content-Length recomputed).
 */
export async function startTitleDroppingProxy(serverOrigin: string, basePath = '/api/v1'): Promise<PlantingProxy> {
  const upstream = new URL(serverOrigin);
  const server: Server = createServer((req, res) => {
    const outgoing = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          const headers: IncomingHttpHeaders = { ...answer.headers };
          const json = /^application\/json\b/.test(answer.headers['content-type'] ?? '');
          if (json && body.length > 0 && answersOffers(req.url ?? '', basePath)) {
            body = Buffer.from(dropOfferTitles(body.toString('utf8')), 'utf8');
            headers['content-length'] = String(body.length);
            delete headers['transfer-encoding'];
          }
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
        answer.on('error', () => res.destroy());
      },
    );
    outgoing.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `sender`, except that an offer webhook's body loses `data.offer.title` before it is signed and sent. */
export function titleDroppingSender(sender: WebhookSender): WebhookSender {
  return {
    send(request) {
      const body = JSON.parse(request.body) as { data?: { offer?: unknown } };
      if (body.data?.offer === undefined) return sender.send(request);
      const altered = { ...body, data: { ...body.data, offer: withoutTitle(body.data.offer) } };
      return sender.send({ ...request, body: JSON.stringify(altered) });
    },
    close: () => sender.close(),
  };
}
