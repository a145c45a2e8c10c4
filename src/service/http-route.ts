import type { Request, Response } from 'express';
import { CONSOLE_API_PATH, CONSOLE_PATH } from '../console/app.js';

/**
 * The `http_route` of a request's metrics: the operationId the router matched (openapi.yaml or
 * console-api.yaml, set by http/openapi-router.ts), else one of a few fixed names. A closed set,
 * so a scan of made-up paths cannot grow the metrics.
 */
export function httpRoute(req: Request, res: Response): string {
  const route = res.locals.route as string | undefined;
  if (route !== undefined) return route;
  const path = req.originalUrl.split('?', 1)[0]!;
  if (path === '/healthz' || path === '/readyz') return path;
  if (path === '/docs' || path.startsWith('/docs/')) return '/docs';
  const consoleApi = `${CONSOLE_PATH}${CONSOLE_API_PATH}`;
  if ((path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`)) && path !== consoleApi && !path.startsWith(`${consoleApi}/`)) {
    return CONSOLE_PATH;
  }
  return 'unmatched';
}
