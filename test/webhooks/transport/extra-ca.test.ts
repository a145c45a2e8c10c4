import { execFile } from 'node:child_process';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { devResolveEnv, type HttpsReceiver, startHttpsReceiver } from '../../support/https-receiver.js';

/**
 * Processes started normally (the CLI worker, crash tests) get no CA option: they trust a local
 * receiver through NODE_EXTRA_CA_CERTS, and the development mapping through its environment
 * variable, both read by Node and src/config.ts at start.
 */

const run = promisify(execFile);
const src = (path: string) => pathToFileURL(join(process.cwd(), 'src', path)).href;

let receiver: HttpsReceiver;
beforeEach(async () => {
  receiver = await startHttpsReceiver();
});
afterEach(async () => {
  await receiver.close();
});

async function sendFromChildProcess(extraEnv: Record<string, string>): Promise<{ ok: boolean; failure?: string }> {
  const script = join(await mkdtemp(join(tmpdir(), 'offerdesk-send-')), 'send.mts');
  await writeFile(
    script,
    `import { loadConfig } from ${JSON.stringify(src('config.ts'))};
import { createWebhookSender } from ${JSON.stringify(src('webhooks/transport/sender.ts'))};
import { generateEndpointSecret } from ${JSON.stringify(src('sealing/secrets.ts'))};
const sender = createWebhookSender({ config: loadConfig().webhooks, responseTimeoutMs: 2000 });
const outcome = await sender.send({ url: 'https://hooks.test/hook', secret: generateEndpointSecret(), messageId: 'm1',
  body: '{}', attemptAt: new Date(), customOfferDomains: [] });
await sender.close();
process.stdout.write(JSON.stringify(outcome));
`,
  );
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver), ...extraEnv },
  });
  return JSON.parse(stdout) as { ok: boolean; failure?: string };
}

describe('trusting a local receiver CA from a child process', () => {
  it('delivers when the process starts with NODE_EXTRA_CA_CERTS naming the test CA', async () => {
    expect(await sendFromChildProcess({ NODE_EXTRA_CA_CERTS: receiver.caFile })).toMatchObject({ ok: true });
  });

  it('fails with a TLS error when the process starts without it', async () => {
    expect(await sendFromChildProcess({})).toMatchObject({ ok: false, failure: 'tls' });
  });
});
