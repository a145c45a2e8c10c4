import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { API_BASE_PATH, loadOpenApiDocument } from '../../http/openapi-document.js';
import { sendRawJson } from '../../http/respond.js';

/**
 * openapi.yaml "getOpenApiDocument": no key, `Cache-Control: public, max-age=300`.
 *
 * openapi.yaml keeps a relative `servers` entry; the served document names this server's absolute
 * base URL, so a client generated from a running instance calls that instance: the configured
 * public address (OFFERDESK_PUBLIC_URL, for a deployment behind a proxy), or else the address the
 * document was requested at (scheme and Host as Express reads them, `trust proxy` respected).
 */
export function documentHandlers(options: { publicUrl?: string }) {
  const { document } = loadOpenApiDocument();
  const servedAt = (origin: string) => {
    const [server] = document.servers as { url: string; description?: string }[];
    return JSON.stringify({ ...document, servers: [{ ...server, url: origin + API_BASE_PATH }] });
  };
  const configured = options.publicUrl === undefined ? undefined : servedAt(options.publicUrl);

  function getOpenApiDocument(_c: Context, req: Request, res: Response): void {
    // Without a Host header (HTTP/1.0) there is no address to name: the file's relative entry stays.
    const json = configured ?? (req.host ? servedAt(`${req.protocol}://${req.host}`) : loadOpenApiDocument().json);
    sendRawJson(res, 200, json, 'public, max-age=300');
  }
  return { getOpenApiDocument };
}
