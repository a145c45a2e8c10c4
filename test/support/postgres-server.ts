import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

/**
 * The machine's PostgreSQL through DATABASE_URL when set (CI), else an embedded one in a
 * temporary directory: tests always talk to a real server, never to a mock.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const url = process.env.DATABASE_URL;
  if (url) {
    return { adminUrl: url, urlFor: (db) => withDatabase(url, db), stop: async () => {} };
  }
  const { startEmbeddedPostgres } = await import('../../src/db/embedded.js');
  const dir = mkdtempSync(join(tmpdir(), 'offerdesk-test-pg-'));
  const embedded = await startEmbeddedPostgres({ dataDir: dir, port: 0 });
  return {
    adminUrl: embedded.url,
    urlFor: (db) => withDatabase(embedded.url, db),
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
