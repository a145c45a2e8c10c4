import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../config.js';
import { openDatabase, type Database } from '../../db/open.js';
import { coerceError } from '../../log.js';
import { devListenUrl } from '../../webhooks/management/dev-listen-rules.js';
import { parseEventTypes } from '../../webhooks/management/endpoints.js';
import { OFFER_WEBHOOK_TYPES } from '../../domain/outbox.js';
import { CliError, EXIT_UNEXPECTED, fail, type CliContext } from '../context.js';
import type { ListenReceiver, ReceivedEvent } from '../listen/receiver.js';
import { chooseTarget, register as registerEndpoint, unregister, type Registration, type ListenTarget } from '../listen/session.js';

/**
 * `offerdesk listen`: receive the workspace's webhooks on this machine, the way `stripe listen`
 * does (docs/receiving-webhooks-on-your-laptop.md). An HTTPS receiver on loopback with a
 * certificate from a local CA, an endpoint that maps to it (recorded for the server's worker in
 * dev_listen_endpoints), one line per request, and the endpoint removed again on Ctrl-C.
 */

interface ListenOptions {
  forwardTo?: string;
  events?: string;
  workspace?: string;
  as?: string;
}

/** A repeat of Ctrl-C within this window is the same request (terminal plus npm); later ones force the exit. */
const SAME_SIGNAL_WINDOW_MS = 1_000;
/** The listen process needs few connections: registration, then the removal at the end. */
const LISTEN_POOL_SIZE = 2;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('listen')
    .description('receive this workspace\'s webhooks on this machine over HTTPS, verify and print each, optionally forward them')
    .option('--forward-to <url>', 'forward each verified request to this http address on this machine, e.g. http://localhost:3000/webhooks', parseForwardTo)
    .option('--events <types>', `comma-separated webhook types (default: all of ${OFFER_WEBHOOK_TYPES.join(', ')})`)
    .option('--workspace <id>', 'workspace ID or name (default: the only workspace)')
    .option('--as <account>', "acting account ID or email, an owner or admin (default: the workspace's only owner)")
    .action((options: ListenOptions) => listen(options, ctx));
}

export function parseForwardTo(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgumentError('It must be an address such as http://localhost:3000/webhooks.');
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'http:' || !local || url.username || url.password) {
    throw new InvalidArgumentError('It must be a plain http address on this machine (localhost, 127.0.0.1 or [::1]).');
  }
  return url.toString();
}

function eventLine(event: ReceivedEvent): string {
  const time = event.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const verdict = event.verified ? 'verified' : 'NOT verified';
  const note = event.note ? `  (${event.note})` : '';
  return `${time}  ${event.type.padEnd(18)}  ${(event.offerId ?? '-').padEnd(36)}  ${verdict.padEnd(12)}  ${event.status}${note}`;
}

async function listen(options: ListenOptions, ctx: CliContext): Promise<void> {
  const config = loadConfigOrFail();
  if (!config) return;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  let db: Database | undefined;
  let receiver: ListenReceiver | undefined;
  let registration: Registration | undefined;
  let target: ListenTarget | undefined;
  let firstSignalAt: number | undefined;
  let stopping: Promise<void> | undefined;

  const open = () => openDatabase({ ...config, databasePoolSize: LISTEN_POOL_SIZE }, { applicationName: 'offerdesk-listen' });
  const cleanUp = async () => {
    if (registration && target) {
      db ??= await open().catch(() => undefined);
      if (!db) process.stderr.write(`offerdesk: cannot open the database to remove endpoint ${registration.endpointId}\n`);
    }
    if (registration && db && target) {
      await unregister({ sql: db.sql, clock: ctx.clock, config }, registration.endpointId, target.actor.id)
        .then(() => out(`endpoint ${registration!.endpointId} removed`))
        .catch((error) => process.stderr.write(`offerdesk: removing endpoint ${registration!.endpointId} failed: ${coerceError(error).message}\n`));
    }
    await receiver?.close();
    await db?.close();
  };
  const onSignal = () => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_WINDOW_MS) return;
      process.exit(EXIT_UNEXPECTED);
    }
    firstSignalAt = Date.now();
    stopping ??= cleanUp().finally(() => process.exit(process.exitCode ?? 0));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  try {
    if (!config.webhooks.devListen) {
      throw new CliError(
        'development mappings are off here (DATABASE_URL is set or NODE_ENV=production); ' +
          'set OFFERDESK_DEV_LISTEN=1 for both listen and the server if this is a development database',
      );
    }
    const events = options.events === undefined ? [...OFFER_WEBHOOK_TYPES] : parseEventTypes(options.events.split(','));
    // The receiver and its certificates (x509) are loaded only by this command.
    const [{ listenCertificates }, { startListenReceiver }] = await Promise.all([
      import('../listen/certificates.js'),
      import('../listen/receiver.js'),
    ]);
    const certificates = await listenCertificates(config.dataDir);
    receiver = await startListenReceiver({
      certPem: certificates.certPem,
      keyPem: certificates.keyPem,
      forwardTo: options.forwardTo,
      onEvent: (event) => out(eventLine(event)),
    });
    db = await open();
    if (ctx.verbose) process.stderr.write(`offerdesk: database: ${db.description}\n`);
    target = await chooseTarget(db.sql, options);
    registration = await registerEndpoint(
      { sql: db.sql, clock: ctx.clock, config },
      { target, events, devListen: { address: '127.0.0.1', port: receiver.port, caPem: certificates.caPem } },
    );
    receiver.setSecret(registration.secret);
    if (stopping) return;
    // The embedded database was not running, so no server is: do not keep it up from here, where
    // Ctrl-C would stop it under a server started meanwhile. The removal opens it again.
    const serverMissing = db.startedServer;
    if (serverMissing) {
      await db.close();
      db = undefined;
    }
    out(
      [
        `offerdesk listen: ${devListenUrl()} -> 127.0.0.1:${receiver.port} (certificate from the local CA ${certificates.caFile}${certificates.made === 'ca' ? ', made now' : ''})`,
        `  workspace: ${target.workspace.name} (${target.workspace.id}), as ${target.actor.email}`,
        `  endpoint ${registration.endpointId}${registration.reused ? ' (taken over from an earlier listen)' : ''}: ${events.join(', ')}`,
        `  signing secret: ${registration.secret} (the same on every listen run with this data directory)`,
        options.forwardTo ? `  forwarding verified requests to ${options.forwardTo}; answering with its status` : '  answering 200 to verified requests, 400 to others',
        ...(serverMissing ? ['  no server is running on this data directory: start it (npm start) to have events sent'] : []),
        'Ready. Waiting for events (time, type, offer, verified, status answered); Ctrl-C removes the endpoint.',
      ].join('\n'),
    );
  } catch (error) {
    fail(error);
    stopping ??= cleanUp();
    await stopping;
  }
  // The receiver keeps the process alive until a signal ends it.
}

function loadConfigOrFail() {
  try {
    return loadConfig();
  } catch (error) {
    fail(error);
    return undefined;
  }
}
