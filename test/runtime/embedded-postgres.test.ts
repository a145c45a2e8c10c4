import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { exitOf, isAlive, outputOf, postmasterPid, spawnTs, tempDir, until } from './helpers.js';

// Real servers, real processes, real signals: the embedded PostgreSQL is what `npm start` runs on.

// Tests run concurrently (each initdb takes a while): each has its own data directories and
// processes, cleaned up when it finishes (last registered first).
type OnFinished = (step: () => Promise<void> | void) => void;

async function answers(url: string): Promise<boolean> {
  const sql = connect(url, { max: 1 });
  try {
    const [row] = await sql`select 1 as one`;
    return row?.one === 1;
  } finally {
    await sql.end();
  }
}

function fixture(onTestFinished: OnFinished) {
  const cleanup = (step: () => Promise<void> | void) => onTestFinished(async () => void (await step()));
  return {
    cleanup,
    async start(dataDir: string, port = 0): Promise<EmbeddedPostgres> {
      const server = await startEmbeddedPostgres({ dataDir, port });
      cleanup(() => server.stop());
      return server;
    },
    newDataDir(): string {
      const dir = tempDir('embedded');
      cleanup(() => dir.remove());
      return dir.path;
    },
    /** Starts a server from another process that then holds it; returns what it printed. */
    async holdInChild(dataDir: string) {
      const env = { ...process.env, DATABASE_URL: undefined };
      const child = spawnTs('test/runtime/fixtures/hold-embedded.ts', [dataDir], env);
      cleanup(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      const [line] = await outputOf(child).waitFor(/^\{.*\}$/, 60_000);
      return { child, ...(JSON.parse(line!) as { port: number; owned: boolean; postmasterPid: number }) };
    },
  };
}

describe.concurrent('embedded PostgreSQL', () => {
  it('port 0 starts each server on a free port of its own', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const a = await start(newDataDir());
    const b = await start(newDataDir());
    expect(a.port).toBeGreaterThan(0);
    expect(b.port).not.toBe(a.port);
    expect(await answers(a.url)).toBe(true);
    expect(await answers(b.url)).toBe(true);
  });

  it('a second opener in the same process connects to the running server and does not stop it', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const first = await start(dataDir);
    const second = await start(dataDir);
    expect(second.owned).toBe(false);
    expect(second.port).toBe(first.port);
    await second.stop();
    expect(await answers(first.url)).toBe(true);
  });

  it('another process opening the same data directory connects to the running server', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const mine = await start(dataDir);
    const other = await holdInChild(dataDir);
    expect(other.owned).toBe(false);
    expect(other.port).toBe(mine.port);
    expect(other.postmasterPid).toBe(postmasterPid(dataDir));
  });

  it('a stale postmaster.pid left by a killed server does not block the next start', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const crashed = await holdInChild(dataDir);
    // A crash of everything: the starter and the server die without any cleanup.
    crashed.child.kill('SIGKILL');
    process.kill(crashed.postmasterPid, 'SIGKILL');
    await until(() => !isAlive(crashed.postmasterPid), 10_000, 'the killed postmaster to be gone');
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(true);

    const restarted = await start(dataDir);
    expect(restarted.owned).toBe(true);
    expect(await answers(restarted.url)).toBe(true);
  });

  it('a postmaster.pid whose pid now belongs to an unrelated live process is treated as stale', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const first = await start(dataDir);
    await first.stop();
    // After a container restart the recorded pid is often taken by some other process.
    const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanup(() => {
      unrelated.kill('SIGKILL');
    });
    const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
    writeFileSync(
      pidFile,
      `${unrelated.pid}\n${join(dataDir, 'postgres')}\n1700000000\n${first.port}\n\n127.0.0.1\n  1234 5678\nready   \n`,
    );

    const restarted = await start(dataDir);
    expect(restarted.owned).toBe(true);
    expect(await answers(restarted.url)).toBe(true);
    expect(isAlive(unrelated.pid!)).toBe(true);
  });

  it('a server whose starter was killed is adopted and stopped by the next opener', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const orphaned = await holdInChild(dataDir);
    orphaned.child.kill('SIGKILL');
    await exitOf(orphaned.child, 10_000);
    expect(isAlive(orphaned.postmasterPid)).toBe(true);

    const adopter = await start(dataDir);
    expect(adopter.owned).toBe(true);
    expect(adopter.port).toBe(orphaned.port);
    await adopter.stop();
    expect(isAlive(orphaned.postmasterPid)).toBe(false);
  });

  it('stop() ends the server it started', async ({ onTestFinished }) => {
    const { start, newDataDir, holdInChild, cleanup } = fixture(onTestFinished);
    const dataDir = newDataDir();
    const server = await start(dataDir);
    const pid = postmasterPid(dataDir);
    await server.stop();
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
