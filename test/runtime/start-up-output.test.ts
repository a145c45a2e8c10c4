import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerdeskArgs } from '../support/offerdesk-command.js';
import { exitOf, outputOf, spawnOfferdesk, tempDir } from './helpers.js';

const TEST_MASTER_KEY = randomBytes(32).toString('base64');

/**
 * What a person sees: which data directory and database the CLI uses wherever it is started,
 * no warnings on ordinary commands, one mention of a generated master key at `serve`, readable
 * logs on a terminal, and the project's own one-line message for every bad configuration value.
 */

let db: TestDatabase;
const data = tempDir('start-up');

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
  data.remove();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as a real process, started in `cwd`, with our environment minus what the test decides. */
function cli(args: string[], env: Record<string, string | undefined>, cwd = projectRoot): Promise<Run> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['OFFERDESK_DATA_DIR', 'OFFERDESK_MASTER_KEY', 'LOG_LEVEL', 'LOG_FORMAT', 'NODE_OPTIONS']) delete base[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      offerdeskArgs(...args),
      { cwd, env: { ...base, ...env } as NodeJS.ProcessEnv, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the data directory and the database', () => {
  it('is the package root\'s data/ from any directory, as for the server', async () => {
    const script = `import(${JSON.stringify(join(projectRoot, 'src/config.ts'))}).then((m) => process.stdout.write(m.loadConfig().dataDir))`;
    const fromScripts = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(projectRoot, 'scripts'), env: { ...process.env, OFFERDESK_DATA_DIR: '' } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(fromScripts).toBe(join(projectRoot, 'data'));
  }, 60_000);

  it('--verbose names the database on stderr, without its password', async () => {
    const run = await cli(['--verbose', 'account', 'list'], { DATABASE_URL: db.url, OFFERDESK_DATA_DIR: data.path }, join(projectRoot, 'scripts'));
    expect(run.code).toBe(0);
    const name = new URL(db.url).pathname;
    expect(run.stderr).toBe(`offerdesk: database: DATABASE_URL ${new URL(db.url).hostname}:${new URL(db.url).port || '5432'}${name}\n`);
  }, 60_000);
});

describe('warnings', () => {
  it('endpoint commands print no warning about the generated master key', async () => {
    // With DATABASE_URL a master key must be given (no key is generated beside the data).
    const env = { DATABASE_URL: db.url, OFFERDESK_DATA_DIR: data.path, OFFERDESK_MASTER_KEY: TEST_MASTER_KEY };
    await cli(['account', 'create', '--email', 'quiet@agency.test', '--name', 'Q'], env);
    const ws = JSON.parse(
      (await cli(['workspace', 'create', '--name', 'Quiet', '--timezone', 'UTC', '--currency', 'EUR', '--owner', 'quiet@agency.test', '--json'], env)).stdout,
    ) as { id: string };
    const add = await cli(['endpoint', 'add', '--workspace', ws.id, '--url', 'https://receiver.acme.io/x', '--events', 'offer.sent', '--as', 'quiet@agency.test'], {
      ...env,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: 'receiver.acme.io=127.0.0.1:9',
    });
    expect(add).toMatchObject({ code: 0, stderr: '' });
    const list = await cli(['endpoint', 'list', '--workspace', ws.id, '--as', 'quiet@agency.test'], env);
    expect(list).toMatchObject({ code: 0, stderr: '' });
  }, 120_000);
});

describe('serve on a terminal (LOG_FORMAT=pretty, no LOG_LEVEL)', () => {
  // With DATABASE_URL the master key is given (a key is generated only beside an embedded
  // database, and mentioned there once, at serve): nothing about a master key is printed.
  it('shows the banner with the demo owner and how to listen, no master-key warning, no JSON and no info lines', async () => {
    // An empty database of its own, so the demo workspace is seeded and its key shown.
    const empty = await freshDatabase();
    const child = spawnOfferdesk(['serve', '--port', '0'], {
      ...process.env,
      DATABASE_URL: empty.url,
      OFFERDESK_DATA_DIR: tempDir('pretty').path,
      OFFERDESK_MASTER_KEY: TEST_MASTER_KEY,
      OFFERDESK_DEMO_SEED: '1',
      LOG_LEVEL: undefined,
      LOG_FORMAT: 'pretty',
      OFFERDESK_DEV_LISTEN: '1',
    });
    const output = outputOf(child);
    await output.waitFor(/^Offerdesk API listening on /, 90_000);
    await output.waitFor(/npx offerdesk listen$/, 10_000);
    child.kill('SIGTERM');
    await exitOf(child, 30_000);
    await empty.drop();
    const text = output.text();
    expect(text).not.toMatch(/^\{"level"/m);
    expect(text).not.toMatch(/master key/);
    expect(text).not.toMatch(/INFO/);
    expect(text).toMatch(/^ {2}demo owner: owner@demo-agency\.example /m);
    expect(text).toMatch(/^Receive its webhooks on this machine, in another terminal:\n {2}npx offerdesk listen$/m);
  }, 150_000);
});

describe('a bad configuration value stops the start with one line of ours', () => {
  const cases: [name: string, value: string, message: RegExp][] = [
    ['LOG_LEVEL', 'verbose', /^offerdesk: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"\n$/],
    ['LOG_FORMAT', 'xml', /^offerdesk: LOG_FORMAT must be one of auto, pretty, json, got "xml"\n$/],
    ['TRUST_PROXY', 'banana', /^offerdesk: TRUST_PROXY must be .*"banana" is none of them\n$/],
    ['PORT', 'eighty', /^offerdesk: PORT must be a whole number, got "eighty"\n$/],
    ['OFFERDESK_DEV_LISTEN', 'maybe', /^offerdesk: OFFERDESK_DEV_LISTEN must be true or false, got "maybe"\n$/],
  ];
  it.each(cases)('%s=%s', async (name, value, message) => {
    const run = await cli(['serve', '--port', '0'], { DATABASE_URL: db.url, OFFERDESK_DATA_DIR: data.path, [name]: value });
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(message);
  }, 60_000);
});
