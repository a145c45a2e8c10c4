import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';

/**
 * The single-page console from `dist/console/` (Vite output): hashed files under `assets/` are
 * cached for good (their names change with their content); every other path under /console that
 * is not a file answers index.html (client-side routes), never cached. Without a build, a short
 * page says how to make one.
 */
const ASSET_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Offerdesk console not built</title></head>
<body><h1>The console is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm install</code>, which builds it), then reload this page.</p>
<p>The management API is available at <code>/console/api/</code>.</p></body></html>
`;

export function consoleStatic(dir: string) {
  const files = express.static(dir, {
    index: false,
    redirect: false,
    fallthrough: true,
    setHeaders(res, path) {
      res.set('Cache-Control', path.includes(`${join(dir, 'assets')}`) ? `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable` : 'no-store');
    },
  });
  const index = join(dir, 'index.html');

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    files(req, res, () => {
      // A missing hashed asset is a 404, not the app: the browser asked for a script or a style.
      if (req.path.startsWith('/assets/')) return next();
      res.set('Cache-Control', 'no-store');
      if (!existsSync(index)) {
        res.status(200).type('html').send(NOT_BUILT);
        return;
      }
      res.sendFile(index, { headers: { 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' } }, (error) => {
        if (error) next(error);
      });
    });
  };
}
