import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { loadConfig } from '../src/config.js';
import { jsBudget } from './budget.js';

/**
 * The console single-page app: sources in web/, built to dist/console/, served by `serve` at
 * /console/ (the same port as the API). `npm run dev` serves it with hot reload and forwards
 * /console/api to a running `npm start` (its PORT and HOST, read through src/config.ts).
 */
const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/console', import.meta.url));

export default defineConfig(({ command }) => {
  const server = command === 'serve' ? loadConfig() : undefined;
  const target = server ? `http://${server.host === '0.0.0.0' ? '127.0.0.1' : server.host}:${server.port}` : '';
  // The origin the management API takes changes from: its public URL's (docs/console.md
  // "Sessions"); unset, that is http://localhost:<PORT>, whose loopback aliases it also accepts.
  const consoleOrigin = server?.publicUrlSet ? new URL(server.publicUrl).origin : `http://localhost:${server?.port ?? ''}`;
  return {
    root,
    base: '/console/',
    plugins: [react(), jsBudget()],
    build: {
      outDir,
      emptyOutDir: true,
      // The page's CSP forbids inline script; Vite's preload polyfill is not needed by the
      // browsers we support and would add code to the entry chunk.
      modulePreload: { polyfill: false },
      sourcemap: false,
      reportCompressedSize: false,
    },
    server: {
      proxy: {
        '/console/api': {
          target,
          // The management API refuses changes whose Origin is not its own (cross-site
          // protection); the dev server is another origin, so it speaks as the API's own.
          configure(proxy) {
            proxy.on('proxyReq', (request) => {
              if (request.getHeader('origin')) request.setHeader('origin', consoleOrigin);
            });
          },
        },
      },
    },
  };
});
