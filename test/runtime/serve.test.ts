import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { exitOf, isAlive, outputOf, spawnOfferdesk, tempDir } from './helpers.js';
import type { ChildProcess } from 'node:child_process';

// `offerdesk serve` as a real process on a real socket: what it prints, and how it stops.

const START_TIMEOUT_MS = 90_000;
const EXIT_TIMEOUT_MS = 20_000;

/** The environment of a serve process: ours minus the settings the test decides. */
function serveEnv(overrides: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'OFFERDESK_DATA_DIR', 'OFFERDESK_DEMO_SEED']) {
    delete env[name];
  }
  return { ...env, LOG_LEVEL: 'info', ...overrides };
}

interface Started {
  child: ChildProcess;
  output: ReturnType<typeof outputOf>;
  baseUrl: string;
  key: string;
  curlLine: string;
}

async function startServe(env: Record<string, string | undefined>): Promise<Started> {
  const child = spawnOfferdesk(['serve', '--port', '0'], env);
  const output = outputOf(child);
  const [, baseUrl] = await output.waitFor(/^Offerdesk API listening on (http:\/\/\S+\/api\/v1)$/, START_TIMEOUT_MS);
  const [, key] = await output.waitFor(/^\s+demo API key: (odk_live_[0-9A-Za-z]+)$/);
  const [curlLine] = await output.waitFor(/^\s+curl .*\/workspace$/);
  return { child, output, baseUrl: baseUrl!, key: key!, curlLine: curlLine!.trim() };
}

/** One request on its own connection (no keep-alive pool), resolving status and body. */
function get(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

describe('serve on DATABASE_URL', () => {
  let db: TestDatabase;
  const dataDir = tempDir('serve');
  let serve: Started;

  beforeAll(async () => {
    db = await freshDatabase();
    // With DATABASE_URL the service refuses to start without a master key (it generates none), and
    // the demo workspace is seeded only when asked for (test/runtime/demo-seed.test.ts).
    serve = await startServe(
      serveEnv({
        DATABASE_URL: db.url,
        OFFERDESK_DATA_DIR: dataDir.path,
        OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
        OFFERDESK_DEMO_SEED: 'true',
      }),
    );
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (serve) kill(serve.child);
    await db?.drop();
    dataDir.remove();
  });

  it('prints the base URL, the demo key and a curl line with both', () => {
    expect(serve.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(serve.curlLine).toBe(`curl -H "Authorization: Bearer ${serve.key}" ${serve.baseUrl}/workspace`);
  });

  it('the printed demo key reads the seeded workspace', async () => {
    const { status, body } = await get(`${serve.baseUrl}/workspace`, serve.key);
    expect(status).toBe(200);
    expect(JSON.parse(body).data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes the demo key to demo-api-key.txt, readable by its owner only', () => {
    const file = join(dataDir.path, 'demo-api-key.txt');
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(serve.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const port = Number(new URL(serve.baseUrl).port);
    // Hold the request inside its handler: the tables it reads are locked until we let go.
    const lock = await db.sql.reserve();
    await lock`begin`;
    await lock`lock table api_keys, workspaces in access exclusive mode`;
    let settled = false;
    const inFlight = get(`${serve.baseUrl}/workspace`, serve.key).finally(() => (settled = true));
    inFlight.catch(() => {}); // awaited below; a failure before that must not be "unhandled"
    try {
      const blocked = async () => {
        const rows = await db.sql`
          select 1 from pg_stat_activity
          where application_name = 'offerdesk-serve' and wait_event_type = 'Lock'`;
        return rows.length > 0;
      };
      for (const deadline = Date.now() + 10_000; !(await blocked()); ) {
        if (Date.now() > deadline) throw new Error('the request never reached the database');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      serve.child.kill('SIGTERM');
      for (const deadline = Date.now() + 10_000; await connects(port); ) {
        if (Date.now() > deadline) throw new Error('serve kept accepting connections after SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(settled).toBe(false);
      expect(serve.child.exitCode).toBeNull();
    } finally {
      await lock`rollback`;
      lock.release();
    }

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await exitOf(serve.child, EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
  });
});

describe('serve on the embedded default (no DATABASE_URL)', () => {
  const dataDir = tempDir('serve-embedded');
  const env = serveEnv({ OFFERDESK_DATA_DIR: dataDir.path });
  let first: Started;

  beforeAll(async () => {
    first = await startServe(env);
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (first) kill(first.child);
    // A failed test must not leave a PostgreSQL server behind.
    const pidFile = join(dataDir.path, 'postgres', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (isAlive(pid)) process.kill(pid, 'SIGINT');
    }
    dataDir.remove();
  });

  it('runs on an embedded PostgreSQL under the data directory and the demo key reads /workspace', async () => {
    expect(first.output.text()).toContain(`embedded PostgreSQL in ${join(dataDir.path, 'postgres')}`);
    const { status } = await get(`${first.baseUrl}/workspace`, first.key);
    expect(status).toBe(200);
  });

  it('the CLI joins the running embedded server instead of starting another', async () => {
    const cli = spawnOfferdesk(['migrate', '--json'], env);
    const output = outputOf(cli);
    const [line] = await output.waitFor(/^\{.*\}$/);
    expect(JSON.parse(line!)).toEqual({ applied: [], embedded: true });
    expect(await exitOf(cli, EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    // Still served: the CLI did not stop the server it joined.
    expect((await get(`${first.baseUrl}/workspace`, first.key)).status).toBe(200);
  });

  it('SIGTERM exits 0 and stops the embedded PostgreSQL; the next start shows the same demo key', async () => {
    const pidFile = join(dataDir.path, 'postgres', 'postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child, EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    expect(isAlive(postmaster)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);

    const second = await startServe(env);
    try {
      expect(second.key).toBe(first.key);
      expect((await get(`${second.baseUrl}/workspace`, second.key)).status).toBe(200);
      second.child.kill('SIGTERM');
      expect(await exitOf(second.child, EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    } finally {
      kill(second.child);
    }
  }, START_TIMEOUT_MS);
});
